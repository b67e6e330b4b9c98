"""Build a metric as a suite would and score one turn or one conversation with it."""

from __future__ import annotations

import asyncio
from typing import Any

from assay.metrics import MetricContext, build_metric
from assay.metrics.base import ConversationContext, Exchange
from assay.results.models import MetricResult, TokenUsage, ToolInvocation


def context(
    response: str | None = "",
    ground_truth: str | None = None,
    *,
    tools: list[ToolInvocation] | None = None,
    latency_ms: float | None = None,
    usage: TokenUsage | None = None,
) -> MetricContext:
    return MetricContext(
        input="question",
        response=response,
        ground_truth=ground_truth,
        tool_invocations=tuple(tools or ()),
        latency_ms=latency_ms,
        token_usage=usage,
    )


def score(
    metric: str,
    response: str | None = "",
    ground_truth: str | None = None,
    **options: Any,
) -> MetricResult:
    """Score one turn; fails the test if the metric would not run."""
    built = build_metric(metric, options)
    ctx = context(response, ground_truth)
    missing = built.missing_input(ctx)
    assert missing is None, missing
    return asyncio.run(built.evaluate(ctx))


def call(name: str, **args: Any) -> ToolInvocation:
    return ToolInvocation(name=name, args=args)


def conversation(*turn_calls: list[ToolInvocation], expected: Any = None) -> ConversationContext:
    turns = tuple(
        Exchange(input=f"turn {i}", response="ok", tool_invocations=tuple(calls))
        for i, calls in enumerate(turn_calls)
    )
    return ConversationContext(
        test_name="t", turns=turns, expected_trajectory=expected, multi_turn=len(turns) > 1
    )


def score_conversation(metric: str, conv: ConversationContext, **options: Any) -> MetricResult:
    built = build_metric(metric, options)
    missing = built.missing_conversation_input(conv)
    assert missing is None, missing
    return asyncio.run(built.evaluate_conversation(conv))
