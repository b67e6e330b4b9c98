"""The metric protocol: one context object in, one MetricResult out.

A metric is a class registered by name (``@register_metric``) with an ``Options`` model
that checks what users write in a suite. ``build_metric`` makes one instance per
configuration. A metric that raises becomes an error on that metric only; a metric whose
inputs are missing is not run, and the turn says why.
"""

from __future__ import annotations

import time
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from assay._isolation import describe, in_daemon_thread
from assay.results.models import MetricKind, MetricResult, TokenUsage, ToolInvocation

if TYPE_CHECKING:
    from assay.metrics.tools.assertions import ExpectedTool

# A deterministic metric scores a turn whose response and tool results are at most this long
# on the event loop; a longer one on a thread (see ``Metric.evaluate``).
INLINE_LIMIT_CHARS = 65_536


@dataclass(frozen=True)
class Exchange:
    """One earlier turn of the conversation, as later metrics see it."""

    input: str
    response: str | None
    tool_invocations: Sequence[ToolInvocation] = ()
    ground_truth: str | None = None
    context: str | None = None
    latency_ms: float | None = None
    token_usage: TokenUsage | None = None


@dataclass(frozen=True)
class MetricContext:
    """Everything a metric may read about one turn. Read-only by construction."""

    input: str
    response: str | None
    ground_truth: str | None = None
    context: str | None = None
    tool_invocations: Sequence[ToolInvocation] = ()
    history: Sequence[Exchange] = ()
    latency_ms: float | None = None
    token_usage: TokenUsage | None = None
    turn_index: int = 0
    test_name: str = ""
    judge: Any = None  # an assay.models chat model when one is configured
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversationContext:
    """What a test-scoped metric reads: the whole conversation (one turn for a single-turn
    test), every tool call in order, and the test's expected trajectory."""

    test_name: str
    turns: Sequence[Exchange]
    expected_trajectory: Sequence[ExpectedTool] | None = None
    judge: Any = None
    multi_turn: bool = False

    @property
    def tool_invocations(self) -> list[ToolInvocation]:
        return [call for turn in self.turns for call in turn.tool_invocations]


@dataclass(frozen=True)
class Score:
    """What a metric's ``measure`` returns; ``passed`` defaults to ``score >= threshold``."""

    score: float
    passed: bool | None = None
    reasoning: str | None = None
    details: dict[str, Any] | None = None


class MetricOptions(BaseModel):
    # built on first use: only the metrics a suite names pay for their validators
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    threshold: float | None = Field(default=None, ge=0, le=1)
    name: str | None = None  # a label, to run one metric twice with different options


