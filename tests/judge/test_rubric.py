"""The rubric metric and what every judge metric shares: strict JSON, re-asks, samples,
usage and cost, the cache, and not running without a judge."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from assay.metrics.base import NO_JUDGE
from assay.metrics.judge import SYSTEM_PROMPT
from assay.metrics.registry import MetricConfigError
from assay.models import ResponseCache
from tests.fakes.llm_server import Completion, Fault, ScriptedLLM, ToolCall
from tests.judge.conftest import judge_for, metric, prompt_of, turn, verdict

POLITE = {
    "criteria": "The response is polite.",
    "evaluation_steps": ["Look for rude words.", "Decide."],
    "fields": ["input", "response", "ground_truth", "context"],
    "scale": [1, 5],
    "threshold": 0.7,
}


async def test_rubric_maps_the_raw_score_and_keeps_it(llm: ScriptedLLM) -> None:
    llm.queue(Completion(verdict(reasoning="courteous throughout", score=4), [], 200, 40))
    rubric = metric("rubric", name="politeness", **POLITE)
    context = "France's capital is Paris."
    async with judge_for(llm) as judge:
        result = await rubric.evaluate(turn(judge, ground_truth="Paris", context=context))
    assert result.metric_name == "politeness" and result.kind == "judge"
    assert result.score == 0.75 and result.passed is True and result.threshold == 0.7
    assert result.reasoning == "courteous throughout"
    assert result.model_used == "openai:judge-model"
    assert result.retry_count == 0 and result.error is None
    assert result.evaluation_time_ms > 0
    details = result.details or {}
    assert details["raw_score"] == 4 and details["scale"] == [1, 5]
    assert details["usage"]["prompt_tokens"] == 200 and details["usage"]["total_tokens"] == 240
    assert details["cost_usd"] is None  # "judge-model" has no list price
    assert [c["cached"] for c in details["calls"]] == [False]
    body = llm.requests[0].body
    assert body["temperature"] == 0.0
    assert body["response_format"]["json_schema"]["strict"] is True
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["reasoning", "score"]
    # an integer enum: grammar-constrained servers enforce enums, not minimum/maximum
    assert schema["properties"]["score"] == {"type": "integer", "enum": [1, 2, 3, 4, 5]}
    assert details["structured_output"] == "json_schema"
    system = body["messages"][0]["content"]
    assert system.startswith(SYSTEM_PROMPT)
    prompt = prompt_of(llm)
    for text in (
        "The response is polite.",
        "1. Look for rude words.",
        "2. Decide.",
        "<question>\nWhat is the capital of France?\n</question>",
        "<response>\nParis.\n</response>",
        "<reference_answer>\nParis\n</reference_answer>",
        "<context>\nFrance's capital is Paris.\n</context>",
    ):
        assert text in prompt


async def test_other_scales_and_a_failing_score(llm: ScriptedLLM) -> None:
    llm.queue(verdict(score=3))
    rubric = metric("rubric", criteria="Concise.", scale=[0, 10])
    async with judge_for(llm) as judge:
        result = await rubric.evaluate(turn(judge))
    assert result.score == pytest.approx(0.3) and result.passed is False
    assert result.threshold == 0.5  # the default
    assert "from 0 (the criteria are not met at all) to 10" in prompt_of(llm)


async def test_an_invalid_reply_is_re_asked(llm: ScriptedLLM) -> None:
    llm.queue("I think it is a 4.", verdict(score=5))
    async with judge_for(llm) as judge:
        result = await metric("rubric", criteria="Good.").evaluate(turn(judge))
    assert result.retry_count == 1 and result.score == 1.0 and result.error is None
    second = llm.requests[1].body["messages"]
    assert second[-2] == {"role": "assistant", "content": "I think it is a 4."}
    assert second[-1]["role"] == "user"
    assert second[-1]["content"].startswith("Your reply could not be used: the reply is not JSON")
    assert len((result.details or {})["calls"]) == 2


async def test_an_out_of_range_score_is_re_asked(llm: ScriptedLLM) -> None:
    llm.queue(verdict(score=7), verdict(score=2))
    async with judge_for(llm) as judge:
        result = await metric("rubric", criteria="Good.").evaluate(turn(judge))
    assert result.retry_count == 1 and result.score == 0.25
    assert "7 is not one of [1, 2, 3, 4, 5]" in llm.requests[1].body["messages"][-1]["content"]


async def test_after_two_re_asks_the_metric_errs_and_guesses_nothing(llm: ScriptedLLM) -> None:
    llm.queue("nope", '{"score": "high"}', verdict(score=None))
    async with judge_for(llm) as judge:
        result = await metric("rubric", criteria="Good.").evaluate(turn(judge))
    assert result.score is None and result.passed is False
    assert result.retry_count == 2 and llm.calls() == 3
    assert result.error is not None
    assert result.error.startswith("the judge gave no valid verdict after 2 re-asks")
    assert len((result.details or {})["calls"]) == 3


async def test_a_judge_that_cannot_be_reached_is_an_error_on_the_metric(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=500), Fault(status=500))
    async with judge_for(llm) as judge:
        result = await metric("correctness").evaluate(turn(judge, ground_truth="Paris"))
    assert result.score is None and result.passed is False
    assert result.error is not None and "HTTP 500" in result.error


async def test_samples_record_the_median_and_the_spread(llm: ScriptedLLM) -> None:
    llm.queue(verdict(score=2), verdict(score=5), verdict(reasoning="middle", score=4))
    rubric = metric("rubric", criteria="Good.", samples=3)
    async with judge_for(llm) as judge:
        result = await rubric.evaluate(turn(judge))
    assert llm.calls() == 3
    assert all(r.body["temperature"] == 1.0 for r in llm.requests)  # sampling temperature
    scores = [0.25, 1.0, 0.75]
    assert result.score == 0.75 == statistics.median(scores)
    assert result.reasoning == "middle"  # the sample at the median speaks
    details = result.details or {}
    assert details["raw_score"] == 4
    assert sorted(s["raw"] for s in details["samples"]) == [2, 4, 5]
    assert details["spread"]["min"] == 0.25 and details["spread"]["max"] == 1.0
    assert details["spread"]["stdev"] == pytest.approx(statistics.stdev(scores))


async def test_samples_are_cached_separately(llm: ScriptedLLM, tmp_path: Path) -> None:
    replies = iter([2, 5, 4])
    llm.responder = lambda api, body: verdict(score=next(replies))
    rubric = metric("rubric", criteria="Good.", samples=3, temperature=0.7)
    cache = ResponseCache(tmp_path / "cache.db")
    async with judge_for(llm, cache=cache) as judge:
        first = await rubric.evaluate(turn(judge))
    assert llm.calls() == 3 and len(cache) == 3
    async with judge_for(llm, cache=cache) as judge:
        second = await rubric.evaluate(turn(judge))
    assert llm.calls() == 3  # the second run made no call at all
    assert second.score == first.score == 0.75
    details = second.details or {}
    assert all(c["cached"] for c in details["calls"])
    assert {r.body["temperature"] for r in llm.requests} == {0.7}


async def test_a_second_run_is_served_by_the_cache(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = lambda api, body: verdict(score=5)
    cache = ResponseCache(tmp_path / "cache.db")
    correctness = metric("correctness")
    results = []
    for _ in range(2):
        async with judge_for(llm, cache=cache) as judge:
            results.append(await correctness.evaluate(turn(judge, ground_truth="Paris")))
    assert llm.calls() == 1
    assert results[0].score == results[1].score == 1.0


async def test_an_anthropic_judge(llm: ScriptedLLM) -> None:
    llm.queue(Completion(None, [ToolCall("verdict", {"reasoning": "right", "score": 5})]))
    async with judge_for(llm, "anthropic") as judge:
        result = await metric("correctness").evaluate(turn(judge, ground_truth="Paris"))
    assert result.score == 1.0 and result.model_used == "anthropic:judge-model"
    body = llm.requests[0].body
    assert body["tool_choice"] == {"type": "tool", "name": "verdict"}
    assert "<reference_answer>\nParis\n</reference_answer>" in body["messages"][0]["content"]


def test_without_a_judge_judge_metrics_are_not_run() -> None:
    for name in ("rubric", "correctness", "relevance", "harmful_content"):
        options = {"criteria": "x"} if name == "rubric" else {}
        ctx = turn(None, ground_truth="Paris")
        assert metric(name, **options).missing_input(ctx) == NO_JUDGE


def test_missing_inputs_are_named() -> None:
    judge = object()
    assert metric("correctness").missing_input(turn(judge)) == (
        "no ground truth (Answer) for this turn"
    )
    assert metric("groundedness").missing_input(turn(judge)) == "no context for this turn"
    assert metric("relevance").missing_input(turn(judge, response=None)) == "no response"
    rubric = metric("rubric", criteria="x", fields=["response", "context"])
    assert rubric.missing_input(turn(judge)) == "no context for this turn"
    assert rubric.missing_input(turn(judge, context="c")) is None


def test_rubric_options_are_checked() -> None:
    with pytest.raises(MetricConfigError, match="low < high"):
        metric("rubric", criteria="x", scale=[5, 1])
    with pytest.raises(MetricConfigError, match="criteria"):
        metric("rubric")
    with pytest.raises(MetricConfigError, match="fields"):
        metric("rubric", criteria="x", fields=["answer"])
    with pytest.raises(MetricConfigError, match="samples"):
        metric("correctness", samples=0)
    rubric = metric("rubric", criteria="x", fields=["input", "input", "response"])
    assert json.dumps(rubric.options.model_dump()["fields"]) == '["input", "response"]'
