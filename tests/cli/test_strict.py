"""Nothing checked is not "passed": through the real CLI against a real HTTP agent on
127.0.0.1 (and a python agent), a test on which nothing was checked is ``not_run`` with the
reason, exits 0 on its own and 1 with ``--strict``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import RunCli
from tests.targets.agent_server import AgentServer, Step, agent_server

NOTHING = "not run: nothing to check: no expected answer, tools or metric ran"


@pytest.fixture
def server() -> Iterator[AgentServer]:
    with agent_server() as s:
        yield s


def totals(text: str) -> str:
    """The totals line of the terminal summary."""
    [line] = [line for line in text.splitlines() if re.match(r"\d+ tests: ", line)]
    return line


def results(path: Path) -> dict[str, dict[str, Any]]:
    return {r["test_name"]: r for r in json.loads(path.read_text())["results"]}


def test_a_csv_of_questions_only_runs_the_agent_but_passes_nothing(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    (tmp_path / "q.csv").write_text("Question\nWhat is the capital of France?\nHello?\n")
    proc = assay_cli("run", "--dataset", "q.csv", "--target", server.chat_url, "--out", "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # not run alone: not a failure
    assert len(server.requests) == 2  # the agent answered both questions
    assert totals(proc.stdout) == "2 tests: 0 passed, 0 failed, 0 errored, 2 not run — 2 turns"
    report = json.loads((tmp_path / "r.json").read_text())
    assert [r["status"] for r in report["results"]] == ["not_run", "not_run"]
    assert [r["passed"] for r in report["results"]] == [False, False]
    for r in report["results"]:
        assert r["errors"] == [NOTHING + " (equality: no ground truth (Answer) for this turn)"]
        assert r["agent_response"].startswith("turn 1: ")  # the reply is kept
    summary = report["summary"]
    assert (summary["passed"], summary["failed"], summary["not_run"]) == (0, 2, 2)

    strict = assay_cli(
        "run", "--dataset", "q.csv", "--target", server.chat_url, "--strict", "--quiet"
    )
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert totals(strict.stdout) == "2 tests: 0 passed, 0 failed, 0 errored, 2 not run — 2 turns"


def test_a_test_whose_only_metric_could_not_run_is_not_run_with_its_reason(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    no_usage = Step(json={"response": "Paris"})  # no token_usage: cost cannot run
    (tmp_path / "suite.yaml").write_text(
        "name: s\n"
        f"target: {{http: {{url: '{server.chat_url}'}}}}\n"
        "tests:\n"
        "  - name: similar\n"
        "    input: Capital of France?\n"
        "    ground_truth: Paris\n"
        "    metrics: [{metric: semantic_similarity, model_path: /no/such/model}]\n"
        "  - name: cheap\n"
        "    input: Capital of France?\n"
        "    metrics: [{metric: cost, model: gpt-4o-mini, max_usd: 0.01}]\n"
    )
    server.queue(no_usage, no_usage)
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 not run" in totals(proc.stdout) and "0 passed" in totals(proc.stdout)
    by_name = results(tmp_path / "r.json")
    assert {n: r["status"] for n, r in by_name.items()} == {
        "similar": "not_run",
        "cheap": "not_run",
    }
    [similar] = by_name["similar"]["errors"]  # it has an expected answer: said so
    assert similar.startswith(
        "not run: nothing to check: no metric gave a verdict on the expected answer "
        "(semantic_similarity: "
    )
    assert by_name["cheap"]["errors"] == [NOTHING + " (cost: the target reported no token usage)"]
    server.queue(no_usage, no_usage)
    assert assay_cli("run", "suite.yaml", "--strict").returncode == 1


def test_checks_that_ran_decide_and_strict_does_not_fail_a_clean_run(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    # the default agent answers "turn 1: <query>" with one tool call, "remember"
    (tmp_path / "suite.yaml").write_text(
        "name: s\n"
        f"target: {{http: {{url: '{server.chat_url}'}}}}\n"
        "tests:\n"
        "  - {name: answer, input: hi, ground_truth: 'turn 1: hi'}\n"
        "  - {name: tools, input: hi, expected_tools: [remember]}\n"
    )
    proc = assay_cli("run", "suite.yaml", "--strict")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert totals(proc.stdout) == "2 tests: 2 passed, 0 failed, 0 errored, 0 not run — 2 turns"


GOAL_SUITE = """
name: goals
target: {python: "agent:respond"}
tests:
  - {name: plain, input: hi, ground_truth: HI}
  - {name: refund, goal: Get a refund for a non-refundable ticket}
