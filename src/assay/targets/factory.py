"""Build the Target a suite's ``target:`` block (or ``--target``) describes."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from pathlib import Path

from assay.config import DEFAULT_RETRIES
from assay.errors import ConfigError, Problem, TargetError
from assay.net import RetryPolicy
from assay.registry import Registry, UnknownName
from assay.target_config import HttpTarget as HttpTargetConfig
from assay.target_config import TargetConfig
from assay.targets.base import AgentSession, Target

# builds a target from its config, the suite's folder and the retry policy
TargetBuilder = Callable[[TargetConfig, Path | None, RetryPolicy], Target]
TARGETS: Registry[TargetBuilder] = Registry("target")

_MODULE_FUNCTION = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def parse_target_option(value: str) -> TargetConfig:
    """``--target``: an http(s) URL, ``demo`` / ``demo:travel``, or ``module:function``."""
    if value.startswith(("http://", "https://")):
        return TargetConfig.model_validate({"http": {"url": value}})
    if value == "demo" or value == "demo:travel":
        return TargetConfig(demo="travel")
    if _MODULE_FUNCTION.match(value):
        return TargetConfig(python=value)
    raise ConfigError(
        [
            Problem(
                "options",
                "--target",
                f"expected an http(s) URL, demo, or module:function, got {value!r}",
            )
        ]
    )


def make_target(
    config: TargetConfig,
    base_dir: Path | None = None,
    retries: int | RetryPolicy = DEFAULT_RETRIES,
    source: str = "suite",
) -> Target:
    """The target for ``config``. ``retries`` is the suite's ``execution.retries`` (or a whole
    ``RetryPolicy``): how often a connection failure, 429 or 5xx is retried. Problems found
    while building it name ``source`` (the suite file)."""
    try:
        return _build(config, base_dir, retries)
    except ConfigError as exc:
        raise ConfigError(
            [
                Problem(source if p.source == "suite" else p.source, p.path, p.message)
                for p in exc.problems
            ]
        ) from None


def _build(config: TargetConfig, base_dir: Path | None, retries: int | RetryPolicy) -> Target:
    policy = retries if isinstance(retries, RetryPolicy) else RetryPolicy(retries=retries)
    try:
        build = TARGETS.get(config.kind)
    except UnknownName as exc:
        raise ConfigError([Problem("suite", "target", str(exc))]) from None
    return build(config, base_dir, policy)


# each target's module is imported when a suite uses it: http and openai pull in aiohttp


def _python(config: TargetConfig, base_dir: Path | None, policy: RetryPolicy) -> Target:
    from assay.targets.python import PythonTarget

    assert config.python is not None
    return PythonTarget(config.python, (base_dir,) if base_dir else ())


def _http(config: TargetConfig, base_dir: Path | None, policy: RetryPolicy) -> Target:
    from assay.targets.http import HttpTarget

    assert config.http is not None
    return HttpTarget(config.http, policy, variables=config.http.vars)


def _openai(config: TargetConfig, base_dir: Path | None, policy: RetryPolicy) -> Target:
    from assay.targets.openai import OpenAITarget

    assert config.openai is not None
    return OpenAITarget(config.openai, policy, search_dirs=(base_dir,) if base_dir else ())


def _demo(config: TargetConfig, base_dir: Path | None, policy: RetryPolicy) -> Target:
    if config.demo != "travel":
        raise ConfigError([Problem("suite", "target.demo", f"no demo agent {config.demo!r}")])
    return DemoTarget(policy)


class DemoTarget(Target):
    """The built-in travel agent, served on a free port of 127.0.0.1 from ``start`` to
    ``aclose`` and driven like any http target (``POST {url}/chat``)."""

    description = "demo:travel"

    def __init__(self, retry: RetryPolicy | None = None) -> None:
        self.retry = retry
        self._server = contextlib.ExitStack()
        self._http: Target | None = None

    async def start(self) -> None:
        try:
            from assay.demo import serve_in_background
        except ImportError as exc:  # pragma: no cover - the demo ships with assay
            raise TargetError(f"the demo agent is not available: {exc}") from None
        from assay.targets.http import HttpTarget

        try:
            url = await asyncio.to_thread(self._server.enter_context, serve_in_background())
        except OSError as exc:
            raise TargetError(f"cannot start the demo agent: {exc}") from None
        self._http = HttpTarget(HttpTargetConfig(url=f"{url}/chat"), self.retry)
        self.description = f"demo:travel ({url}/chat)"
        await self._http.start()

    def session(self, session_id: str) -> AgentSession:
        if self._http is None:
            raise TargetError("the demo agent is not running: call start() first")
        return self._http.session(session_id)

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        await asyncio.to_thread(self._server.close)


TARGETS.register("python", _python)
TARGETS.register("http", _http)
TARGETS.register("openai", _openai)
TARGETS.register("demo", _demo)
