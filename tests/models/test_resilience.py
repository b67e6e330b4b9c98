"""Retries, Retry-After, timeouts, failures that are not retried, and keys kept secret."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from assay.errors import JudgeError
from assay.net.retry import RetryPolicy
from tests.fakes.llm_server import Fault, ScriptedLLM
from tests.models.conftest import ANTHROPIC_SECRET, OPENAI_SECRET, anthropic_model, openai_model

HI = [{"role": "user", "content": "hi"}]


class Waits:
    """A clock that records the waits between retries and returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    def now(self) -> float:
        return 0.0

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_429_with_retry_after_is_waited_out(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=429, retry_after=0.3), "after the wait")
    clock = Waits()
    async with openai_model(llm) as model:  # base delay 0: any wait is the server's
        model.clock = clock
        reply = await model.complete(HI)
    assert reply.text == "after the wait"
    assert llm.calls() == 2
    assert clock.waits == [0.3]


async def test_the_waits_back_off_within_their_ceilings(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=503), Fault(status=429), Fault(status=500), "fourth")
    clock = Waits()
    async with openai_model(llm, retry=RetryPolicy(3, base_delay_s=1.0)) as model:
        model.clock = clock
        assert (await model.complete(HI)).text == "fourth"
    assert llm.calls() == 4
    assert len(clock.waits) == 3
    assert all(0 < wait <= top for wait, top in zip(clock.waits, [1, 2, 4], strict=True))


async def test_rate_limits_are_retried_then_reported(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=429), Fault(status=429), Fault(status=429))
    clock = Waits()
    async with openai_model(llm) as model:
        model.clock = clock
        with pytest.raises(JudgeError, match=r"HTTP 429 .*gave up after 3 tries\)$"):
            await model.complete(HI)
    assert llm.calls() == 3
    assert len(clock.waits) == 2  # none after the last try


@pytest.mark.parametrize(
    ("last", "error"),
    [
        (Fault(status=400), r"HTTP 400 .*scripted 400.* \(gave up after 2 tries\)$"),
        (Fault(raw="<html>gateway</html>"), r"is not valid JSON .* \(gave up after 2 tries\)$"),
        (Fault(raw="[1]"), r"is an array, not a JSON object \(gave up after 2 tries\)$"),
    ],
)
async def test_a_retry_that_fails_for_good_stops_there(
    llm: ScriptedLLM, last: Fault, error: str
) -> None:
    llm.queue(Fault(status=503), last, "never asked for")
    async with openai_model(llm) as model:
        with pytest.raises(JudgeError, match=error):
            await model.complete(HI)
    assert llm.calls() == 2


async def test_the_timeout_retry_at_temperature_0_counts_timeouts_only(llm: ScriptedLLM) -> None:
    # a 503 between them spends a try but not the one timeout retry
    llm.queue(Fault(delay_s=2), Fault(status=503), Fault(delay_s=2), "never asked for")
    async with openai_model(llm, timeout_s=0.2, retry=RetryPolicy(5, 0.0)) as model:
        with pytest.raises(JudgeError, match=r"within 0.2 s \(gave up after 3 tries\)$"):
            await model.complete(HI)
    assert llm.calls() == 3


async def test_server_errors_are_retried_then_reported(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=503), Fault(status=500), "third time lucky")
    async with anthropic_model(llm) as model:
        assert (await model.complete(HI)).text == "third time lucky"
    llm.queue(Fault(status=502), Fault(status=502), Fault(status=502))
    async with anthropic_model(llm) as model:
        with pytest.raises(JudgeError, match=r"HTTP 502 .*gave up after 3 tries"):
            await model.complete(HI)
    assert llm.calls() == 6


async def test_a_bad_request_is_not_retried(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=400))
    async with openai_model(llm) as model:
        with pytest.raises(JudgeError, match=r"openai:gpt-4o-mini: HTTP 400 .*scripted 400"):
            await model.complete(HI)
    assert llm.calls() == 1


