"""A judge's key stays with the judge's origin: a redirect to another host (here the judge
server reached as localhost, from 127.0.0.1) gets the request without it. aiohttp dropped
``Authorization`` there, but sent Anthropic's ``x-api-key`` on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.config import ModelConfig
from assay.models import make_model
from tests.fakes.llm_server import ScriptedLLM
from tests.fakes.redirector import Redirector, redirector, via_localhost
from tests.judge.conftest import FAST, JUDGE_SECRET, metric, turn, verdict


@pytest.fixture
def to_llm(llm: ScriptedLLM) -> Iterator[Redirector]:
    with redirector(via_localhost(llm.url)) as there:
        yield there


@pytest.mark.parametrize(
    ("provider", "header"), [("openai", "Authorization"), ("anthropic", "x-api-key")]
)
async def test_the_judge_key_is_not_sent_to_another_origin(
    llm: ScriptedLLM, to_llm: Redirector, provider: str, header: str
) -> None:
    llm.queue(verdict(score=4))
    base_url = f"{to_llm.url}/v1" if provider == "openai" else to_llm.url
    config = ModelConfig(
        provider=provider, model="j", base_url=base_url, api_key_env="JUDGE_KEY", timeout_s=5.0
    )
    async with make_model(config, None, retry=FAST) as judge:
        result = await metric("correctness").evaluate(turn(judge, ground_truth="Paris"))
    assert result.error is None and result.score == 0.75  # answered at the redirect's end
    assert JUDGE_SECRET in to_llm.headers_seen[0][header]  # sent where configured
    (request,) = llm.requests
    assert [v for v in request.headers.values() if JUDGE_SECRET in v] == []
