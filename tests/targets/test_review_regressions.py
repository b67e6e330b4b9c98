"""Regressions found in review: plain-text SSE tokens, tool-only replies in replayed
history, awaitables from callables inspect does not see as async, string token counts,
and bytes measured by assay rather than taken from the agent."""

from __future__ import annotations

import functools
from typing import Any

from assay.cases.models import TestCase, Turn
from assay.runner.conversation import CaseSettings, run_case
from assay.targets.base import TurnRequest, token_usage, tool_invocations
from assay.targets.python import PythonTarget
from tests.fakes.llm_server import Completion, ScriptedLLM, ToolCall
from tests.targets.agent_server import AgentServer, Step
from tests.targets.test_http_failures import http
from tests.targets.test_openai_target import llm, openai  # noqa: F401  (fixture)


async def test_plain_text_sse_tokens_keep_their_spacing(server: AgentServer) -> None:
    # each event is one plain-text token; " 5120" must not be read as the number 5120
    server.queue(Step(events=["The total is", " 5120", " and", " true", " null", ".", "[DONE]"]))
    target = http(server.chat_url, stream=True)
    reply = await target.session("s-1").send(
        TurnRequest(input="total?", session_id="s-1", turn_id="1", turn_index=0)
    )
    await target.aclose()
    assert reply.text == "The total is 5120 and true null."


async def test_a_tool_only_reply_is_still_an_assistant_turn_in_the_history(  # noqa: F811
    llm: ScriptedLLM,  # noqa: F811
) -> None:
    llm.queue(Completion(text=None, tool_calls=[ToolCall("lookup", {"q": "x"})]), "Done.")
    target = openai(llm.base_url)
    case = TestCase(name="t", type="multi_turn", turns=(Turn(input="first"), Turn(input="second")))
    await target.start()
    try:
        await run_case(case, target, CaseSettings(turn_timeout_s=2))
    finally:
        await target.aclose()
    assert llm.requests[1].body["messages"] == [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": "second"},
    ]


class AsyncCallable:
    async def __call__(self, query: str, session_id: str) -> str:
        return f"echo {query}"


def sync_looking(fn: Any) -> Any:
    @functools.wraps(fn)
    def wrapper(*args: Any) -> Any:
        return fn(*args)

    return wrapper


@sync_looking
async def wrapped(query: str, session_id: str) -> str:
    return f"wrapped {query}"


async def test_awaitables_from_callables_not_seen_as_async_are_awaited() -> None:
    for fn, expected in ((AsyncCallable(), "echo hi"), (wrapped, "wrapped hi")):
        target = PythonTarget.__new__(PythonTarget)
        target.fn, target.description = fn, "python:test"
        reply = await target.session("s").send(
            TurnRequest(input="hi", session_id="s", turn_id="1", turn_index=0)
        )
        assert reply.text == expected


def test_token_counts_given_as_strings_add_up() -> None:
    usage = token_usage({"input_tokens": "10", "output_tokens": "5"})
    assert usage is not None and usage.total_tokens == 15


def test_bytes_are_measured_by_assay_not_taken_from_the_agent() -> None:
    [call] = tool_invocations([{"name": "t", "result": "é", "bytes": 99}])
    assert call.bytes == len('"\\u00e9"')  # the JSON of the result, as HoloDeck writes it: 8
