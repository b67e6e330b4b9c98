"""``code``: a grader of your own, ``module:callable``, written ``{type: code, grader: ...}``.

The grader is imported when the suite loads (an import failure is a load-time error naming
``grader``). It receives the turn's ``MetricContext`` (frozen; its tool calls are copies) and
returns a bool, a number in 0-1, a ``Score``, or a dict with ``score``, ``passed``,
``reason`` and ``details`` (each optional, but one of score/passed is needed). It may be
async. It runs in-process, with the same trust as the suite that names it, but whatever it
raises (``sys.exit`` included) or however long it runs fails only this metric.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from collections.abc import Mapping
from typing import Any, ClassVar

from pydantic import field_validator

from assay._isolation import describe, in_daemon_thread, reraise_if_cancelling
from assay.errors import ConfigError
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score, register_metric
from assay.results.models import MetricResult

DIMENSIONS = ("comparison", "safety", "performance", "reasoning", "multi_turn", "tool_use")


def import_grader(spec: str) -> Any:
    from assay.targets.python import import_callable  # the targets package imports config

    try:
        return import_callable(spec, what="grader")
    except ConfigError as exc:
        raise ValueError("; ".join(p.message for p in exc.problems)) from None


class CodeOptions(MetricOptions):
    grader: str
    fail_on_error: bool = True
    dimension: str = "comparison"

    @field_validator("grader")
    @classmethod
    def _importable(cls, value: str) -> str:
        import_grader(value)
        return value

    @field_validator("dimension")
    @classmethod
    def _known_dimension(cls, value: str) -> str:
        if value not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}")
        return value


class GraderReturnError(TypeError):
    pass


def to_score(value: Any) -> Score:
    """What a grader returned, as a Score; GraderReturnError says what was wrong."""
    if isinstance(value, Score):
        return value
    if isinstance(value, bool):
        return Score(1.0 if value else 0.0, passed=value)
    if isinstance(value, int | float):
        if not (math.isfinite(value) and 0 <= value <= 1):
            raise GraderReturnError(f"the grader returned {value!r}; a score is between 0 and 1")
        return Score(float(value))
    if isinstance(value, Mapping):
        unknown = sorted(set(value) - {"score", "passed", "reason", "details"})
        if unknown:
            raise GraderReturnError(f"the grader returned unknown keys {unknown}")
        passed = value.get("passed")
        if passed is not None and not isinstance(passed, bool):
            raise GraderReturnError(f"'passed' must be true or false, got {passed!r}")
        raw = value.get("score")
        if raw is None and passed is None:
            raise GraderReturnError("the grader's dict has neither 'score' nor 'passed'")
        score = to_score(raw).score if raw is not None else (1.0 if passed else 0.0)
        details = value.get("details")
        if details is not None and not isinstance(details, Mapping):
            raise GraderReturnError("'details' must be a mapping")
        reason = value.get("reason")
        return Score(
            score,
            passed=passed,
            reasoning=None if reason is None else str(reason),
            details=None if details is None else dict(details),
        )
    raise GraderReturnError(
        f"the grader returned {type(value).__name__}; return a bool, a 0-1 number or a dict"
    )


def read_only(ctx: MetricContext) -> MetricContext:
    """The context with copies of its tool calls, so a grader cannot change the record."""
    return dataclasses.replace(
        ctx,
        tool_invocations=tuple(c.model_copy(deep=True) for c in ctx.tool_invocations),
    )


@register_metric
class Code(Metric):
    """A user grader's verdict. A grader that raises fails this metric (or, with
    ``fail_on_error: false``, leaves it unjudged: ``passed`` null, the error recorded)."""

    name: ClassVar[str] = "code"
    kind = "code"
    requires = frozenset()
    Options = CodeOptions

    def __init__(self, options: MetricOptions) -> None:
        super().__init__(options)
        assert isinstance(options, CodeOptions)
        self.opts = options
        self.grader = import_grader(options.grader)

    @property
    def label(self) -> str:
        return self.options.name or f"code:{self.opts.grader.rpartition(':')[2]}"

    def measure(self, ctx: MetricContext) -> Score:
        value = self.grader(read_only(ctx))
        if inspect.iscoroutine(value):
            value.close()
            raise GraderReturnError("an async grader cannot run here; await evaluate()")
        return to_score(value)

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        """A sync grader runs on a thread of its own, so one that loops or blocks neither
        stalls other conversations nor outlasts the metric time limit; an async one runs on
        the loop, under the same limit."""
        started = time.perf_counter()
        try:
            if inspect.iscoroutinefunction(self.grader):
                value = await self.grader(read_only(ctx))
            else:
                value = await in_daemon_thread(self.grader, read_only(ctx))
            if inspect.isawaitable(value):
                value = await value
            outcome = to_score(value)
        except BaseException as exc:  # sys.exit too: this metric's, not the run's
            reraise_if_cancelling(exc)
            return self.failure(describe(exc), started)
        return self.result(outcome, started)

    def result(self, outcome: Score, started: float, **extra: Any) -> MetricResult:
        return (
            super()
            .result(outcome, started, **extra)
            .model_copy(update={"dimension": self.opts.dimension})
        )

    def failure(self, error: str, started: float, **extra: Any) -> MetricResult:
        failed = super().failure(error, started, **extra)
        update: dict[str, Any] = {"dimension": self.opts.dimension}
        if not self.opts.fail_on_error:
            update["passed"] = None
        return failed.model_copy(update=update)
