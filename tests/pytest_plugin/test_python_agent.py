"""``pytest --assay-suite`` on a suite with a Python agent: one item per test named
``PATH::test name``, failures explained turn by turn, ``-k``, ``-x`` and ``-n 2`` deciding
which tests run (the agent's log says which it was asked), ``--assay-target``."""

from __future__ import annotations

import json
from pathlib import Path

from tests.pytest_plugin.conftest import SUITE_OUTCOMES, RunPytest, asked, python_suite


def test_one_item_per_test_passing_and_failing(run_pytest: RunPytest, tmp_path: Path) -> None:
    python_suite(tmp_path)
    result = run_pytest("--assay-suite", "suite.yaml")
    assert result.returncode == 1, result.out
    assert result.items == SUITE_OUTCOMES
    assert "3 failed, 1 passed" in result.out
    assert sorted(asked(tmp_path)) == sorted(
        ["capital of France?", "capital of Spain?", "capital of Italy?", "capital of Peru?", "boom"]
    )


def test_a_failure_shows_the_failing_turn_as_assay_run_does(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    result = run_pytest("--assay-suite", "suite.yaml")
    spain = result.failure("spain")
    assert "✗ spain (single_turn, failed)" in spain
    assert "input:    capital of Spain?" in spain
    assert "reply:    I am not sure (13 characters)" in spain
    assert "expected: Madrid" in spain
    assert "✗ equality 0.00: expected 'Madrid', got 'I am not sure'" in spain
    assert "Traceback" not in spain and "raise " not in spain  # the explanation, no stack
    # a conversation: only the failing turn, numbered
    dialogue = result.failure("italy dialogue")
    assert "✗ turn 1" in dialogue and "input:    capital of Peru?" in dialogue
    assert "expected: Lima" in dialogue
    assert "turn 0" not in dialogue and "capital of Italy?" not in dialogue
    crash = result.failure("crash")
    assert "crash (single_turn, error)" in crash
    assert "✗ Agent invocation error: the backend is down" in crash  # HoloDeck's wording
    # where the run is stored, to read it again
    assert "stored as run " in spain and "--format markdown" in spain


def test_k_selects_items_and_only_they_call_the_agent(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    result = run_pytest("--assay-suite", "suite.yaml", "-k", "france or (italy and not spain)")
    assert result.returncode == 1
    assert result.items == {
        "suite.yaml::france": "PASSED",
        "suite.yaml::italy dialogue": "FAILED",
    }
    assert "2 deselected" in result.out
    assert sorted(asked(tmp_path)) == [
        "capital of France?",
        "capital of Italy?",
        "capital of Peru?",
    ]


def test_x_stops_after_the_first_failure(run_pytest: RunPytest, tmp_path: Path) -> None:
    python_suite(tmp_path)
    result = run_pytest("--assay-suite", "suite.yaml", "-x")
    assert result.returncode == 1
    assert result.items == {"suite.yaml::france": "PASSED", "suite.yaml::spain": "FAILED"}
    assert "stopping after 1 failures" in result.out
    # the tests after the failure were never sent to the agent
    assert asked(tmp_path) == ["capital of France?", "capital of Spain?"]


def test_xdist_gives_the_same_outcomes_and_runs_each_test_once(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    result = run_pytest("--assay-suite", "suite.yaml", "-n", "2")
    assert result.returncode == 1, result.out
    assert "created: 2/2 workers" in result.out
    assert result.items == SUITE_OUTCOMES
    assert "✗ equality 0.00: expected 'Madrid', got 'I am not sure'" in result.failure("spain")
    # two workers, and still each test asked once
    assert sorted(asked(tmp_path)) == sorted(
        ["capital of France?", "capital of Spain?", "capital of Italy?", "capital of Peru?", "boom"]
    )


def test_assay_target_replaces_the_suites_target(run_pytest: RunPytest, tmp_path: Path) -> None:
    python_suite(tmp_path)
    result = run_pytest(
        *("--assay-suite", "suite.yaml", "-k", "france or spain"),
        *("--assay-target", "agent:always_paris"),
    )
    assert result.items == {"suite.yaml::france": "PASSED", "suite.yaml::spain": "FAILED"}
    assert "expected 'Madrid', got 'Paris'" in result.failure("spain")
    assert asked(tmp_path) == []  # the suite's own agent was never called


def test_no_other_path_runs_only_the_suites_and_a_path_adds_its_tests(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    (tmp_path / "test_plain.py").write_text("def test_plain():\n    pass\n")
    alone = run_pytest("--assay-suite", "suite.yaml", "-k", "france or plain")
    assert alone.items == {"suite.yaml::france": "PASSED"}
    both = run_pytest("test_plain.py", "--assay-suite", "suite.yaml", "-k", "france or plain")
    assert both.items == {"test_plain.py::test_plain": "PASSED", "suite.yaml::france": "PASSED"}
    # a folder that holds the suite: its tests are collected once
    folder = run_pytest(".", "--assay-suite", "suite.yaml", "-k", "france or plain")
    assert folder.items == both.items
    assert "2 passed, 3 deselected" in folder.out


def test_a_datasets_rows_are_items_and_a_test_with_nothing_to_check_is_skipped(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    (tmp_path / "rows.csv").write_text(
        "question,answer\ncapital of France?,Paris\ncapital of Chile?,Santiago\n"
    )
    (tmp_path / "rows.yaml").write_text(
        "name: rows\ntarget: {python: 'agent:respond'}\ndatasets: [rows.csv]\n"
        "tests:\n  - {name: unchecked, input: 'capital of Italy?'}\n"
    )
    result = run_pytest("--assay-suite", "rows.yaml")
    assert result.returncode == 1
    assert result.items == {"rows.yaml::rows:row2": "PASSED", "rows.yaml::rows:row3": "FAILED"}
    assert "expected: Santiago" in result.failure("rows:row3")
    # not run, as assay run counts it: not a failure, and the reason is said
    assert "SKIPPED [1] rows.yaml:1: assay: not run: nothing to check" in result.out
    assert "1 failed, 1 passed, 1 skipped" in result.out


def test_several_suites_make_one_report_with_each_test_named_as_its_item(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    python_suite(tmp_path)
    (tmp_path / "more").mkdir()
    (tmp_path / "more" / "other.yaml").write_text(
        "name: other\ntarget: {python: 'agent:always_paris'}\n"
        "tests:\n  - {name: france, input: 'capital of France?', ground_truth: Paris}\n"
    )
    result = run_pytest(
        *("--assay-suite", "suite.yaml", "--assay-suite", "more/other.yaml"),
        *("-k", "france", "--assay-report", "r.json"),
    )
    assert result.items == {"suite.yaml::france": "PASSED", "more/other.yaml::france": "PASSED"}
    report = json.loads((tmp_path / "r.json").read_text())
    assert [r["test_name"] for r in report["results"]] == list(result.items)
    assert report["run"]["suite_name"] == "capitals, other"
    assert report["run"]["target"] is None  # two targets: no one target to name


def test_an_agent_that_exits_or_cancels_itself_fails_its_item_only(
    run_pytest: RunPytest, tmp_path: Path
) -> None:
    (tmp_path / "agent.py").write_text(
        "import asyncio, os\n"
        "async def respond(query, session_id):\n"
        "    if query == 'exit':\n"
        "        os._exit(0)\n"
        "    if query == 'cancel':\n"
        "        asyncio.current_task().cancel()\n"
        "        await asyncio.sleep(0)\n"
        "    return 'ok'\n"
    )
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'agent:respond'}\nexecution: {concurrency: 1}\ntests:\n"
        + "".join(
            f"  - {{name: {t}, input: {t}, ground_truth: ok}}\n" for t in ("exit", "cancel", "fine")
        )
    )
    result = run_pytest("--assay-suite", "suite.yaml")
    # before: 0 with nothing reported (os._exit), 2 with the session aborted (the cancel)
    assert result.returncode == 1, result.out
    assert result.items == {
        "suite.yaml::exit": "FAILED",
        "suite.yaml::cancel": "FAILED",
        "suite.yaml::fine": "PASSED",
    }
    assert "os._exit(0) (it would have ended the run)" in result.failure("exit")
    assert "the code cancelled its own task" in result.failure("cancel")