class Metric(ABC):
    name: ClassVar[str]
    kind: ClassVar[MetricKind] = "standard"
    dimension: ClassVar[str] = "comparison"
    requires: ClassVar[frozenset[str]] = frozenset({"response"})
    Options: ClassVar[type[MetricOptions]] = MetricOptions
    default_threshold: ClassVar[float | None] = None
    # "turn": scored on every turn; "test": scored once over the whole conversation
    scope: ClassVar[Literal["turn", "test"]] = "turn"

    def __init__(self, options: MetricOptions) -> None:
        self.options = options

    @property
    def label(self) -> str:
        return self.options.name or self.name

    @property
    def threshold(self) -> float | None:
        return self.default_threshold if self.options.threshold is None else self.options.threshold

    def missing_input(self, ctx: MetricContext) -> str | None:
        """Why this metric cannot run on ``ctx``, or None when it can."""
        if "response" in self.requires and ctx.response is None:
            return "no response"
        if "ground_truth" in self.requires and ctx.ground_truth is None:
            return "no ground truth (Answer) for this turn"
        if "context" in self.requires and not ctx.context:
            return "no context for this turn"
        if "history" in self.requires and not ctx.history:
            return "needs a multi-turn conversation"
        if "judge" in self.requires and ctx.judge is None:
            return NO_JUDGE
        return None

    def missing_conversation_input(self, conv: ConversationContext) -> str | None:
        """Why this test-scoped metric cannot run on ``conv``, or None when it can."""
        if "expected_trajectory" in self.requires and conv.expected_trajectory is None:
            return "no expected_trajectory on this test"
        if "multi_turn" in self.requires and not conv.multi_turn:
            return "needs a multi-turn conversation"
        if "ground_truth" in self.requires and not any(t.ground_truth for t in conv.turns):
            return "no ground truth (Answer) on any turn"
        if "judge" in self.requires and conv.judge is None:
            return NO_JUDGE
        return None

    def measure(self, ctx: MetricContext) -> Score:
        """Deterministic turn metrics override this; model-backed ones override ``evaluate``."""
        raise NotImplementedError

    def measure_conversation(self, conv: ConversationContext) -> Score:
        """Deterministic test-scoped metrics override this (or ``evaluate_conversation``)."""
        raise NotImplementedError

    async def evaluate_conversation(self, conv: ConversationContext) -> MetricResult:
        size = sum(len(t.response or "") + _tools_size(t.tool_invocations) for t in conv.turns)
        return await _off_the_loop_if_large(
            size, self._scored, lambda: self.measure_conversation(conv)
        )

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        size = len(ctx.response or "") + _tools_size(ctx.tool_invocations)
        return await _off_the_loop_if_large(size, self.run_sync, ctx)

    def run_sync(self, ctx: MetricContext) -> MetricResult:
        return self._scored(lambda: self.measure(ctx))

    def _scored(self, measure: Callable[[], Score]) -> MetricResult:
        """Time ``measure`` and turn its Score, or its exception, into a MetricResult."""
        started = time.perf_counter()
        try:
            outcome = measure()
        except Exception as exc:  # a broken metric fails itself, not the run
            return self.failure(describe(exc), started)
        return self.result(outcome, started)

    def result(self, outcome: Score, started: float, **extra: Any) -> MetricResult:
        threshold = self.threshold
        passed = outcome.passed
        if passed is None:
            passed = outcome.score >= threshold if threshold is not None else outcome.score >= 1
        return MetricResult(
            metric_name=self.label,
            kind=self.kind,
            dimension=self.dimension,
            score=outcome.score,
            threshold=threshold,
            passed=passed,
            reasoning=outcome.reasoning,
            details=outcome.details,
            evaluation_time_ms=round((time.perf_counter() - started) * 1000, 3),
            **extra,
        )

    def failure(self, error: str, started: float, **extra: Any) -> MetricResult:
        return MetricResult(
            metric_name=self.label,
            kind=self.kind,
            dimension=self.dimension,
            score=None,
            threshold=self.threshold,
            passed=False,
            error=error,
            evaluation_time_ms=round((time.perf_counter() - started) * 1000, 3),
            **extra,
        )


def _tools_size(calls: Sequence[ToolInvocation]) -> int:
    return sum(len(c.name) + (c.bytes or 0) for c in calls)


async def _off_the_loop_if_large(
    size: int, fn: Callable[..., MetricResult], *args: Any
) -> MetricResult:
    """A deterministic metric's work: inline on a small input (microseconds, the usual case),
    on a thread of its own on a large one, so that other conversations go on meanwhile and
    the runner's time limit (``execution.metric_timeout_s``) can give up on it."""
    if size <= INLINE_LIMIT_CHARS:
        return fn(*args)
    result: MetricResult = await in_daemon_thread(fn, *args)
    return result


NO_JUDGE = "no judge model configured (set judge: in the suite, or pass --judge)"

METRICS: dict[str, type[Metric]] = {}

M = TypeVar("M", bound=type[Metric])


def register_metric(cls: M) -> M:
    """Class decorator: make a metric available by its ``name`` in suites."""
    METRICS[cls.name] = cls
    return cls
