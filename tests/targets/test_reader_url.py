"""The http target's reader names the URL each request went to: a constant URL's reader is
made once per target, a templated URL's per request (each with its own rendered URL)."""

from __future__ import annotations

import pytest

from assay.errors import TargetError
from assay.net import RetryPolicy
from assay.target_config import HttpTarget as HttpConfig
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from tests.targets.agent_server import AgentServer, Step


def turn(session_id: str) -> TurnRequest:
    return TurnRequest(input="hi", session_id=session_id, turn_id="1", turn_index=0)


async def error_of(target: HttpTarget, session_id: str) -> str:
    with pytest.raises(TargetError) as info:
        await target.session(session_id).send(turn(session_id))
    return str(info.value)


@pytest.mark.parametrize("constant", [True, False])
async def test_each_reply_is_read_for_its_own_url(server: AgentServer, constant: bool) -> None:
    url = server.chat_url if constant else server.chat_url + "?sid={{ session_id }}"
    target = HttpTarget(HttpConfig.model_validate({"url": url}), RetryPolicy(retries=0))
    try:
        for session_id in ("a-1", "b-2"):
            server.queue(Step(raw="not json"))
            shown = server.chat_url if constant else f"{server.chat_url}?sid={session_id}"
            assert await error_of(target, session_id) == (
                f"the reply from {shown} is not valid JSON (Expecting value: line 1 column 1 "
                "(char 0)): not json"
            )
            server.queue(Step(json={"answer": 1}))
            assert await error_of(target, session_id) == (
                f"the reply from {shown} has nothing at $.response (its keys: answer); "
                "set target.http.response.text to the JSONPath of the answer"
            )
        server.queue(Step(json={"response": "ok"}))
        assert (await target.session("c-3").send(turn("c-3"))).text == "ok"
    finally:
        await target.aclose()
