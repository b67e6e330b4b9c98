"""The runner on Python targets: one session per test, turns in order, failures per turn,
unrecoverable sessions skip the rest with the reason."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from assay.cases import parse_suite
from assay.runner import CaseSettings, run_case
from assay.runner.conversation import now_iso
from assay.targets.python import PythonTarget
from tests.runner import agents


def case_and_target(test: dict[str, Any], agent: str) -> tuple[Any, PythonTarget]:
    loaded = parse_suite({"name": "s", "tests": [test]}, "suite.yaml")
    return loaded.cases[0], PythonTarget(f"tests.runner.agents:{agent}")


async def run(test: dict[str, Any], agent: str, timeout: float = 5.0) -> Any:
    case, target = case_and_target(test, agent)
    return await run_case(case, target, CaseSettings(turn_timeout_s=timeout, run_id="r" * 32))


async def test_turns_share_one_session_in_order() -> None:
    result = await run(
        {
            "name": "memory",
            "turns": [
                {"input": "apples"},
                {"input": "pears"},
                {"input": "what did I say first?", "ground_truth": "apples"},
            ],
        },
        "remembering",
    )
    assert result.passed, result.errors
    assert result.turns is not None and len(result.turns) == 3
    assert [t.response for t in result.turns] == ["noted apples", "noted pears", "apples"]
    assert len(set(agents.sessions_seen[-3:])) == 1  # one agent session for the test
    first = result.turns[0]
    assert first.tool_invocations[0].bytes == len('{"n": 1}')  # JSON of the result
    assert first.token_usage is not None and first.token_usage.total_tokens == 5
    assert result.token_usage is not None and result.token_usage.total_tokens == 10


async def test_each_test_and_each_run_gets_a_fresh_session() -> None:
    test = {"name": "t", "input": "what did I say first?", "ground_truth": "what did I say first?"}
    first = await run(test, "remembering")
    second = await run(test, "remembering")
    assert first.passed and second.passed  # no memory leaked between them
    assert agents.sessions_seen[-1] != agents.sessions_seen[-2]


async def test_async_agents_and_string_replies() -> None:
    result = await run(
        {"name": "a", "input": "hi", "ground_truth": "HI", "metrics": ["equality"]}, "async_echo"
    )
    assert result.agent_response == "HI" and result.passed
    assert result.turns is None  # single-turn results carry no turns list


async def test_a_failed_turn_does_not_stop_the_session() -> None:
    result = await run(
        {
            "name": "f",
            "turns": [{"input": "hello"}, {"input": "fail once"}, {"input": "hello again"}],
        },
        "flaky",
    )
    assert result.turns is not None
    assert [t.passed for t in result.turns] == [True, False, True]
    assert [t.skipped for t in result.turns] == [False, False, False]
    assert result.turns[1].errors == ["RuntimeError: cannot handle 'fail once'"]
    assert result.turns[1].response is None
    assert result.errors == ["[turn 1] RuntimeError: cannot handle 'fail once'"]
    assert result.status == "error" and not result.passed


async def test_two_failed_turns_in_a_row_skip_the_rest() -> None:
    result = await run(
        {
            "name": "f",
            "turns": [
                {"input": "fail 1"},
                {"input": "fail 2"},
                {"input": "hello"},
                {"input": "bye"},
            ],
        },
        "flaky",
    )
    assert result.turns is not None
    assert [t.skipped for t in result.turns] == [False, False, True, True]
    assert result.turns[2].errors == [
        "skipped: the session is unrecoverable: 2 failed turns in a row (turns 0, 1)"
    ]
    assert result.turns[3].metric_results == [] and result.turns[3].response is None


async def test_session_lost_skips_the_remaining_turns_with_the_reason() -> None:
    result = await run(
        {"name": "l", "turns": [{"input": "hi"}, {"input": "lose"}, {"input": "still there?"}]},
        "losing",
    )
    assert result.turns is not None
    t0, t1, t2 = result.turns
    assert t0.passed and not t1.skipped and t2.skipped
    assert t1.errors == ["session lost: session expired"]
    assert t2.errors == [
        "skipped: the session is unrecoverable: the agent lost the session at turn 1"
    ]
    assert not result.passed


async def test_turn_timeout_fails_that_turn_only() -> None:
    result = await run(
        {"name": "s", "turns": [{"input": "slow"}, {"input": "fast"}]}, "slow", timeout=1.0
    )
    assert result.turns is not None
    assert result.turns[0].errors == ["timeout"]
    assert result.turns[1].passed and result.turns[1].response == "done"


async def test_a_reply_of_the_wrong_type_is_a_turn_error() -> None:
    result = await run({"name": "n", "input": "x"}, "not_a_reply")
    assert result.errors == ["expected a string or an object reply, got int"]


async def test_metrics_without_inputs_are_absent_and_say_why() -> None:
    result = await run(
        {"name": "m", "input": "hi", "metrics": ["equality", "numeric"]}, "async_echo"
    )
    assert result.metric_results == []  # no ground truth: absent, not scored 0
    assert result.metrics_not_run == {
        "equality": "no ground truth (Answer) for this turn",
        "numeric": "no ground truth (Answer) for this turn",
    }
    assert (result.passed, result.status) == (False, "not_run")  # nothing was checked


async def test_a_reply_object_without_response_is_a_turn_error_naming_its_keys() -> None:
    """As the http target's default mapping: an answer under another key is not read as
    silence (which would fail the comparison as if the agent said nothing)."""
    result = await run({"name": "n", "input": "x", "ground_truth": "Paris"}, "misnamed")
    assert result.errors == [
        "the reply object has none of 'response', 'tool_invocations', 'token_usage' (its "
        "keys: text, tools); return the answer as a str, or as 'response' (None for a "
        "tool-only turn)"
    ]
    assert result.status == "error" and result.metric_results == []
    tool_turn = await run({"name": "t", "input": "x", "expected_tools": ["lookup"]}, "tools_only")
    assert tool_turn.errors == [] and tool_turn.tools_matched is True  # a tool-only reply
    # it answered, with no text: "" (contract §2: null only for a turn that failed first)
    assert tool_turn.agent_response == "" and tool_turn.tool_calls == ["lookup"]


async def test_a_reply_without_text_fails_its_comparison_instead_of_skipping_it() -> None:
    result = await run(
        {"name": "s", "input": "Capital of France?", "ground_truth": "Paris"}, "silent"
    )
    assert result.agent_response is None
    assert result.passed is False
    [equality] = result.metric_results
    assert (equality.metric_name, equality.score, equality.passed) == ("equality", 0.0, False)


async def test_equality_compares_unicode_in_one_normal_form() -> None:
    # "Café" precomposed (U+00E9) against "Cafe" + combining acute (U+0301)
    result = await run(
        {"name": "u", "input": "Cafe\u0301", "ground_truth": "CAF\u00c9"}, "async_echo"
    )
    assert result.passed, result.metric_results


def test_now_iso_is_the_utc_time_to_the_millisecond_as_isoformat_writes_it() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    stamps = [now_iso() for _ in range(3)]  # the second's text is reused
    after = datetime.now(UTC)

    for stamp in stamps:
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", stamp)
        assert before <= datetime.fromisoformat(stamp) <= after
