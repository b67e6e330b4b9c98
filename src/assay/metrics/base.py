"""The metric protocol: one context object in, one MetricResult out.

A metric is a class registered by name (``@assay.metric("name")``, see
``assay.metrics.registry``), generic over its options model: ``Numeric(Metric[NumericOptions])``
checks what users write in a suite with ``NumericOptions`` and reads a typed
``self.options``. ``build_metric`` makes one instance per configuration. A metric that raises
becomes an error on that metric only; a metric whose inputs are missing is not run, and the
turn says why.
"""

from __future__ import annotations

import functools
import time
import typing
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import TypeVar

from assay._isolation import described, in_daemon_thread
from assay._millis import elapsed_ms
from assay.results.models import (
    METRIC_KINDS,
    MetricKind,
    MetricResult,
    TokenUsage,
    ToolInvocation,
    one_step_init,
    prevalidated,
)
from assay.targets._plain import plain_json

if TYPE_CHECKING:
    from assay.metrics.tools.assertions import ExpectedTool
    from assay.models.protocol import JudgeModel

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


@one_step_init
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
    judge: JudgeModel | None = None  # when one is configured
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ConversationContext:
    """What a test-scoped metric reads: the whole conversation (one turn for a single-turn
    test), every tool call in order, and the test's expected trajectory."""

    test_name: str
    turns: Sequence[Exchange]
    expected_trajectory: Sequence[ExpectedTool] | None = None
    judge: JudgeModel | None = None
    multi_turn: bool = False

    @property
    def tool_invocations(self) -> list[ToolInvocation]:
        return [call for turn in self.turns for call in turn.tool_invocations]


@one_step_init
@dataclass(frozen=True)
class Score:
    """What a metric's ``measure`` returns; ``passed`` defaults to ``score >= threshold``.
    ``error``: the metric scored, but could not read its input (the result's ``error``, as
    HoloDeck's numeric gives 0.0 with an error for a reply that is not a number)."""

    score: float
    passed: bool | None = None
    reasoning: str | None = None
    details: dict[str, Any] | None = None
    error: str | None = None


class MetricOptions(BaseModel):
    # built on first use: only the metrics a suite names pay for their validators
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    threshold: float | None = Field(default=None, ge=0, le=1)
    name: str | None = None  # a label, to run one metric twice with different options


# covariant: a Metric[NumericOptions] is a Metric (a Metric[MetricOptions]) to its readers
OptionsT = TypeVar("OptionsT", bound=MetricOptions, default=MetricOptions, covariant=True)

_In = TypeVar("_In")  # what a measure reads: a MetricContext or a ConversationContext

TURN_INPUTS = frozenset({"response", "ground_truth", "context", "history", "judge"})
TEST_INPUTS = frozenset({"expected_trajectory", "multi_turn", "ground_truth", "judge"})