"""


def test_a_goal_test_without_a_simulator_is_not_run_exit_0_unless_strict(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "agent.py").write_text(
        "def respond(query, session_id):\n    return query.upper()\n"
    )
    (tmp_path / "suite.yaml").write_text(GOAL_SUITE)
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the goal test sent nothing: only the single-turn test's turn is counted
    assert totals(proc.stdout) == "2 tests: 1 passed, 0 failed, 0 errored, 1 not run — 1 turn"
    assert results(tmp_path / "r.json")["refund"]["status"] == "not_run"
    assert assay_cli("run", "suite.yaml", "--strict").returncode == 1
    # a failing test still exits 1 without --strict
    (tmp_path / "suite.yaml").write_text(
        GOAL_SUITE.replace("ground_truth: HI", "ground_truth: BYE")
    )
    assert assay_cli("run", "suite.yaml").returncode == 1


TRAJECTORY_SUITE = """
name: trajectory
target: {python: "agent:respond"}
tests:
  - {name: right, input: hi, expected_trajectory: [lookup], metrics: [trajectory_exact_match]}
  - {name: wrong, input: hi, expected_trajectory: [book], metrics: [trajectory_exact_match]}
"""


def test_a_test_checked_only_over_the_whole_conversation_is_decided_by_it(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "agent.py").write_text(
        "def respond(query, session_id):\n"
        "    return {'response': 'ok', 'tool_invocations': [{'name': 'lookup', 'args': {}}]}\n"
    )
    (tmp_path / "suite.yaml").write_text(TRAJECTORY_SUITE)
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    statuses = {name: r["status"] for name, r in results(tmp_path / "r.json").items()}
    assert statuses == {"right": "passed", "wrong": "failed"}
    assert proc.returncode == 1


def test_an_empty_expected_tools_list_checks_nothing(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    """``expected_tools: []`` (or a dataset cell ``[]``) holds, as HoloDeck reads it, but
    asserts nothing: a test with no other check is not run, and ``--strict`` exits 1."""
    (tmp_path / "suite.yaml").write_text(
        "name: s\n"
        f"target: {{http: {{url: '{server.chat_url}'}}}}\n"
        "tests:\n"
        "  - {name: none, input: hi, expected_tools: []}\n"
        "  - {name: turns, turns: [{input: a, expected_tools: []}, {input: b}]}\n"
        "  - {name: answered, input: hi, ground_truth: 'turn 1: hi', expected_tools: []}\n"
    )
    (tmp_path / "d.csv").write_text("Question,expected_tool_calls\nhi,[]\n")
    proc = assay_cli("run", "suite.yaml", "--dataset", "d.csv", "--out", "r.json", "--strict")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert totals(proc.stdout) == "4 tests: 1 passed, 0 failed, 0 errored, 3 not run — 5 turns"
    by_name = results(tmp_path / "r.json")
    assert {n: r["status"] for n, r in by_name.items()} == {
        "none": "not_run",
        "turns": "not_run",
        "answered": "passed",  # equality compared the answer
        "d:row2": "not_run",
    }
    reason = (
        "not run: nothing to check: no expected answer, no metric ran, and the expected "
        "tools are [], which asserts nothing (equality: no ground truth (Answer) for this turn)"
    )
    for name in ("none", "turns", "d:row2"):
        assert by_name[name]["errors"] == [reason]
    assert by_name["none"]["tools_matched"] is True  # HoloDeck's rule: [] holds


def test_an_expected_answer_with_metrics_empty_is_not_run_saying_so(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    """``metrics: []`` asks for no metric: the test's expected answer is compared by none,
    and the reason says that, not that there is no expected answer."""
    (tmp_path / "suite.yaml").write_text(
        "name: s\n"
        f"target: {{http: {{url: '{server.chat_url}'}}}}\n"
        "tests:\n"
        "  - {name: single, input: hi, ground_truth: 'turn 1: hi', metrics: []}\n"
        "  - {name: turns, turns: [{input: a, ground_truth: 'turn 1: a', metrics: []}]}\n"
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json", "--strict")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    reason = (
        "not run: nothing to check: `metrics: []` asks for no metric, so the expected answer "
        "is compared by none"
    )
    for name, result in results(tmp_path / "r.json").items():
        assert (name, result["status"], result["errors"]) == (name, "not_run", [reason])
