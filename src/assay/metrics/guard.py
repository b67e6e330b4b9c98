"""The runner's backstop around every metric: whatever a metric does costs only its result.

A metric that raises anything (a judge's malformed reply that got past the model's checks,
a grader's ``sys.exit``, a bug) or runs past its time limit becomes that metric's ``error``
(``passed`` false, ``score`` null) and the run goes on. Only the runner's own cancellation
(Ctrl-C) passes through.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from assay._isolation import describe, reraise_if_cancelling
from assay.metrics.base import ConversationContext, Metric, MetricContext
from assay.results.models import MetricResult


async def score_turn_metric(
    metric: Metric, ctx: MetricContext, limit_s: float
) -> MetricResult | str:
    """``metric`` on one turn: its result, or why it was not run."""
    return await _guarded(
        metric,
        None if metric.scores_inline(ctx) else limit_s,
        lambda: metric.missing_input(ctx),
        lambda: metric.evaluate(ctx),
    )


def score_inline(metric: Metric, ctx: MetricContext) -> MetricResult | str:
    """``score_turn_metric`` for a metric that scores inline (``Metric.scores_inline``):
    what ``evaluate`` would do, called without a coroutine; the same guard."""
    started = time.perf_counter()
    try:
        reason = metric.missing_input(ctx)
        if reason:
            return reason
        result = metric.run_sync(ctx)  # what Metric.evaluate runs on a small input
        if not isinstance(result, MetricResult):
            raise TypeError(f"evaluate() returned {type(result).__name__}, not a MetricResult")
        return result
    except BaseException as exc:  # anything at all: this metric's error
        reraise_if_cancelling(exc)  # Ctrl-C: the run's, not this metric's
        return metric.failure(describe(exc), started)


async def score_test_metric(
    metric: Metric, conv: ConversationContext, limit_s: float
) -> MetricResult | str:
    """A test-scoped ``metric`` over the whole conversation: its result, or why not run."""
    return await _guarded(
        metric,
        limit_s,
        lambda: metric.missing_conversation_input(conv),
        lambda: metric.evaluate_conversation(conv),
    )


async def _guarded(
    metric: Metric,
    limit_s: float | None,
    missing: Callable[[], str | None],
    evaluate: Callable[[], Awaitable[MetricResult]],
) -> MetricResult | str:
    """``limit_s`` None: the metric never waits (``Metric.scores_inline``), so no limit."""
    started = time.perf_counter()
    limit = None if limit_s is None else asyncio.timeout(limit_s)
    try:
        reason = missing()
        if reason:
            return reason
        if limit is None:
            result = await evaluate()
        else:
            async with limit:
                result = await evaluate()
        if not isinstance(result, MetricResult):
            raise TypeError(f"evaluate() returned {type(result).__name__}, not a MetricResult")
        return result
    except BaseException as exc:  # anything at all: this metric's error
        reraise_if_cancelling(exc)  # Ctrl-C: the run's, not this metric's
        if limit is not None and limit.expired():
            error = f"took longer than {limit_s:g} s (the limit is execution.metric_timeout_s)"
        else:
            error = describe(exc)
        return metric.failure(error, started)
