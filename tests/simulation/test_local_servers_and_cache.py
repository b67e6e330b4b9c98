"""Goal tests against servers people run locally (llama-cpp-python's rejection of
json_schema, a server ignoring response_format), re-runs answered by the caches, and an
unreachable judge stopping the run before it starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.fakes.llm_server import ScriptedLLM
from tests.simulation.conftest import goal_suite, only, run_suite
from tests.simulation.scripted import GoalModel, user_turn
from tests.targets.agent_server import AgentServer, free_port

TEST = {"name": "g", "goal": "Ask two questions", "max_turns": 3}


def script(model: GoalModel) -> None:
    model.user = [user_turn("one?"), user_turn("two?"), user_turn("", stop=True)]


@pytest.mark.parametrize(
    ("server", "mode"), [("llama-cpp-python", "json_object"), ("ignore", "json_schema")]
)
def test_goal_tests_work_against_local_servers(
    tmp_path: Path,
    agent: AgentServer,
    llm: ScriptedLLM,
    model: GoalModel,
    server: str,
    mode: str,
) -> None:
    llm.structured = server  # type: ignore[assignment]
    script(model)
    result = only(run_suite(goal_suite(tmp_path, agent, llm, [TEST])))
    assert result.status == "passed", result.errors
    stats = (result.trace or {})["execution_stats"]
    for party in ("contract", "simulated_user", "judge"):
        assert stats[party]["structured_output"] == mode
    rejected = [
        r
        for r in llm.requests
        if (r.body.get("response_format") or {}).get("type") == "json_schema"
    ]
    # llama-cpp-python: json_schema was tried once, then the endpoint's mode was remembered
    assert len(rejected) == (1 if server == "llama-cpp-python" else llm.calls())


def test_an_unchanged_rerun_asks_no_model_and_no_cache_asks_all_but_the_contract(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, model: GoalModel
) -> None:
    path = goal_suite(tmp_path, agent, llm, [TEST])
    script(model)
    first = only(run_suite(path))
    calls = llm.calls()
    assert calls == 1 + 3 + 1  # contract, three simulated-user turns, the judge
    script(model)
    second = only(run_suite(path))  # the agent is deterministic: every request repeats
    assert llm.calls() == calls
    assert second.status == first.status == "passed"
    script(model)
    only(run_suite(path, no_cache=True))
    assert model.calls("contract") == 1  # the contract is kept whatever --no-cache says
    assert llm.calls() == calls + 3 + 1


def test_an_unreachable_judge_stops_the_run_before_it_starts(
    tmp_path: Path, agent: AgentServer, llm: ScriptedLLM, assay_cli: RunCli
) -> None:
    path = goal_suite(tmp_path, agent, llm, [TEST])
    text = path.read_text().replace(llm.base_url, f"http://127.0.0.1:{free_port()}/v1")
    path.write_text(text)
    proc = assay_cli("run", str(path))
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "connection refused" in proc.stderr and "Traceback" not in proc.stderr
    assert agent.requests == []
