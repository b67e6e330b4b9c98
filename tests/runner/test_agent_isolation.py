"""Agent code cannot end or fake the run (issue 10, points 1 and 2): whatever a Python agent
raises or returns costs at most its own turn, while the runner's own time limit and a real
Ctrl-C still work (``tests/cli/test_run_isolation.py`` runs them through ``assay run``)."""

from __future__ import annotations

import json

import pytest

from assay._isolation import MESSAGE_LIMIT, described
from assay.cases import parse_suite
from assay.results.models import TestResult
from assay.runner import CaseSettings, run_case
from assay.targets.python import PythonTarget

AGENTS = "tests.runner.hostile_agents"


async def run_turns(agent: str, inputs: list[str], timeout: float = 10.0) -> TestResult:
    test = {"name": "t", "turns": [{"input": i, "ground_truth": "ok"} for i in inputs]}
    case = parse_suite({"name": "s", "tests": [test]}, "suite.yaml").cases[0]
    target = PythonTarget(f"{AGENTS}:{agent}")
    return await run_case(case, target, CaseSettings(turn_timeout_s=timeout, run_id="r" * 32))


@pytest.mark.parametrize("agent", ["raising", "async_raising"])
@pytest.mark.parametrize(
    ("what", "shown"),
    [
        ("exit", "SystemExit(0)"),
        ("interrupt", "KeyboardInterrupt()"),
        ("generator-exit", "GeneratorExit()"),
        ("escape", "Escape('out')"),
        ("cancelled", "CancelledError()"),
        ("stop-iteration", "RuntimeError: coroutine raised StopIteration"),
    ],
)
async def test_a_base_exception_fails_only_its_turn(agent: str, what: str, shown: str) -> None:
    result = await run_turns(agent, [what, "fine"])
    assert result.turns is not None
    failed, answered = result.turns
    assert failed.errors == [shown]
    assert failed.passed is False and failed.skipped is False
    assert answered.passed is True and answered.response == "ok"  # the session went on


async def test_the_turn_time_limit_still_ends_an_agent_that_exits_when_cancelled() -> None:
    result = await run_turns("exits_when_cancelled", ["wait", "wait"], timeout=1.0)
    assert result.turns is not None
    assert [t.errors for t in result.turns] == [["timeout"]] * 2


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("cyclic-response", "response.self contains itself (a cycle)"),
        ("cyclic-result", "tool_invocations[0].result.self contains itself (a cycle)"),
        ("cyclic-args", "tool_invocations[0].args.self contains itself (a cycle)"),
        ("deep-result", "is nested deeper than 64 levels"),
        ("deep-response", "is nested deeper than 64 levels"),
        ("doubling", "has more than 1,000,000 values"),
        ("huge-int", "tool_invocations[0].result is an integer of more than 4,200 digits"),
    ],
)
async def test_a_reply_no_record_can_hold_fails_only_its_turn(query: str, error: str) -> None:
    result = await run_turns("returning", [query, "fine"])
    assert result.turns is not None
    failed, answered = result.turns
    assert len(failed.errors) == 1
    assert failed.errors[0].startswith("the reply cannot be recorded as JSON: ")
    assert error in failed.errors[0]
    assert len(failed.errors[0]) < 300  # a 64-level path is shortened
    assert answered.passed is True


async def test_the_agents_own_methods_are_not_called_after_it_returned() -> None:
    result = await run_turns("returning", ["shouting", "sneaky", "shared"])
    assert result.turns is not None
    shouting, sneaky, shared = result.turns
    assert shouting.errors == ["SystemExit(3)"]  # its __str__, in its turn
    assert sneaky.errors == [] and sneaky.response == "hi"  # read as a plain dict
    [call] = shared.tool_invocations
    assert call.result == {"a": [1, 2], "b": [1, 2]}  # a shared value is not a cycle
    assert call.bytes == len(json.dumps({"a": [1, 2], "b": [1, 2]}, ensure_ascii=False))


class Marked(str):
    pass


class MarkedMessage(Exception):
    def __str__(self) -> str:
        return Marked("odd")


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")


def test_described_is_the_description_and_the_message_alone() -> None:
    # a single-turn test's error words the message alone, a turn's the description
    assert described(ValueError("Invalid API key")) == (
        "ValueError: Invalid API key",
        "Invalid API key",
    )
    assert described(ValueError()) == ("ValueError", "ValueError")  # never blank
    assert described(SystemExit(0)) == ("SystemExit(0)", "SystemExit(0)")
    assert described(Unprintable()) == ("Unprintable", "Unprintable")  # its __str__ raised
    text, message = described(MarkedMessage())
    assert (text, message) == ("MarkedMessage: odd", "odd")
    assert type(message) is str  # not the agent's str subclass


def test_described_clips_both_as_describe_does() -> None:
    text, message = described(ValueError("x" * 5000))
    assert len(text) == len(message) == MESSAGE_LIMIT == 2000
    assert text == "ValueError: " + "x" * (2000 - 13) + "…"
    assert message == "x" * 1999 + "…"
