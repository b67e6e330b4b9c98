"""A value rendered into the http target's ``url`` is percent-encoded, so the agent gets the
test's input as written, in a path segment or a query value. It used to go in raw: an input
of ``a b/../../admin?x=1&y=2#frag`` requested ``/admin?x=1&y=2``."""

from __future__ import annotations

import pytest

from assay.net import RetryPolicy
from assay.target_config import HttpTarget as HttpConfig
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from tests.targets.agent_server import AgentServer

INPUTS = ["a b/../../admin?x=1&y=2#frag", "café %41 +", "100% & more=yes;/?", "plain"]


async def one_turn(url: str, text: str, **vars: str) -> None:
    config = HttpConfig(url=url, method="GET", vars=vars)
    target = HttpTarget(config, RetryPolicy(retries=0), variables=vars)
    await target.start()
    try:
        turn = TurnRequest(input=text, session_id="s/1 ?", turn_id="1", turn_index=0)
        await target.session("s/1 ?").send(turn)
    finally:
        await target.aclose()


@pytest.mark.parametrize("text", INPUTS)
async def test_the_agent_gets_the_input_as_written(server: AgentServer, text: str) -> None:
    await one_turn(server.url + "/echo/{{ input }}?q={{ input }}&sid={{ session_id }}", text)
    (seen,) = server.requests
    assert seen.path == "/echo/" + text
    assert seen.query["q"] == text and seen.query["sid"] == "s/1 ?"
    assert set(seen.query) == {"q", "sid", "query", "session_id", "turn_id"}  # and the body's


async def test_safe_inserts_a_value_as_written(server: AgentServer) -> None:
    await one_turn(server.url + "/{{ vars.path | safe }}?v={{ vars.path }}", "hi", path="echo/x")
    (seen,) = server.requests
    assert seen.path == "/echo/x" and seen.query["v"] == "echo/x"


async def test_urlencode_is_not_encoded_twice(server: AgentServer) -> None:
    # before values were encoded by default, ``| urlencode`` was how a suite encoded one
    await one_turn(server.url + "/echo/x?q={{ input | urlencode }}", "a b&c")
    (seen,) = server.requests
    assert seen.query["q"] == "a b&c"
