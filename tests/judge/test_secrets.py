"""A judge's API key reaches the judge's server and nothing else: no metric result, no
error text, no log record."""

from __future__ import annotations

import json
import logging

import pytest

from tests.fakes.llm_server import Fault, ScriptedLLM
from tests.judge.conftest import JUDGE_SECRET, judge_for, metric, turn, verdict


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_the_judge_key_appears_in_no_result_and_no_log(
    llm: ScriptedLLM, provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {JUDGE_SECRET}"}})
    llm.queue(
        Fault(status=401, raw=echo),  # a wrong key, echoed back by the server
        Fault(status=429, raw=echo),
        Fault(status=503, raw=echo),  # retried once (FAST), then reported
        Fault(delay_s=30),  # a timeout, retried
        f"not JSON, and it quotes {JUDGE_SECRET}",  # an invalid reply, re-asked
        verdict(reasoning=f"the key is {JUDGE_SECRET}", score=4),
    )
    correctness = metric("correctness")
    results = []
    async with judge_for(llm, provider, timeout_s=1.0) as judge:  # the rest answer within it
        assert JUDGE_SECRET not in repr(judge)
        for _ in range(3):
            results.append(await correctness.evaluate(turn(judge, ground_truth="Paris")))
    errors = [r.error for r in results]
    assert errors[0] is not None and "HTTP 401" in errors[0] and "***" in errors[0]
    assert errors[1] is not None and "HTTP 503" in errors[1]
    assert errors[2] is None and results[2].retry_count == 1 and results[2].score == 0.75
    for result in results:
        assert JUDGE_SECRET not in result.model_dump_json()
    assert results[2].reasoning == "the key is ***"
    assert any("timeout" in r.getMessage() for r in caplog.records)
    for record in caplog.records:
        assert JUDGE_SECRET not in record.getMessage()
    header = "x-api-key" if provider == "anthropic" else "Authorization"
    assert all(JUDGE_SECRET in r.headers[header] for r in llm.requests)  # sent where due


async def test_a_secret_quoted_in_per_turn_reasons_is_masked(llm: ScriptedLLM) -> None:
    from assay.metrics.base import ConversationContext, Exchange

    turns = [{"turn": 1, "relevant": True, "reason": f"repeats {JUDGE_SECRET}"}]
    llm.queue(verdict(turns=turns))
    conv = ConversationContext("t", (Exchange("hi", "hello"),), multi_turn=True)
    async with judge_for(llm) as judge:
        conv = ConversationContext("t", conv.turns, judge=judge, multi_turn=True)
        result = await metric("turn_relevancy").evaluate_conversation(conv)
    assert result.score == 1.0
    assert JUDGE_SECRET not in result.model_dump_json()
    assert (result.details or {})["turns"][0]["reason"] == "repeats ***"
