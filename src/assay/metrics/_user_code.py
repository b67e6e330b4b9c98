"""Metrics that call a function of the user's: code graders (``{type: code}``) and metrics
written as a function (``@assay.metric("name") def f(ctx): ...``).

The function receives a read-only context (frozen, with copies of the tool calls, so it
cannot change the record) and returns a bool, a number in 0-1, a ``Score``, or a dict with
``score``, ``passed``, ``reason`` and ``details``. A sync function runs on a thread of its
own per call, so one that blocks or loops neither stalls other conversations nor outlasts
the metric time limit; an async one runs on the event loop, under the same limit. Whatever
it raises (``sys.exit`` included) fails only this metric.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import time
from abc import abstractmethod
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from assay._isolation import call_user_code, settled
from assay.metrics.base import (
    ConversationContext,
    Metric,
    MetricContext,
    OptionsT,
    Score,
    plain_details,
)
from assay.results.models import MetricResult

UserFunction = Callable[[Any], Any]


class GraderReturnError(TypeError):
    pass


def to_score(value: Any) -> Score:
    """What a user's function returned, as a Score; GraderReturnError says what was wrong."""
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


def read_only_conversation(conv: ConversationContext) -> ConversationContext:
    turns = tuple(
        dataclasses.replace(
            t, tool_invocations=tuple(c.model_copy(deep=True) for c in t.tool_invocations)
        )
        for t in conv.turns
    )
    return dataclasses.replace(conv, turns=turns)


class UserFunctionMetric(Metric[OptionsT]):
    """A metric scored by ``user_function``: on the turn's context, or, for a test-scoped
    one, on the conversation's."""

    runs_user_code: ClassVar[bool] = True  # its details are the user's: copied plain

    @property
    @abstractmethod
    def user_function(self) -> UserFunction: ...

    def measure(self, ctx: MetricContext) -> Score:
        return self._sync(read_only(ctx))

    def measure_conversation(self, conv: ConversationContext) -> Score:
        return self._sync(read_only_conversation(conv))

    def _sync(self, arg: Any) -> Score:
        value = self.user_function(arg)
        if inspect.iscoroutine(value):
            value.close()
            raise GraderReturnError("an async grader cannot run here; await evaluate()")
        return to_score(value)

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        return await self._call(read_only(ctx))

    async def evaluate_conversation(self, conv: ConversationContext) -> MetricResult:
        return await self._call(read_only_conversation(conv))

    def _read_score(self, value: Any) -> Score:
        outcome = to_score(value)
        if outcome.details is None:
            return outcome
        return dataclasses.replace(outcome, details=plain_details(outcome.details))

    async def _call(self, arg: Any) -> MetricResult:
        started = time.perf_counter()
        fn = self.user_function
        try:
            # read with the call: a returned object's __str__ is the grader's code too, under
            # the metric's time limit (on a sync grader's own thread), details included
            outcome: Score = await call_user_code(fn, arg, then=self._read_score)
        except BaseException as exc:  # sys.exit too: this metric's, not the run's
            exc = await settled(exc)  # Ctrl-C or its time limit: not the grader's
            return self.failure(self.error_of(exc), started)
        return self.result(outcome, started)
