"""Metrics by name: ``@assay.metric("name")`` registers one, ``build_metric`` makes one
instance per configuration a suite writes.

Two forms, for assay's own metrics and the user's alike::

    @assay.metric("mentions_price")                 # a function: the simple case
    def mentions_price(ctx: assay.MetricContext) -> bool:
        return "CHF" in (ctx.response or "")

    @assay.metric("has_word")                       # a class: options of its own
    class HasWord(assay.Metric[WordOptions]):
        def measure(self, ctx: assay.MetricContext) -> assay.Score: ...

A function returns a bool, a 0-1 number, a ``Score`` or a dict (as a code grader does) and
may be async; it runs isolated like a code grader. A class of the user's runs its
``measure`` on a thread of its own. Suites reach the user's metrics through ``plugins:``;
installed packages through the ``assay.plugins`` entry points.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeVar

from pydantic import ValidationError

from assay.metrics._builtins import BUILTIN_METRICS
from assay.metrics._user_code import UserFunction, UserFunctionMetric
from assay.metrics.base import TEST_INPUTS, TURN_INPUTS, Metric, MetricOptions
from assay.registry import RegistrationError, Registry, UnknownName, is_assay_module

METRICS: Registry[type[Metric[Any]]] = Registry(
    "metric",
    builtins=BUILTIN_METRICS,
    unknown_hint="a metric of your own is registered with @assay.metric in a module listed "
    "under plugins:",
)

Registrable = TypeVar("Registrable")


class MetricConfigError(ValueError):
    """A bad metric spec; ``problems`` are (sub-path, message) pairs."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p}: {m}" if p else m for p, m in problems))


def metric(
    name: str,
    *,
    dimension: str | None = None,
    requires: Iterable[str] | None = None,
    scope: Literal["turn", "test"] | None = None,
    default_threshold: float | None = None,
) -> Callable[[Registrable], Registrable]:
    """Register a metric as ``name``: a ``Metric`` subclass, or a function of the turn's
    ``MetricContext`` (of the ``ConversationContext`` with ``scope="test"``). The keywords
    set what a class would set as class attributes. Returns what it decorates, unchanged."""
    if not isinstance(name, str):
        raise RegistrationError(
            '@assay.metric takes the metric\'s name: write @assay.metric("my_metric")'
        )
    settings: dict[str, Any] = {"dimension": dimension, "scope": scope}
    settings["default_threshold"] = default_threshold
    if requires is not None:
        settings["requires"] = _requirements(name, requires, scope or "turn")
    chosen = {k: v for k, v in settings.items() if v is not None}

    def register(target: Registrable) -> Registrable:
        if isinstance(target, type) and issubclass(target, Metric):
            cls: type[Metric[Any]] = target
        elif inspect.isfunction(target) or inspect.ismethod(target):
            cls = _function_metric(name, target, chosen)
        else:
            raise RegistrationError(
                f"@assay.metric({name!r}) decorates a Metric subclass or a function, not {target!r}"
            )
        for key, value in chosen.items():
            setattr(cls, key, value)
        cls.name = name
        if not is_assay_module(cls.__module__):
            cls.isolated = True
        METRICS.register(name, cls)
        return target

    return register


def _requirements(name: str, requires: Iterable[str], scope: str) -> frozenset[str]:
    if isinstance(requires, str):
        requires = [requires]
    wanted = frozenset(requires)
    known = TEST_INPUTS if scope == "test" else TURN_INPUTS
    unknown = sorted(wanted - known)
    if unknown:
        raise RegistrationError(
            f"@assay.metric({name!r}): a {scope}-scoped metric cannot require {unknown}; "
            f"it can require {', '.join(sorted(known))}"
        )
    return wanted


def _function_metric(name: str, fn: UserFunction, settings: dict[str, Any]) -> type[Metric[Any]]:
    """A metric class around ``fn``, named and placed like it (for messages and re-imports)."""
    attributes: dict[str, Any] = {
        "__module__": fn.__module__,
        "__qualname__": fn.__qualname__,
        "__doc__": fn.__doc__,
        "_function": staticmethod(fn),
    }
    if settings.get("scope") == "test" and "requires" not in settings:
        attributes["requires"] = frozenset()
    return type(fn.__name__, (FunctionMetric,), attributes)


class FunctionMetric(UserFunctionMetric[MetricOptions]):
    """A metric written as a function; options: ``threshold`` and ``name``."""

    _function: UserFunction

    @property
    def user_function(self) -> UserFunction:
        return self._function


def build_metric(name: str, options: dict[str, Any]) -> Metric[Any]:
    try:
        cls = METRICS.get(name)
    except UnknownName as exc:
        raise MetricConfigError([("metric", str(exc))]) from None
    try:
        parsed = cls.Options.model_validate(options)
    except ValidationError as exc:
        problems = []
        for err in exc.errors(include_url=False):
            sub = ".".join(str(p) for p in err["loc"])
            if err["type"] == "extra_forbidden":
                allowed = ", ".join(sorted(cls.Options.model_fields)) or "none"
                msg = f"unknown option for metric {name!r} (options: {allowed})"
            else:
                msg = str(err["msg"]).removeprefix("Value error, ")
                if "input" in err and not isinstance(err["input"], dict):
                    msg += f" (got {err['input']!r})"
            problems.append((sub, msg))
        raise MetricConfigError(problems) from None
    return cls(parsed)