async def test_a_timeout_is_retried_then_reported(llm: ScriptedLLM) -> None:
    llm.queue(Fault(delay_s=2), Fault(delay_s=2), Fault(delay_s=2))
    async with anthropic_model(llm, timeout_s=0.2, temperature=0.7) as model:
        with pytest.raises(JudgeError, match=r"no reply from .* within 0.2 s"):
            await model.complete(HI)
    assert llm.calls() == 3  # the first try and two retries


async def test_a_timeout_at_temperature_0_is_retried_once(llm: ScriptedLLM) -> None:
    # the identical request at temperature 0 runs away the same way: one retry, not three
    llm.queue(Fault(delay_s=2), Fault(delay_s=2), Fault(delay_s=2))
    async with openai_model(llm, timeout_s=0.2, retry=RetryPolicy(3, 0.0)) as model:
        with pytest.raises(JudgeError, match=r"no reply from .* within 0.2 s.*after 2 tries"):
            await model.complete(HI)
    assert llm.calls() == 2


async def test_a_timeout_then_a_reply(llm: ScriptedLLM) -> None:
    # the reply after the timeout must come within timeout_s: a second, not a window
    llm.queue(Fault(delay_s=30), "in time")
    async with openai_model(llm, timeout_s=1.0) as model:
        assert (await model.complete(HI)).text == "in time"


async def test_nothing_listening_is_a_judge_error() -> None:
    from assay.config import ModelConfig
    from assay.models import make_model

    config = ModelConfig(provider="openai", model="m", base_url="http://127.0.0.1:9/v1")
    async with make_model(config, retry=RetryPolicy(retries=1, base_delay_s=0)) as model:
        with pytest.raises(JudgeError, match="cannot reach http://127.0.0.1:9/v1"):
            await model.complete(HI)


async def test_a_connection_closed_unanswered_is_retried_then_reported() -> None:
    from assay.config import ModelConfig
    from assay.models import make_model

    connections = 0

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")  # the request's head, then no reply at all
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    config = ModelConfig(provider="openai", model="m", base_url=f"http://127.0.0.1:{port}/v1")
    clock = Waits()
    try:
        async with make_model(config, retry=RetryPolicy(retries=2, base_delay_s=1.0)) as model:
            model.clock = clock
            with pytest.raises(JudgeError, match=r"lost the connection .* after 3 tries\)$"):
                await model.complete(HI)
    finally:
        server.close()
        await server.wait_closed()
    assert connections == 3
    assert len(clock.waits) == 2


async def test_a_reply_that_is_not_json_is_a_judge_error(llm: ScriptedLLM) -> None:
    llm.queue(Fault(raw="<html>gateway</html>"))
    async with openai_model(llm) as model:
        with pytest.raises(JudgeError, match="is not valid JSON"):
            await model.complete(HI)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
async def test_api_keys_appear_in_no_error_and_no_log(
    llm: ScriptedLLM, provider: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = OPENAI_SECRET if provider == "openai" else ANTHROPIC_SECRET
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {secret}"}})
    llm.queue(Fault(status=401, raw=echo), Fault(status=429, raw=echo), Fault(delay_s=30))
    llm.queue(Fault(status=500, raw=echo), Fault(status=500, raw=echo), Fault(status=500, raw=echo))
    build = openai_model if provider == "openai" else anthropic_model
    messages: list[str] = []
    async with build(llm, timeout_s=1.0) as model:  # the other replies come within it
        assert secret not in repr(model)
        for _ in range(2):
            with pytest.raises(JudgeError) as caught:
                await model.complete(HI)
            messages.append(str(caught.value))
            messages.append(repr(caught.value))
    assert "check the API key" in messages[0] and "***" in messages[0]
    assert all(secret not in m for m in messages)
    assert caplog.records, "the retries were logged"
    for record in caplog.records:
        assert secret not in record.getMessage()
    assert secret in json.dumps(llm.requests[0].headers)  # it was sent, where due
