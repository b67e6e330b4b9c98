"""A verdict that needed re-asks is cached under the first request, so the next unchanged
run asks the judge nothing (before: the re-ask's prompt was the key, and the second run paid
for every call again)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assay.metrics.judge._verdict import REASK_PROMPT
from assay.models import ResponseCache
from tests.fakes.llm_server import ScriptedLLM
from tests.judge.conftest import judge_for, metric, turn, verdict

REASK_START = REASK_PROMPT.split("{")[0]  # "Your reply could not be used: "


def reasks_in(body: dict[str, Any]) -> int:
    return sum(
        1
        for m in body["messages"]
        if m["role"] == "user" and str(m["content"]).startswith(REASK_START)
    )


def stubborn(invalid_replies: int) -> Any:
    """A judge that needs ``invalid_replies`` re-asks before it answers with valid JSON."""

    def respond(api: str, body: dict[str, Any]) -> str:
        if reasks_in(body) < invalid_replies:
            return "I think it is quite good, maybe a 4."
        return verdict(reasoning="same answer", score=4)

    return respond


async def one_run(llm: ScriptedLLM, cache_file: Path, **options: Any) -> Any:
    """A run of one correctness check, with its own model and cache object (as a new
    process would have), on the same cache file."""
    async with judge_for(llm, cache=ResponseCache(cache_file)) as judge:
        return await metric("correctness", **options).evaluate(turn(judge, ground_truth="Paris"))


@pytest.mark.parametrize("invalid_replies", [1, 2])
async def test_the_second_unchanged_run_makes_no_call(
    llm: ScriptedLLM, tmp_path: Path, invalid_replies: int
) -> None:
    llm.responder = stubborn(invalid_replies)
    cache_file = tmp_path / "cache.db"

    first = await one_run(llm, cache_file)
    assert first.error is None and first.score == 0.75
    assert first.retry_count == invalid_replies
    assert llm.calls() == invalid_replies + 1

    second = await one_run(llm, cache_file)
    assert llm.calls() == invalid_replies + 1  # nothing asked
    assert second.score == 0.75 and second.reasoning == first.reasoning
    assert second.retry_count == 0
    assert all(call["cached"] for call in (second.details or {})["calls"])


async def test_each_sample_is_cached_under_its_own_first_request(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.responder = stubborn(1)
    cache_file = tmp_path / "cache.db"
    first = await one_run(llm, cache_file, samples=3)
    assert first.error is None and llm.calls() == 6  # 3 samples, one re-ask each
    second = await one_run(llm, cache_file, samples=3)
    assert second.score == first.score and llm.calls() == 6


async def test_a_verdict_that_never_came_is_not_cached(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = stubborn(99)
    cache_file = tmp_path / "cache.db"
    failed = await one_run(llm, cache_file)
    assert failed.error is not None and "no valid verdict after 2 re-asks" in failed.error
    assert llm.calls() == 3
    again = await one_run(llm, cache_file)
    assert again.error == failed.error and llm.calls() == 6  # asked again, not served a guess
