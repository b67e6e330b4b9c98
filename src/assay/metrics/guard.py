"""The runner's backstop around every metric: whatever a metric does costs only its result.

A metric that raises anything (a judge's malformed reply that got past the model's checks,
a grader's ``sys.exit``, a bug) or runs past its time limit becomes that metric's ``error``
(``passed`` false, ``score`` null) and the run goes on. Only the runner's own cancellation
(Ctrl-C) passes through.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from assay._isolation import reraise_if_cancelling, settled
from assay.metrics.base import ConversationContext, Metric, MetricContext
from assay.net.deadlines import turn_deadline
from assay.results.models import MetricResult


async def score_turn_metric(
    metric: Metric, ctx: MetricContext, limit_s: float
) -> MetricResult | str:
    """``metric`` on one turn, within ``limit_s``: its result, or why it was not run. (A
    metric that scores inline, which nothing could stop, goes by ``score_inline``.)"""
    return await _guarded(
        metric,
        limit_s,
        lambda: metric.missing_input(ctx),
        lambda: metric.evaluate(ctx),
    )


def score_inline(metric: Metric, ctx: MetricContext) -> MetricResult | str:
    """``score_turn_metric`` for a metric that scores inline (``Metric.scores_inline``):
    what ``evaluate`` would do, called without a coroutine; the same guard, but for
    ``KeyboardInterrupt``. Inline, the metric runs on the event loop's thread, where Python
    raises Ctrl-C (and SIGTERM, when the run was started with Ctrl-C ignored): there it is
    the run's, and stops it. A user's metric or grader never scores inline (it runs on a
    thread of its own), so one that raises ``KeyboardInterrupt`` itself still fails only
    itself, as an agent that does fails only its turn."""
    started = time.perf_counter()
    try:
        reason = metric.missing_input(ctx)
        if reason:
            return reason
        return _checked(metric.run_sync(ctx))  # what Metric.evaluate runs on a small input
    except KeyboardInterrupt:  # Ctrl-C on this thread: the run's, not this metric's
        raise
    except BaseException as exc:  # anything else at all: this metric's error
        reraise_if_cancelling(exc)  # Ctrl-C: the run's, not this metric's
        return metric.failure(metric.error_of(exc), started)


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
    limit_s: float,
    missing: Callable[[], str | None],
    evaluate: Callable[[], Awaitable[MetricResult]],
) -> MetricResult | str:
    started = time.perf_counter()
    limit = turn_deadline(limit_s)  # asyncio.timeout's, on the record as assay's
    try:
        reason = missing()
        if reason:
            return reason
        async with limit:
            result = await evaluate()
        return _checked(result)
    except BaseException as exc:  # anything at all: this metric's error
        exc = await settled(exc)  # Ctrl-C: the run's, not this metric's
        if limit.expired():
            error = f"took longer than {limit_s:g} s (the limit is execution.metric_timeout_s)"
        else:
            error = metric.error_of(exc)
        return metric.failure(error, started)


def _checked(result: object) -> MetricResult:
    """A metric's result, which must be a MetricResult (a plugin's bug says what it gave)."""
    if not isinstance(result, MetricResult):
        raise TypeError(f"evaluate() returned {type(result).__name__}, not a MetricResult")
    return result
