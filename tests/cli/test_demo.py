"""``assay demo`` (what ``make demo`` runs): the travel example against the built-in agent."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli
from tests.simulation.scripted import travel_model


def test_demo_runs_stores_and_shows_passes_and_failures(assay_cli: RunCli, tmp_path: Path) -> None:
    proc = assay_cli("demo")
    assert proc.returncode == 0, proc.stderr  # the demo ran; its verdicts are its content
    out = proc.stdout
    assert "18 tests: 11 passed, 5 failed, 0 errored, 2 not run" in out
    # a documented flaw, caught by an argument matcher, explained per turn
    assert "car-rental-after-a-hotel-search" in out
    assert 'turn 1: arg \'location\' mismatch: expected "Geneva", got "Basel"' in out
    report = tmp_path / ".assay" / "demo-report.html"
    assert report.is_file() and "lab2:session_002" in report.read_text()
    runs = json.loads(assay_cli("runs", "--json").stdout)
    assert len(runs) == 1 and runs[0]["status"] == "completed"


def test_without_a_model_the_goal_tests_are_listed_as_not_run_with_the_way_to_run_them(
    assay_cli: RunCli,
) -> None:
    proc = assay_cli("demo")
    out = proc.stdout
    assert "plan-a-basel-stay" in out and "cancel-without-confirmation" in out
    assert "not run: goal-driven tests need a judge model" in out
    assert "make demo JUDGE=openai:llama3.1:8b JUDGE_BASE_URL=http://127.0.0.1:11434/v1" in out


def test_with_a_model_the_demo_runs_its_goal_tests(assay_cli: RunCli, tmp_path: Path) -> None:
    from tests.fakes.llm_server import scripted_llm

    with scripted_llm() as llm:
        llm.responder = travel_model
        proc = assay_cli("demo", "--judge", "openai:demo-model", "--judge-base-url", llm.base_url)
        contract_calls = [
            r for r in llm.requests if "definition of an automated test" in json.dumps(r.body)
        ]
    assert proc.returncode == 0, proc.stderr
    # the demo's reviewed contracts are committed next to the suite: nothing is derived
    assert contract_calls == []
    out = proc.stdout
    assert "0 not run" in out
    assert "✗ cancel-without-confirmation" in out
    breach = "prohibited behaviour occurred: Cancel a booking without the passenger confirming"
    assert f"{breach} first (turn 2)" in out
    assert "✗ plan-a-basel-stay" not in out
