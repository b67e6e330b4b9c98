"""latency, token_budget, cost, turn_efficiency."""

from __future__ import annotations

import asyncio

import pytest

from assay.metrics import MetricConfigError, build_metric
from assay.pricing import PRICES, find_price
from assay.results.models import MetricResult, TokenUsage
from tests.metrics._helpers import context, conversation, score_conversation


def run(
    metric: str,
    *,
    latency_ms: float | None = None,
    usage: TokenUsage | None = None,
    **options: object,
) -> MetricResult:
    built = build_metric(metric, dict(options))
    ctx = context("ok", latency_ms=latency_ms, usage=usage)
    missing = built.missing_input(ctx)
    assert missing is None, missing
    return asyncio.run(built.evaluate(ctx))


def test_latency_within_and_over_budget() -> None:
    within = run("latency", latency_ms=1500, max_ms=2000)
    assert (within.score, within.passed, within.dimension) == (1.0, True, "performance")
    assert run("latency", latency_ms=2000, max_ms=2000).passed is True  # at the budget
    # 4000 ms against 2000: 2000 / 4000 = 0.5, failed
    over = run("latency", latency_ms=4000, max_ms=2000)
    assert (over.score, over.passed) == (0.5, False)
    assert over.reasoning == "4000 ms exceeds the budget of 2000 ms"
    assert over.details == {"latency_ms": 4000, "max_ms": 2000}


def test_latency_threshold_turns_the_score_into_the_pass_rule() -> None:
    # 2000 / 2500 = 0.8 >= 0.75
    assert run("latency", latency_ms=2500, max_ms=2000, threshold=0.75).passed is True


def test_latency_not_measured_is_not_run() -> None:
    metric = build_metric("latency", {"max_ms": 10})
    assert metric.missing_input(context("ok")) == "no latency measured for this turn"


def test_latency_options() -> None:
    for bad in ({}, {"max_ms": 0}, {"max_ms": -5}, {"max_ms": 100, "p95": True}):
        with pytest.raises(MetricConfigError):
            build_metric("latency", bad)


def test_token_budget() -> None:
    usage = TokenUsage(prompt_tokens=100, completion_tokens=50)  # no total reported
    # total = 100 + 50 = 150 against 100: 100 / 150 = 0.667
    total = run("token_budget", usage=usage, max_tokens=100)
    assert total.score == pytest.approx(2 / 3) and total.passed is False
    assert run("token_budget", usage=usage, max_tokens=100, count="completion").passed is True
    reported = TokenUsage(prompt_tokens=100, completion_tokens=50, total_tokens=80)
    assert run("token_budget", usage=reported, max_tokens=100).score == 1.0  # the total given
    metric = build_metric("token_budget", {"max_tokens": 10})
    assert metric.missing_input(context("ok")) == "the target reported no token usage"


def test_cost_from_the_table() -> None:
    usage = TokenUsage(prompt_tokens=1000, completion_tokens=500)
    # gpt-4o-mini: $0.15 / 1M in, $0.60 / 1M out
    # 1000 * 0.00015 / 1000 + 500 * 0.0006 / 1000 = 0.00015 + 0.0003 = 0.00045
    cheap = run("cost", usage=usage, model="gpt-4o-mini", max_usd=0.001)
    assert cheap.details is not None and cheap.details["usd"] == pytest.approx(0.00045)
    assert cheap.passed is True
    # over a 0.0003 budget: 0.0003 / 0.00045 = 0.667
    dear = run("cost", usage=usage, model="gpt-4o-mini", max_usd=0.0003)
    assert dear.score == pytest.approx(2 / 3) and dear.passed is False


def test_cost_with_user_prices_and_dated_model_names() -> None:
    usage = TokenUsage(prompt_tokens=2000, completion_tokens=1000)
    prices = {"my-model": {"input_per_1k": 0.01, "output_per_1k": 0.02}}
    # 2000 * 0.01 / 1000 + 1000 * 0.02 / 1000 = 0.02 + 0.02 = 0.04
    mine = run("cost", usage=usage, model="my-model", max_usd=1, prices=prices)
    assert mine.details is not None and mine.details["usd"] == pytest.approx(0.04)
    assert find_price("gpt-4o-mini-2024-07-18") == PRICES["gpt-4o-mini"]
    assert find_price("gpt-4o-2024-08-06") == PRICES["gpt-4o"]


def test_cost_unknown_model_and_bad_prices() -> None:
    with pytest.raises(MetricConfigError) as unknown:
        build_metric("cost", {"model": "mystery-1", "max_usd": 1})
    assert "no price for model 'mystery-1'" in unknown.value.problems[0][1]
    with pytest.raises(MetricConfigError) as bad:
        build_metric("cost", {"model": "x", "max_usd": 1, "prices": {"x": {"input_per_1k": -1}}})
    assert {p for p, _ in bad.value.problems} >= {"prices.x.input_per_1k"}


def test_turn_efficiency() -> None:
    four = conversation([], [], [], [])
    # 3 expected, 4 used: 3 / 4 = 0.75
    result = score_conversation("turn_efficiency", four, expected_turns=3)
    assert (result.score, result.passed, result.kind) == (0.75, False, "conversation")
    assert score_conversation("turn_efficiency", four, expected_turns=4).score == 1.0
    single = build_metric("turn_efficiency", {"expected_turns": 1})
    assert single.scope == "test"
    assert single.missing_conversation_input(conversation([])) == "needs a multi-turn conversation"


@pytest.mark.parametrize("model", ["gpt-5-mini", "o1", "claude-haiku-4-5", "gpt-4-turbo"])
def test_one_price_table_for_the_cost_metric_and_judge_calls(model: str) -> None:
    """gpt-5-mini was priced for judges only and o1 for the cost metric only: a model priced
    for one is priced, the same, for the other."""
    from assay.models import cost_usd

    usage = TokenUsage(prompt_tokens=1_000_000, completion_tokens=1_000_000)
    metric = run("cost", usage=usage, model=model, max_usd=1000)
    judged = cost_usd(model, usage)
    assert metric.details is not None and judged is not None
    assert metric.details["usd"] == pytest.approx(judged)
