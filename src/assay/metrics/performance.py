"""Performance metrics: a turn's latency and token use, a conversation's turn count.

Each has a budget; the score is 1 within it and budget / used past it (so twice over the
budget scores 0.5), and the metric passes iff the budget held.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field

from assay.metrics.base import (
    ConversationContext,
    Metric,
    MetricContext,
    MetricOptions,
    OptionsT,
    Score,
)
from assay.metrics.registry import metric
from assay.results.models import TokenUsage


def budget_score(used: float, budget: float) -> float:
    return 1.0 if used <= budget else budget / used


class _Budget(Metric[OptionsT]):
    dimension: ClassVar[str] = "performance"
    requires = frozenset()

    def verdict(self, used: float, budget: float, unit: str, details: dict[str, Any]) -> Score:
        ok = used <= budget
        score = budget_score(used, budget)
        passed = ok if self.options.threshold is None else score >= self.options.threshold
        reason = None if ok else f"{used:g} {unit} exceeds the budget of {budget:g} {unit}"
        return Score(score, passed=passed, reasoning=reason, details=details)


class LatencyOptions(MetricOptions):
    max_ms: float = Field(gt=0)


@metric("latency")
class Latency(_Budget[LatencyOptions]):
    """The turn's wall-clock time (request sent to reply received) against ``max_ms``."""

    def missing_input(self, ctx: MetricContext) -> str | None:
        return None if ctx.latency_ms is not None else "no latency measured for this turn"

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.latency_ms is not None
        latency, budget = ctx.latency_ms, self.options.max_ms
        return self.verdict(latency, budget, "ms", {"latency_ms": latency, "max_ms": budget})


TokenCount = Literal["total", "completion", "prompt"]


def tokens_used(usage: TokenUsage, count: TokenCount) -> int:
    if count == "prompt":
        return usage.prompt_tokens
    if count == "completion":
        return usage.completion_tokens
    return usage.total_tokens or usage.prompt_tokens + usage.completion_tokens


class TokenBudgetOptions(MetricOptions):
    max_tokens: int = Field(ge=1)
    count: TokenCount = "total"


@metric("token_budget")
class TokenBudget(_Budget[TokenBudgetOptions]):
    """The turn's token use, as the target reported it, against ``max_tokens``: ``count``
    picks total (the default; prompt + completion when no total is given), completion or
    prompt tokens."""

    def missing_input(self, ctx: MetricContext) -> str | None:
        return None if ctx.token_usage is not None else "the target reported no token usage"

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.token_usage is not None
        opts = self.options
        used = tokens_used(ctx.token_usage, opts.count)
        details = {"tokens": used, "count": opts.count, "max_tokens": opts.max_tokens}
        return self.verdict(used, opts.max_tokens, f"{opts.count} tokens", details)


class TurnEfficiencyOptions(MetricOptions):
    expected_turns: int = Field(ge=1)


@metric("turn_efficiency")
class TurnEfficiency(_Budget[TurnEfficiencyOptions]):
    """A conversation's turns against ``expected_turns``: 1 when it took at most that many,
    else expected / used. Counts the turns the agent was sent (skipped turns are not)."""

    kind = "conversation"
    scope = "test"
    requires = frozenset({"multi_turn"})

    def measure_conversation(self, conv: ConversationContext) -> Score:
        used, expected = len(conv.turns), self.options.expected_turns
        return self.verdict(used, expected, "turns", {"turns": used, "expected": expected})
