"""A judge's reply cut short (the connection lost after its status) is asked again: a model
call is idempotent, unlike an agent's turn (tests/targets/test_cut_replies.py)."""

from __future__ import annotations

from assay.config import ModelConfig
from assay.models import make_model
from tests.fakes.raw_http import raw_server
from tests.judge.conftest import FAST, metric, turn
from tests.targets.test_cut_replies import CUT


async def test_a_judge_reply_cut_short_is_retried() -> None:
    with raw_server(CUT) as judge_server:
        config = ModelConfig(
            provider="openai", model="j", base_url=f"{judge_server.url}/v1", timeout_s=5.0
        )
        async with make_model(config, None, retry=FAST) as judge:
            result = await metric("correctness").evaluate(turn(judge, ground_truth="Paris"))
    assert judge_server.requests == 2  # FAST: one retry
    assert result.error is not None and "after it began to reply (HTTP 200)" in result.error
