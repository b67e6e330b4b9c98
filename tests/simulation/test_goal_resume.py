"""A goal test interrupted mid-run is resumed like any other test: the finished goal test
is kept and not simulated again, the unfinished one runs from its start."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import assay
from assay.store import open_store
from tests.fakes.llm_server import ScriptedLLM
from tests.simulation.conftest import goal_suite
from tests.simulation.scripted import GoalModel, user_turn
from tests.targets.agent_server import AgentServer, Step


async def test_an_interrupted_goal_run_resumes_only_the_unfinished_goal_test(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    tests = [
        {"name": "first", "goal": "Ask one question", "max_turns": 2},
        {"name": "second", "goal": "Ask another question", "max_turns": 2},
    ]
    path = goal_suite(
        tmp_path,
        agent,
        llm,
        tests,
        execution={"concurrency": 1, "retries": 0, "turn_timeout_s": 120},
    )
    store_url = f"sqlite:///{tmp_path / 'goals.db'}"
    # concurrency 1: "first" runs to its end, then "second" is held by the agent for a minute
    model.user = [user_turn("one?"), user_turn("two?"), user_turn("held?")]
    agent.by_query["held?"] = Step(json={"response": "turn 1: held?"}, delay_s=60)
    first_done = asyncio.Event()
    run = asyncio.create_task(
        assay.run_async(path, store=store_url, no_cache=True, on_result=lambda r: first_done.set())
    )
    await asyncio.wait_for(first_done.wait(), 60)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    with open_store(store_url) as store:
        [stopped] = store.list_runs()
        assert stopped.status == "interrupted"
        assert [r.test_name for r in store.iter_results(stopped.id)] == ["first"]

    del agent.by_query["held?"]
    model.user = [user_turn("again?"), user_turn("more?")]
    asked = len(agent.requests)
    users_before = model.calls("user")
    report = await assay.run_async(resume=stopped.id, store=store_url, no_cache=True)
    # only "second" runs again, from its start (no cache: the simulated user is asked anew)
    again = agent.requests[asked:]
    assert [r.body["query"] for r in again] == ["again?", "more?"]
    assert model.calls("user") == users_before + 2
    first_sessions = {
        r.body["session_id"] for r in agent.requests[:asked] if r.body["query"] == "one?"
    }
    assert again[0].body["session_id"] not in first_sessions
    assert report.run.id == stopped.id and report.run.status == "completed"
    assert sorted((r.test_name, r.status) for r in report.results) == [
        ("first", "passed"),
        ("second", "passed"),
    ]
    [first] = [r for r in report.results if r.test_name == "first"]
    assert [t.input for t in first.turns] == ["one?", "two?"]  # stored by the first run, unchanged
