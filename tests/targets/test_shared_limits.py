"""Every caller of an endpoint shares one limiter with the strictest limit anyone set: a
target and a judge on the same server, counted at the server.

The server holds each request until ``hold_until`` are in flight at once, then a little
longer (``tests.fakes.gate``): the peak it sees reaches the limit whatever the machine's load,
which proves requests overlap, and a client breaking the limit shows it while the round
lingers (the old per-caller limiters made 5 or 6 here every time)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from assay.config import ModelConfig
from assay.models import make_model
from assay.net import RetryPolicy, reset_limiters
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import TurnRequest
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import ScriptedLLM, scripted_llm

NO_RETRY = RetryPolicy(retries=0)
HI = [{"role": "user", "content": "hi"}]


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    reset_limiters()
    with scripted_llm() as server:
        yield server
    reset_limiters()


def target(llm: ScriptedLLM, max_in_flight: int | None) -> OpenAITarget:
    config = {"base_url": llm.base_url, "model": "agent", "max_in_flight": max_in_flight}
    return OpenAITarget(OpenAIConfig.model_validate(config), NO_RETRY)


def judge(llm: ScriptedLLM, max_in_flight: int | None) -> object:
    config = ModelConfig(
        provider="openai", model="judge", base_url=llm.base_url, max_in_flight=max_in_flight
    )
    return make_model(config, retry=NO_RETRY)


async def drive(llm: ScriptedLLM, agent: OpenAITarget, model: object, each: int) -> None:
    """``each`` turns and ``each`` judge calls, all at once."""
    from assay.models import ChatModel

    assert isinstance(model, ChatModel)
    turns = [
        agent.session(f"s{i}").send(TurnRequest(f"q{i}", f"s{i}", "1", 0)) for i in range(each)
    ]
    calls = [model.complete(HI, temperature=i / 10) for i in range(each)]
    replies = await asyncio.gather(*turns, *calls)
    await agent.aclose()
    await model.aclose()  # type: ignore[attr-defined]
    assert len(replies) == 2 * each


@pytest.mark.parametrize(
    ("target_limit", "judge_limit", "expected"),
    [
        (2, None, 2),  # before: the judge had no limiter
        (3, 2, 2),  # before: each kept its own
        (None, 2, 2),  # the judge's limit binds the target too
        (2, 3, 2),
    ],
)
async def test_a_target_and_a_judge_on_one_server_share_the_strictest_limit(
    llm: ScriptedLLM, target_limit: int | None, judge_limit: int | None, expected: int
) -> None:
    llm.gate.hold_until, llm.gate.linger_s = expected, 0.2
    await drive(llm, target(llm, target_limit), judge(llm, judge_limit), each=4)
    assert llm.calls() == 8
    assert llm.gate.peak == expected


async def test_without_limits_the_server_sees_everything_at_once(llm: ScriptedLLM) -> None:
    # the control: the server really can see 12 at once, so the peaks above are the limit's
    llm.gate.hold_until = 8
    await drive(llm, target(llm, None), judge(llm, None), each=4)
    assert llm.gate.peak == 8
