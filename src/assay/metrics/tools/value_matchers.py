"""More argument matchers, registered with ``register_matcher``:

- ``{approx: 5120, rel: 0.01, abs: 0.5}``: a number (or a numeric string such as ``"5,120"``)
  within a tolerance; with neither ``rel`` nor ``abs``, rel 1e-6 and abs 1e-12; with one of
  them, only that one; with both, either.
- ``{any: true}``: any value (the argument must be present).
- ``{contains: ...}``: a mapping: every key present and its value matching (values are
  matchers themselves, so ``{contains: {city: {fuzzy: paris}}}`` works); a list: each
  element matched by a different element of the argument, in any order; a string: a
  substring of the argument.
- ``{one_of: [a, b, ...]}``: any one of the matchers (or literals) listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from assay.metrics._numbers import number_value
from assay.metrics.tools._alignment import max_matching
from assay.metrics.tools.matchers import (
    Matcher,
    MatcherError,
    parse_matcher,
    register_matcher,
    show,
)

DEFAULT_REL = 1e-6
DEFAULT_ABS = 1e-12


@dataclass(frozen=True)
class ApproxMatcher:
    expected: float
    rel: float | None
    abs: float | None
    written: Mapping[str, Any]

    def matches(self, value: Any) -> bool:
        actual = number_value(value)
        if actual is None:
            return False
        diff = abs(actual - self.expected)
        return (self.abs is not None and diff <= self.abs) or (
            self.rel is not None and diff <= self.rel * abs(self.expected)
        )

    def describe(self) -> str:
        parts = [
            f"rel {self.rel:g}" if self.rel is not None else "",
            f"abs {self.abs:g}" if self.abs is not None else "",
        ]
        return f"approx {self.expected:g} ({', '.join(p for p in parts if p)})"

    def as_json(self) -> Any:
        return dict(self.written)


def _tolerance(spec: Mapping[str, Any], key: str) -> float | None:
    value = spec.get(key)
    if value is None:
        return None
    number = number_value(value) if not isinstance(value, str) else None
    if number is None or number < 0:
        raise MatcherError(key, f"expected a number >= 0, got {show(value)}")
    return number


def _approx(spec: dict[str, Any]) -> Matcher:
    expected = number_value(spec["approx"])
    if expected is None:
        raise MatcherError("approx", f"expected a number, got {show(spec['approx'])}")
    rel, tol = _tolerance(spec, "rel"), _tolerance(spec, "abs")
    if rel is None and tol is None:
        rel, tol = DEFAULT_REL, DEFAULT_ABS
    return ApproxMatcher(expected, rel, tol, spec)


@dataclass(frozen=True)
class AnyMatcher:
    def matches(self, value: Any) -> bool:
        return True

    def describe(self) -> str:
        return "any value"

    def as_json(self) -> Any:
        return {"any": True}


def _any(spec: dict[str, Any]) -> Matcher:
    if spec["any"] is not True:
        raise MatcherError("any", f"write any: true (got {show(spec['any'])})")
    return AnyMatcher()


def _nested(raw: Any, subpath: str) -> Matcher:
    try:
        return parse_matcher(raw)
    except MatcherError as exc:
        sub = exc.subpath
        raise MatcherError(
            subpath + (("" if sub.startswith("[") else ".") + sub if sub else ""), str(exc)
        ) from None


@dataclass(frozen=True)
class ContainsMatcher:
    expected: Mapping[str, Matcher] | Sequence[Matcher] | str
    written: Any

    def matches(self, value: Any) -> bool:
        if isinstance(self.expected, str):
            return isinstance(value, str) and self.expected in value
        if isinstance(self.expected, Mapping):
            return isinstance(value, Mapping) and all(
                k in value and m.matches(value[k]) for k, m in self.expected.items()
            )
        if not isinstance(value, list | tuple):
            return False
        wanted = self.expected
        pairs = max_matching(len(wanted), len(value), lambda i, j: wanted[i].matches(value[j]))
        return len(pairs) == len(wanted)

    def describe(self) -> str:
        return f"contains {show(self.written)}"

    def as_json(self) -> Any:
        return {"contains": self.written}


def _contains(spec: dict[str, Any]) -> Matcher:
    raw = spec["contains"]
    if isinstance(raw, str):
        return ContainsMatcher(raw, raw)
    if isinstance(raw, dict):
        inner = {str(k): _nested(v, f"contains.{k}") for k, v in raw.items()}
        return ContainsMatcher(inner, raw)
    if isinstance(raw, list):
        return ContainsMatcher([_nested(v, f"contains[{i}]") for i, v in enumerate(raw)], raw)
    raise MatcherError("contains", f"expected a mapping, a list or a string, got {show(raw)}")


@dataclass(frozen=True)
class OneOfMatcher:
    options: Sequence[Matcher]
    written: Any

    def matches(self, value: Any) -> bool:
        return any(m.matches(value) for m in self.options)

    def describe(self) -> str:
        return "one of " + ", ".join(m.describe() for m in self.options)

    def as_json(self) -> Any:
        return {"one_of": self.written}


def _one_of(spec: dict[str, Any]) -> Matcher:
    raw = spec["one_of"]
    if not isinstance(raw, list) or not raw:
        raise MatcherError("one_of", f"expected a non-empty list, got {show(raw)}")
    return OneOfMatcher([_nested(v, f"one_of[{i}]") for i, v in enumerate(raw)], raw)


register_matcher("approx", _approx, frozenset({"rel", "abs"}))
register_matcher("any", _any, frozenset())
register_matcher("contains", _contains, frozenset())
register_matcher("one_of", _one_of, frozenset())
