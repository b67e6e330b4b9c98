"""``AgentConversation._ask`` makes its TurnRequest by position: each field gets the value
the keyword call gave it (every value distinct, so a swap of any two fails); and ``run_case``
awaits the session's ``close`` (``AgentConversation.close`` hands back its coroutine)."""

from __future__ import annotations

import asyncio
import dataclasses

from assay.cases import parse_suite
from assay.runner.conversation import AgentConversation, CaseSettings, run_case
from assay.targets.base import AgentSession, Message, Reply, Target, TurnRequest


class _Recording(AgentSession):
    def __init__(self) -> None:
        self.seen: list[TurnRequest] = []

    async def send(self, request: TurnRequest) -> Reply:
        self.seen.append(request)
        return Reply("ok")


class _Target(Target):
    def __init__(self) -> None:
        self.recording = _Recording()

    def session(self, session_id: str) -> AgentSession:
        return self.recording


async def test_each_field_gets_the_value_the_keyword_call_gave_it() -> None:
    spec = {"name": "t", "turns": [{"input": "first?"}, {"input": "second?"}]}
    case = parse_suite({"name": "s", "tests": [spec]}, "suite.yaml").cases[0]
    target = _Target()
    conversation = AgentConversation(case, target, CaseSettings(run_id="r"))
    for turn in case.turns:
        await conversation.send(turn)
    first, second = target.recording.seen
    for index, (seen, turn) in enumerate(zip((first, second), case.turns, strict=True)):
        expected = TurnRequest(
            input=turn.input,
            session_id=conversation.session_id,
            turn_id=turn.turn_id or str(index + 1),
            turn_index=index,
            history=tuple(conversation.messages[: 2 * index]),
            files=turn.attachments,
        )
        assert list(vars(seen).items()) == list(vars(expected).items())
        for field in dataclasses.fields(TurnRequest):
            if field.name not in ("history", "turn_id"):  # (made anew by each call)
                assert getattr(seen, field.name) is getattr(expected, field.name), field.name
    assert second.turn_id == "2" and second.turn_index == 1
    assert second.history == (Message("user", "first?"), Message("assistant", "ok"))
    assert first.session_id.startswith("assay-r-")


class _Closing(_Recording):
    def __init__(self) -> None:
        super().__init__()
        self.closed = 0

    async def close(self) -> None:
        await asyncio.sleep(0)
        self.closed += 1


async def test_run_case_awaits_the_sessions_close() -> None:
    spec = {"name": "t", "input": "q?"}
    case = parse_suite({"name": "s", "tests": [spec]}, "suite.yaml").cases[0]
    target = _Target()
    target.recording = _Closing()
    result = await run_case(case, target, CaseSettings(run_id="r"))
    assert result.agent_response == "ok"
    assert target.recording.closed == 1