class Metric(ABC, Generic[OptionsT]):
    """A metric over its options model: ``Options`` is the class's type parameter
    and ``self.options`` its validated instance."""

    name: ClassVar[str]
    kind: ClassVar[MetricKind] = "standard"
    dimension: ClassVar[str] = "comparison"
    requires: ClassVar[frozenset[str]] = frozenset({"response"})
    Options: ClassVar[type[MetricOptions]] = MetricOptions
    default_threshold: ClassVar[float | None] = None
    # "turn": scored on every turn; "test": scored once over the whole conversation
    scope: ClassVar[Literal["turn", "test"]] = "turn"
    # a metric of the user's: its measure runs on a thread of its own, always, so one that
    # blocks cannot stall other conversations or outlast the metric time limit
    isolated: ClassVar[bool] = False

    def __init__(self, options: OptionsT) -> None:
        self.options: OptionsT = options

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in cls.__dict__.get("__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Metric) and get_args(base):
                cls.Options = _options_class(get_args(base)[0])

    @property
    def label(self) -> str:
        return self.options.name or self.name

    @property
    def threshold(self) -> float | None:
        return self.default_threshold if self.options.threshold is None else self.options.threshold

    def missing_input(self, ctx: MetricContext) -> str | None:
        """Why this metric cannot run on ``ctx``, or None when it can."""
        requires = self.requires
        if "response" in requires and ctx.response is None:
            return "no response"
        if "ground_truth" in requires and ctx.ground_truth is None:
            return "no ground truth (Answer) for this turn"
        if "context" in requires and not ctx.context:
            return "no context for this turn"
        if "history" in requires and not ctx.history:
            return "needs a multi-turn conversation"
        if "judge" in requires and ctx.judge is None:
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
        return await _inline_or_threaded(
            self._inline(size), self._scored, self.measure_conversation, conv
        )

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        return await _inline_or_threaded(self._inline(turn_size(ctx)), self.run_sync, ctx)

    def _inline(self, size: int) -> bool:
        return not self.isolated and size <= INLINE_LIMIT_CHARS

    def scores_inline(self, ctx: MetricContext, size: int | None = None) -> bool:
        """Whether ``evaluate(ctx)`` runs to its end without waiting on anything (this
        class's own ``evaluate`` on a small input): no time limit could stop it, so the
        runner sets none (an ``asyncio.timeout`` costs more than such a metric).
        ``size``: ``turn_size(ctx)``, when the caller has it."""
        if type(self).evaluate is not Metric.evaluate:
            return False
        return self._inline(turn_size(ctx) if size is None else size)

    def run_sync(self, ctx: MetricContext) -> MetricResult:
        return self._scored(self.measure, ctx)

    def _scored(self, measure: Callable[[_In], Score], given: _In) -> MetricResult:
        """Time ``measure(given)`` and turn its Score, or its exception, into a MetricResult."""
        started = time.perf_counter()
        try:
            outcome = measure(given)
        except Exception as exc:  # a broken metric fails itself, not the run
            return self.failure(self.error_of(exc), started)
        return self.result(outcome, started)

    def result(self, outcome: Score, started: float, **extra: Any) -> MetricResult:
        score, passed = outcome.score, outcome.passed
        reasoning, details = outcome.reasoning, outcome.details
        if outcome.error is not None:  # (rare: made by the validating constructor below)
            extra = {**extra, "error": outcome.error}
        if details is not None and _foreign(type(self)):
            details = plain_details(details)
        threshold = self.threshold
        if passed is None:
            passed = score >= threshold if threshold is not None else score >= 1
        label, kind, dimension = self.label, self.kind, self.dimension
        if (
            not extra
            and type(score) is float
            and type(passed) is bool
            and type(label) is str
            and (threshold is None or type(threshold) is float)
            and (reasoning is None or type(reasoning) is str)
            and (dimension is None or type(dimension) is str)
            and type(kind) is str
            and kind in METRIC_KINDS
            and (details is None or _plain_keys(details))
        ):
            # every value already of its field's exact type (a deterministic metric's usual
            # Score): made without validating, as validation would make it
            values = {
                "metric_name": label,
                "kind": kind,
                "score": score,
                "threshold": threshold,
                "passed": passed,
                "scale": "0-1",
                "error": None,
                "retry_count": 0,
                "evaluation_time_ms": elapsed_ms(started),
                "model_used": None,
                "reasoning": reasoning,
                "dimension": dimension,
                "details": None if details is None else dict(details),  # validation copies
            }
            return prevalidated(MetricResult, values, set(_RESULT_GIVEN))
        return MetricResult(
            metric_name=label,
            kind=kind,
            dimension=dimension,
            score=score,
            threshold=threshold,
            passed=passed,
            reasoning=reasoning,
            details=details,
            evaluation_time_ms=elapsed_ms(started),
            **extra,
        )

    def error_of(self, exc: BaseException) -> str:
        """What this metric raised, as its ``error``: the message alone, as HoloDeck's
        executor records an evaluator's (``str(e)``: ``Evaluator failed``); an exception
        without a message by its type's name (``RuntimeError``), never blank; one that is not
        an error in assay's words (``SystemExit(0)``, ``os._exit(0) (...)``)."""
        return described(exc)[1]

    def failure(self, error: str, started: float, **extra: Any) -> MetricResult:
        return MetricResult(
            metric_name=self.label,
            kind=self.kind,
            dimension=self.dimension,
            score=None,
            threshold=self.threshold,
            passed=False,
            error=error,
            evaluation_time_ms=elapsed_ms(started),
            **extra,
        )


def _options_class(arg: Any) -> type[MetricOptions]:
    """The options model a ``Metric[...]`` parameter names: a class, or a type variable's
    default (else its bound) for a generic base such as ``JudgeMetric``."""
    if isinstance(arg, typing.TypeVar):
        default = getattr(arg, "__default__", None)
        arg = default if isinstance(default, type) else arg.__bound__
    if not (isinstance(arg, type) and issubclass(arg, MetricOptions)):
        raise TypeError(f"a metric's type parameter is a MetricOptions subclass, got {arg!r}")
    return arg


_RESULT_GIVEN = frozenset(
    (
        "metric_name",
        "kind",
        "dimension",
        "score",
        "threshold",
        "passed",
        "reasoning",
        "details",
        "evaluation_time_ms",
    )
)


@functools.cache
def _foreign(cls: type) -> bool:
    """Whether a metric class's details come from code outside assay (a plugin's metric, a
    user's function): they may share references, grow without end or hold any object."""
    return not cls.__module__.startswith("assay.") or bool(getattr(cls, "runs_user_code", False))


def plain_details(details: Any) -> Any:
    """Foreign details as a plain copy within ``plain_json``'s limits (values, depth, no
    cycle): a structure sharing its parts, 40 levels of ``v = [v, v]``, would otherwise be
    walked and written out path by path, 2**40 values, and stop the run; past the limits the
    metric fails, with the reason."""
    return plain_json(details, "details", what="the metric's details")


def _plain_keys(details: Any) -> bool:
    """``details`` is exactly a dict whose keys are exactly strs."""
    if type(details) is not dict:
        return False
    for key in details:  # noqa: SIM110 (a loop: no generator made per result)
        if type(key) is not str:
            return False
    return True


def turn_size(ctx: MetricContext) -> int:
    """How much a turn metric reads: its response and tool results, in characters."""
    calls = ctx.tool_invocations
    return len(ctx.response or "") + (_tools_size(calls) if calls else 0)


def _tools_size(calls: Sequence[ToolInvocation]) -> int:
    size = 0
    for c in calls:  # a loop: no generator made per turn
        size += len(c.name) + (c.bytes or 0)
    return size


async def _inline_or_threaded(
    inline: bool, fn: Callable[..., MetricResult], *args: Any
) -> MetricResult:
    """A deterministic metric's work: inline on a small input (microseconds, the usual case),
    on a thread of its own on a large one (or for a metric of the user's), so that other
    conversations go on meanwhile and the runner's time limit
    (``execution.metric_timeout_s``) can give up on it."""
    if inline:
        return fn(*args)
    result: MetricResult = await in_daemon_thread(fn, *args)
    return result


NO_JUDGE = "no judge model configured (set judge: in the suite, or pass --judge)"
