"""``pytest --assay-suite`` against a real HTTP agent on 127.0.0.1 (``tests.targets.
agent_server``, which answers ``turn N: <query>``): outcomes, the JSON report of the session
(one stored run per item, merged, also across xdist workers), ``--assay-target``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import yaml

from assay.store import open_store
from tests.pytest_plugin.conftest import RunPytest, write_suite
from tests.targets.agent_server import AgentServer

NAMES = ["alpha", "beta", "gamma"]
OUTCOMES = {
    "suite.yaml::alpha": "PASSED",
    "suite.yaml::beta": "PASSED",
    "suite.yaml::gamma": "PASSED",
    "suite.yaml::wrong": "FAILED",
}


def http_suite(folder: Path, url: str) -> Path:
    """Three tests the agent passes, and ``wrong``, whose expected answer it never gives."""
    path = write_suite(folder, url, NAMES)
    suite = yaml.safe_load(path.read_text())
    suite["tests"].append(
        {"name": "wrong", "input": "delta", "ground_truth": "epsilon", "metrics": ["equality"]}
    )
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def queries(agent: AgentServer) -> list[str]:
    return sorted(str(body["query"]) for body in agent.bodies())


def read_report(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def test_items_and_the_failing_turn(
    run_pytest: RunPytest, tmp_path: Path, agent: AgentServer
) -> None:
    http_suite(tmp_path, agent.chat_url)
    result = run_pytest("--assay-suite", "suite.yaml")
    assert result.returncode == 1, result.out
    assert result.items == OUTCOMES
    wrong = result.failure("wrong")
    assert "input:    delta" in wrong
    assert "reply:    turn 1: delta (13 characters)" in wrong
    assert "expected: epsilon" in wrong
    assert "✗ equality 0.00: expected 'epsilon', got 'turn 1: delta'" in wrong
    assert queries(agent) == ["alpha", "beta", "delta", "gamma"]


def test_the_report_holds_what_ran_and_each_run_is_stored(
    run_pytest: RunPytest, tmp_path: Path, agent: AgentServer
) -> None:
    http_suite(tmp_path, agent.chat_url)
    result = run_pytest(
        *("--assay-suite", "suite.yaml", "--assay-report", "out/report.json"),
        *("--junitxml", "junit.xml"),
    )
    assert "assay: wrote out/report.json (4 tests)" in result.out
    report = read_report(tmp_path / "out" / "report.json")
    assert [r["test_name"] for r in report["results"]] == [*NAMES, "wrong"]
    assert [r["passed"] for r in report["results"]] == [True, True, True, False]
    assert report["results"][3]["agent_response"] == "turn 1: delta"
    summary = report["summary"]
    assert (summary["total_tests"], summary["passed"], summary["failed"]) == (4, 3, 1)
    assert summary["pass_rate"] == 75.0  # a percentage: 3 of 4 passed
    assert report["run"]["suite_name"] == "api"
    assert report["run"]["status"] == "completed"
    assert report["run"]["target"] == f"http:POST {agent.chat_url}"
    # each item is a run of its own in the store, and the report names it
    runs = report["run"]["config"]["pytest"]["runs"]
    assert list(runs) == list(OUTCOMES)
    store = open_store(f"sqlite:///{tmp_path / 'runs.db'}")
    try:
        stored = store.load_report(runs["suite.yaml::wrong"])
    finally:
        store.close()
    assert [r.test_name for r in stored.results] == ["wrong"]
    assert stored.results[0].model_dump(mode="json") == report["results"][3]
    # JUnit XML names each item's stored run, and carries no results
    cases = ElementTree.parse(tmp_path / "junit.xml").getroot().iter("testcase")
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in cases
    }
    assert properties["wrong"] == {"assay_run": runs["suite.yaml::wrong"]}
    assert len(properties) == 4


def test_xdist_gives_the_same_outcomes_and_one_report(
    run_pytest: RunPytest, tmp_path: Path, agent: AgentServer
) -> None:
    http_suite(tmp_path, agent.chat_url)
    result = run_pytest("--assay-suite", "suite.yaml", "-n", "2", "--assay-report", "r.json")
    assert "created: 2/2 workers" in result.out
    assert result.returncode == 1
    assert result.items == OUTCOMES
    assert "expected 'epsilon', got 'turn 1: delta'" in result.failure("wrong")
    assert queries(agent) == ["alpha", "beta", "delta", "gamma"]  # each test asked once
    report = read_report(tmp_path / "r.json")  # the workers' results, in collection order
    assert [r["test_name"] for r in report["results"]] == [*NAMES, "wrong"]
    assert len(set(report["run"]["config"]["pytest"]["runs"].values())) == 4


def test_k_and_x_leave_out_of_the_report_what_did_not_run(
    run_pytest: RunPytest, tmp_path: Path, agent: AgentServer
) -> None:
    http_suite(tmp_path, agent.chat_url)
    selected = run_pytest(
        "--assay-suite", "suite.yaml", "-k", "alpha or beta", "--assay-report", "k.json"
    )
    assert selected.items == {"suite.yaml::alpha": "PASSED", "suite.yaml::beta": "PASSED"}
    assert [r["test_name"] for r in read_report(tmp_path / "k.json")["results"]] == [
        "alpha",
        "beta",
    ]
    agent.requests.clear()
    # wrong first: -x stops there, and the report says the session was stopped
    suite = yaml.safe_load((tmp_path / "suite.yaml").read_text())
    suite["tests"].insert(0, suite["tests"].pop())
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
    stopped = run_pytest("--assay-suite", "suite.yaml", "-x", "--assay-report", "x.json")
    assert stopped.items == {"suite.yaml::wrong": "FAILED"}
    assert queries(agent) == ["delta"]
    report = read_report(tmp_path / "x.json")
    assert [r["test_name"] for r in report["results"]] == ["wrong"]
    assert report["run"]["status"] == "interrupted"


def test_assay_target_points_a_suite_at_another_agent(
    run_pytest: RunPytest, tmp_path: Path, agent: AgentServer
) -> None:
    # the suite's own agent does not answer (nothing listens on port 9)
    http_suite(tmp_path, "http://127.0.0.1:9/chat")
    result = run_pytest(
        *("--assay-suite", "suite.yaml", "--assay-target", agent.chat_url),
        *("--assay-report", "r.json"),
    )
    assert result.items == OUTCOMES
    assert read_report(tmp_path / "r.json")["run"]["target"] == f"http:POST {agent.chat_url}"


def test_an_agent_that_cannot_be_reached_fails_each_item_with_the_message(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    write_suite(tmp_path, "http://127.0.0.1:9/chat", ["alpha"], execution={"retries": 0})
    result = run_pytest("--assay-suite", "suite.yaml")
    assert result.returncode == 1
    assert result.items == {"suite.yaml::alpha": "FAILED"}
    message = "assay could not run 'alpha': cannot reach http://127.0.0.1:9/chat"
    assert message in result.failure("alpha")
    assert "Traceback" not in result.out
