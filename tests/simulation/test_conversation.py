"""The goal conversation against a real HTTP agent: early stop (never before min_turns),
max_turns, opening turns, an agent error mid-conversation shown to the simulated user and
the judge, fewer than two replies as an Error, and a verdict per behaviour that status,
goal_achieved and the metric agree on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from assay.results.schema import json_schema
from tests.fakes.llm_server import ScriptedLLM
from tests.simulation.conftest import goal_suite, only, run_suite
from tests.simulation.scripted import (
    GoalModel,
    behaviours,
    contract_reply,
    conversation_of,
    judge_reply,
    user_turn,
)
from tests.targets.agent_server import AgentServer, Step


def valid_trace(trace: dict[str, Any] | None) -> dict[str, Any]:
    assert trace is not None
    errors = list(Draft202012Validator(json_schema("trace")).iter_errors(trace))
    assert errors == [], errors[0].message if errors else ""
    return trace


def test_the_simulated_user_stops_early_and_the_trace_follows_the_spec(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("Hi, when is my flight?"), user_turn("Thanks, and the hotel?")]
    model.user.append(user_turn("", stop=True))
    path = goal_suite(tmp_path, agent, llm, [{"name": "g", "goal": "Ask about the trip"}])
    result = only(run_suite(path))
    assert [b["query"] for b in agent.bodies()] == [
        "Hi, when is my flight?",
        "Thanks, and the hotel?",
    ]
    assert len({b["session_id"] for b in agent.bodies()}) == 1  # one session
    assert result.status == "passed" and result.passed
    trace = valid_trace(result.trace)
    assert trace["status"] == "success" and trace["goal_achieved"] is True
    assert trace["turns_used"] == 2 and len(trace["history"]) == 2
    first = trace["history"][0]
    assert first["turn_number"] == 1 and first["reasoning"] == "next: Hi, when is my flight?"
    assert first["assistant_message"]["content"] == "Hi, when is my flight?"
    call = first["assistant_message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"message": "Hi, when is my flight?"}
    assert first["tool_message"]["content"] == "turn 1: Hi, when is my flight?"
    assert first["tool_message"]["tool_invocations"][0]["name"] == "remember"
    stats = trace["execution_stats"]
    assert stats["stopped_by"] == "simulated_user" and stats["successful_replies"] == 2
    assert stats["simulated_user"]["calls"] == 3 and stats["judge"]["calls"] == 1
    assert stats["contract"]["calls"] == 1 and stats["agent"]["calls"] == 2
    assert stats["agent"]["token_usage"]["prompt_tokens"] == 14  # 7 per reply
    assert [t["turn_number"] for t in stats["turn_timings"]] == [1, 2]
    assert trace["metrics"]["Goal Achievement"] == {
        "score": 1.0,
        "is_successful": True,
        "confidence": 0.8,
    }
    assert trace["findings"][0] == "✓ All criteria met"  # the source trace's wording
    # the same conversation as a TestResult with turns, for every reporter
    assert [t.input for t in result.turns or []] == [
        "Hi, when is my flight?",
        "Thanks, and the hotel?",
    ]
    assert result.turns and result.turns[1].response == (
        "turn 2: Thanks, and the hotel? (earlier: Hi, when is my flight?)"
    )


def test_the_simulated_user_sees_the_whole_conversation_as_chat_turns(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("one"), user_turn("two"), user_turn("three")]
    path = goal_suite(tmp_path, agent, llm, [{"name": "g", "goal": "Talk", "max_turns": 3}])
    only(run_suite(path))
    third = model.seen["user"][2]["messages"]
    assert [(m["role"], m["content"]) for m in third[1:]] == [
        ("user", "(The chat is open. Write your first message.)"),
        ("assistant", "one"),
        ("user", "turn 1: one"),
        ("assistant", "two"),
        ("user", "turn 2: two (earlier: one)"),
    ]
    assert "This is turn 3 of at most 3." in third[0]["content"]
    assert "test" not in third[0]["content"].lower().replace("tests, evaluations", "")


def test_no_stop_before_min_turns(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    # a stop at turn 2 is refused (re-asked), as min_turns is 3
    model.user = [user_turn("a"), user_turn("", stop=True), user_turn("b"), user_turn("c")]
    model.user.append(user_turn("", stop=True))
    test = {"name": "g", "goal": "Talk", "min_turns": 3}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert [b["query"] for b in agent.bodies()] == ["a", "b", "c"]
    schemas = [
        r.body["response_format"]["json_schema"]["schema"]
        for r in llm.requests
        if r.body["messages"][0]["content"].startswith("You play a USER")
    ]
    actions = [s["properties"]["action"]["enum"] for s in schemas]
    # turns 1-3 offer only "send"; from turn 4 on, "stop" too
    assert actions == [["send"], ["send"], ["send"], ["send"], ["send", "stop"]]
    assert (result.trace or {})["execution_stats"]["stopped_by"] == "simulated_user"


def test_max_turns_ends_the_conversation(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn(f"message {i}") for i in range(10)]
    test = {"name": "g", "goal": "Talk", "max_turns": 4}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert len(agent.requests) == 4 and model.calls("user") == 4
    trace = result.trace or {}
    assert trace["turns_used"] == 4
    assert trace["execution_stats"]["stopped_by"] == "max_turns"
    assert "the conversation reached max_turns (4 turns)" in trace["findings"]


def test_opening_turns_are_sent_before_the_simulated_user_takes_over(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("simulated"), user_turn("", stop=True)]
    test = {
        "name": "g",
        "goal": "Talk",
        "turns": [
            {"input": "scripted first", "expected_tools": ["remember"]},
        ],
    }
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert [b["query"] for b in agent.bodies()] == ["scripted first", "simulated"]
    history = (result.trace or {})["history"]
    assert history[0]["reasoning"] is None and history[1]["reasoning"] == "next: simulated"
    assert result.turns and result.turns[0].tools_matched is True
    first_ask = model.seen["user"][0]["messages"]
    assert first_ask[2:4] == [
        {"role": "assistant", "content": "scripted first"},
        {"role": "user", "content": "turn 1: scripted first"},
    ]


def test_an_opening_turn_with_a_wrong_tool_was_answered_not_an_agent_error(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    # its tool-mismatch reason is in its errors too (HoloDeck's rule), but the agent replied:
    # a successful reply, with no error for the simulated user or the judge to see
    model.user = [user_turn("simulated"), user_turn("", stop=True)]
    model.contract = contract = contract_reply()
    seen: list[str] = []

    def judge(conversation: str) -> dict[str, Any]:
        seen.append(conversation)
        return judge_reply(contract)

    model.judge = judge
    opening = {"input": "scripted first", "expected_tools": ["divide"]}
    test = {"name": "g", "goal": "Talk", "max_turns": 2, "turns": [opening]}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    first = (result.turns or [])[0]
    assert first.tools_matched is False and first.errors == ["no call to 'divide' found"]
    assert "agent_error" not in seen[0] and "(The assistant's reply failed" not in str(
        model.seen["user"]
    )
    trace = valid_trace(result.trace)
    stats = trace["execution_stats"]
    assert (stats["successful_replies"], stats["failed_turns"]) == (2, 0)
    assert trace["history"][0]["tool_message"]["success"] is True
    assert not any("the agent's turn failed" in f for f in trace["findings"])
    # its tools failed, so the test did (not errored): the judge had its say
    assert (result.status, result.errors) == ("failed", [])


def test_an_agent_error_reaches_the_simulated_user_and_the_judge(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    contract = contract_reply(prohibited=behaviours("Reveal internal error details"))
    model.contract = contract
    model.user = [user_turn("one"), user_turn("two"), user_turn("three")]
    agent.by_query["two"] = Step(status=500, json={"error": "db password is hunter2"})
    seen: list[str] = []

    def judge(conversation: str) -> dict[str, Any]:
        seen.append(conversation)
        return judge_reply(contract, occurred=True, quote="db password is hunter2", turn=2)

    model.judge = judge
    test = {"name": "g", "goal": "Talk", "max_turns": 3}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert [b["query"] for b in agent.bodies()] == ["one", "two", "three"]
    # the simulated user met the error as a user would
    third = model.seen["user"][2]["messages"]
    assert third[-1]["content"].startswith("(The assistant's reply failed: HTTP 500")
    # the judge saw it in its turn
    assert '<turn number="2">' in seen[0]
    turn_two = seen[0].split('<turn number="2">')[1].split("</turn>")[0]
    assert "<agent_error>" in turn_two and "hunter2" in turn_two
    assert result.turns and result.turns[1].errors and result.turns[1].response is None
    trace = valid_trace(result.trace)
    assert trace["history"][1]["tool_message"]["success"] is False
    assert "HTTP 500" in trace["history"][1]["tool_message"]["error"]
    evidence = trace["goal_evaluation"]["criteria_evaluations"][1]["evidence"][0]
    assert evidence == {"turn": 2, "quote": "db password is hunter2", "verbatim": True}
    # a violation: failed (not an error: the conversation was judged), everywhere alike
    assert result.status == "failed" and not result.passed and result.errors == []
    assert trace["status"] == "failure" and trace["goal_achieved"] is False
    metric = result.metric_results[0]
    assert metric.metric_name == "Goal Achievement" and metric.score == 0.5
    assert metric.passed is False
    assert trace["metrics"]["Goal Achievement"]["score"] == 0.5
    assert (
        "✗ prohibited behaviour occurred: Reveal internal error details (turn 2)"
        in (trace["findings"])
    )


BOOKING_DOWN = {
    "response": "Your flight is booked.",
    "tool_invocations": [
        {"name": "book", "args": {"flight": "LX 318"}, "error": "the booking service is down"}
    ],
}


def test_a_failed_tool_call_on_the_opening_turn_is_never_a_hidden_pass(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    """The agent's booking tool failed and its reply says the flight is booked. The judge is
    told that a failed call did not happen, so the claim shows no booking: not achieved,
    everywhere alike; the failed call is a finding of its own."""
    contract = contract_reply(required=behaviours("Book the flight"))
    model.contract = contract
    model.user = [user_turn("Thanks, anything else?")]
    agent.by_query["Book LX 318 for me"] = Step(json=BOOKING_DOWN)
    seen: list[str] = []

    def judge(conversation: str) -> dict[str, Any]:
        seen.append(conversation)
        claimed = "-> error: the booking service is down" in conversation
        return judge_reply(contract, shown=not claimed, quote="Your flight is booked.")

    model.judge = judge
    test = {"name": "g", "goal": "Book a flight", "max_turns": 2}
    test["turns"] = [{"input": "Book LX 318 for me"}]
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    system = model.seen["judge"][0]["messages"][0]["content"]
    assert 'A tool call listed with "-> error:" failed: what it was called to do did not' in system
    turn_one = seen[0].split('<turn number="1">')[1].split("</turn>")[0]
    assert 'book({"flight": "LX 318"}) -> error: the booking service is down' in turn_one
    trace = valid_trace(result.trace)
    assert result.status == "failed" and not result.passed
    assert trace["status"] == "failure" and trace["goal_achieved"] is False
    assert trace["findings"][:2] == [
        "✗ required behaviour not shown: Book the flight (turn 1)",
        "! turn 1: the agent's tool call book failed: the booking service is down",
    ]


def test_a_failed_tool_call_stays_in_the_findings_of_a_pass(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    """A test of how the agent copes with a failing tool may pass (docs/targets.md: a
    failed call costs only that call); the failure is still listed, not hidden by the pass."""
    contract = contract_reply(required=behaviours("Tell the user when a booking fails"))
    model.contract = contract
    model.user = [user_turn("Thanks, anything else?")]
    honest = BOOKING_DOWN | {"response": "Sorry, the booking service is down."}
    agent.by_query["Book LX 318 for me"] = Step(json=honest)
    model.judge = lambda conversation: judge_reply(contract, quote="the booking service is down")
    test = {"name": "g", "goal": "Cope with a failed booking", "max_turns": 2}
    test["turns"] = [{"input": "Book LX 318 for me"}]
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    trace = valid_trace(result.trace)
    assert result.status == "passed" and trace["goal_achieved"] is True
    assert trace["findings"][:2] == [
        "✓ All criteria met",
        "! turn 1: the agent's tool call book failed: the booking service is down",
    ]


def test_fewer_than_two_successful_replies_is_an_error(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("one"), user_turn("two"), user_turn("three")]
    agent.queue(Step(status=200, json={"response": "hello"}), Step(status=500), Step(status=500))
    test = {"name": "g", "goal": "Talk", "max_turns": 5}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    # two failed turns in a row lose the session (SPEC §4): no fourth message
    assert len(agent.requests) == 3 and model.calls("user") == 3
    assert model.calls("judge") == 0
    assert result.status == "error" and not result.passed
    assert "the agent gave 1 successful reply in 3 turns" in result.errors[0]
    trace = valid_trace(result.trace)
    assert trace["status"] == "error" and trace["goal_achieved"] is False
    assert trace["execution_stats"]["stopped_by"] == "session_lost"
    assert trace["metrics"]["Goal Achievement"]["score"] is None


def test_a_goal_test_of_one_turn_is_judged_on_its_one_reply(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    """max_turns: 1 (SPEC §6 sets no minimum): the user sends one message, the agent's one
    reply is judged; the user is never offered a stop it cannot use."""
    model.user = [user_turn("Refund my ticket")]
    test = {"name": "g", "goal": "Get a refund", "max_turns": 1}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert len(agent.requests) == 1 and model.calls("judge") == 1
    assert result.status == "passed" and result.passed, result.errors
    trace = valid_trace(result.trace)
    assert trace["turns_used"] == 1 and trace["goal_achieved"] is True
    assert trace["execution_stats"]["stopped_by"] == "max_turns"


def test_a_goal_test_of_one_turn_whose_reply_fails_is_an_error(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("Refund my ticket")]
    agent.queue(Step(status=500))
    test = {"name": "g", "goal": "Get a refund", "max_turns": 1}
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [test])))
    assert model.calls("judge") == 0 and result.status == "error" and not result.passed
    assert (
        "the agent gave 0 successful replies in 1 turn; this goal test needs at least 1 to be "
        "judged" in result.errors[0]
    )


def test_a_simulated_user_that_fails_is_an_error(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("one"), "not json", "still not", "nope"]
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [{"name": "g", "goal": "Talk"}])))
    assert len(agent.requests) == 1 and model.calls("judge") == 0
    assert result.status == "error"
    assert result.errors[0].startswith("the simulated user failed at turn 2: the simulated user")
    stats = valid_trace(result.trace)["execution_stats"]
    # not "max_turns" (5): the conversation stopped because the simulated user failed
    assert stats["stopped_by"] == "simulated_user_failed"
    assert stats["stop_reason"] == result.errors[0]


def test_without_a_judge_goal_tests_are_not_run_with_the_line_that_enables_them(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    path = goal_suite(tmp_path, agent, llm, [{"name": "g", "goal": "Talk"}], judge=None)
    result = only(run_suite(path))
    assert result.status == "not_run" and llm.calls() == 0 and agent.requests == []
    assert "set judge: in the suite (or pass --judge)" in result.errors[0]


def test_a_separate_simulator_model_plays_the_user(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    model.user = [user_turn("one"), user_turn("two"), user_turn("", stop=True)]
    simulator = {"provider": "openai", "model": "user-model", "base_url": llm.base_url}
    path = goal_suite(tmp_path, agent, llm, [{"name": "g", "goal": "Talk"}], simulator=simulator)
    result = only(run_suite(path))
    by_model = {r.body["model"] for r in llm.requests if "You play a USER" in str(r.body)}
    assert by_model == {"user-model"}
    stats = (result.trace or {})["execution_stats"]
    assert stats["simulated_user"]["model"] == "openai:user-model"
    assert stats["judge"]["model"] == "openai:judge-model"


def test_conversation_text_is_what_the_judge_reads(model: GoalModel) -> None:
    body = {"messages": [{"role": "user", "content": "x <conversation>y</conversation> z"}]}
    assert conversation_of(body) == "<conversation>y</conversation>"
