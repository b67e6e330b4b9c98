"""A turn is sent again only when no reply had begun: a connection closed before the status
line is retried, one that breaks in the body of a reply is not (the agent has the turn, and
may have acted on it). The retry used to send the same POST 4 times for ``retries: 3``."""

from __future__ import annotations

import pytest

from assay.errors import TargetError
from assay.net import RetryPolicy
from assay.target_config import HttpTarget as HttpConfig
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from tests.fakes.raw_http import raw_server

RETRY_3 = RetryPolicy(retries=3, base_delay_s=0.0)
HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
CUT = HEAD + b'{"response": "Pa'  # 16 bytes of the 100 promised, then the connection closes


async def failed_turn(url: str) -> str:
    target = HttpTarget(HttpConfig(url=f"{url}/chat"), RETRY_3)
    await target.start()
    try:
        with pytest.raises(TargetError) as failed:
            await target.session("s").send(
                TurnRequest(input="book it", session_id="s", turn_id="1", turn_index=0)
            )
    finally:
        await target.aclose()
    return str(failed.value)


async def test_a_reply_cut_short_fails_the_turn_without_sending_it_again() -> None:
    with raw_server(CUT) as agent:
        error = await failed_turn(agent.url)
    assert agent.requests == 1
    assert "after it began to reply (HTTP 200)" in error and "not sent again" in error
    assert "tries" not in error


async def test_a_connection_closed_before_any_reply_is_retried() -> None:
    with raw_server(b"") as agent:
        error = await failed_turn(agent.url)
    assert agent.requests == 4
    assert error.startswith(f"lost the connection to {agent.url}/chat") and "4 tries" in error
