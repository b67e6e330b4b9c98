"""``assay runs``, ``assay report`` and ``assay diff`` on stores in SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

import assay.cli.diff
import assay.cli.report
import assay.cli.runs  # noqa: F401  (register the commands)
from assay.cli.app import app
from assay.results.models import Report, TestResult
from assay.results.rollup import summarize
from assay.store import open_store
from tests.store.conftest import multi_turn, run_info, single

RUN_A = "aaaaaaaa11111111aaaaaaaa11111111"
RUN_B = "bbbbbbbb22222222bbbbbbbb22222222"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def store_runs(url: str, runs: dict[str, list[TestResult]]) -> None:
    with open_store(url) as store:
        for day, (run_id, results) in enumerate(runs.items(), start=1):
            store.create_run(run_info(run_id, f"2025-03-0{day}T10:00:00.000+00:00"))
            store.add_results(run_id, list(enumerate(results)))
            store.finish_run(run_id, "completed", summarize(results), f"2025-03-0{day}T10:05")


@pytest.fixture
def two_runs(store_url: str) -> str:
    store_runs(
        store_url,
        {
            RUN_A: [single("capital"), single("weather", score=0.9), single("gone")],
            RUN_B: [
                single("capital", passed=False, score=0.0),
                single("weather", score=0.9),
                single("fresh"),
            ],
        },
    )
    return store_url


def test_runs_lists_the_stored_runs_latest_first(two_runs: str) -> None:
    listed = invoke("runs", "--json", "--store", two_runs)
    assert listed.exit_code == 0, listed.output
    records = json.loads(listed.stdout)
    assert [(r["id"], r["status"], r["total"], r["failed"]) for r in records] == [
        (RUN_B, "completed", 3, 1),
        (RUN_A, "completed", 3, 0),
    ]
    assert {"id", "status", "started_at", "finished_at", "suite_name", "passed"} <= set(records[0])

    table = invoke("runs", "--store", two_runs, "--limit", "1")
    assert table.exit_code == 0, table.output
    assert RUN_B[:12] in table.stdout and RUN_A[:12] not in table.stdout
    assert "completed" in table.stdout


def test_runs_on_an_empty_store_says_how_to_add_one(sqlite_url: str) -> None:
    shown = invoke("runs", "--store", sqlite_url)
    assert shown.exit_code == 0 and "no runs stored" in shown.stdout
    assert json.loads(invoke("runs", "--json", "--store", sqlite_url).stdout) == []


def test_report_renders_a_stored_run(two_runs: str, tmp_path: Path) -> None:
    printed = invoke("report", RUN_A[:8], "--store", two_runs)
    assert printed.exit_code == 0, printed.output
    report = Report.model_validate_json(printed.stdout)
    with open_store(two_runs) as store:
        assert report == store.load_report(RUN_A)
    assert [r.test_name for r in report.results] == ["capital", "weather", "gone"]

    out = tmp_path / "reports" / "b.md"
    written = invoke("report", RUN_B, "--out", str(out), "--store", two_runs)
    assert written.exit_code == 0, written.output
    assert "capital" in out.read_text() and "wrote" in written.stderr


def test_report_of_an_unknown_run_exits_2_and_says_how_to_find_ids(two_runs: str) -> None:
    missing = invoke("report", "nosuchrun", "--store", two_runs)
    assert missing.exit_code == 2
    assert "nosuchrun" in missing.stderr and "assay runs" in missing.stderr
    assert "Traceback" not in missing.output


def test_report_refuses_an_unknown_format_before_touching_the_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'never.db'}"
    refused = invoke("report", RUN_A, "--format", "pdf", "--store", url)
    assert refused.exit_code == 2 and "unknown report format 'pdf'" in refused.stderr
    assert not (tmp_path / "never.db").exists()


def test_diff_with_a_regression_names_the_test_and_metric_and_exits_1(two_runs: str) -> None:
    shown = invoke("diff", RUN_A, RUN_B, "--store", two_runs)
    assert shown.exit_code == 1, shown.output
    status, score = [row for row in shown.stdout.splitlines() if "capital" in row]
    assert "regression" in status and "passed" in status and "failed" in status
    assert "regression" in score and "equality" in score
    assert "1.000 pass" in score and "0.000 fail" in score
    assert "new in B: fresh" in shown.stdout and "removed from A: gone" in shown.stdout
    assert "1 regression, 0 improvements, 1 new, 1 removed, 1 unchanged" in shown.stdout

    as_json = invoke("diff", RUN_A[:8], RUN_B[:8], "--json", "--store", two_runs)
    assert as_json.exit_code == 1
    data = json.loads(as_json.stdout)
    (regression,) = data["regressions"]
    assert (regression["test_name"], regression["status_a"], regression["status_b"]) == (
        "capital",
        "passed",
        "failed",
    )
    assert [m["metric_name"] for m in regression["metrics"]] == ["equality"]
    assert data["new_tests"] == [{"test_name": "fresh", "repeat_index": 0}]


def test_diff_without_regressions_exits_0(two_runs: str) -> None:
    improved = invoke("diff", RUN_B, RUN_A, "--store", two_runs)
    assert improved.exit_code == 0, improved.output
    assert "0 regressions, 1 improvement" in improved.stdout
    same = invoke("diff", RUN_A, RUN_A, "--store", two_runs)
    assert same.exit_code == 0 and "3 unchanged" in same.stdout


def test_diff_compares_multi_turn_tests_by_their_rolled_up_metrics(sqlite_url: str) -> None:
    before = multi_turn()
    after = multi_turn()
    after.metric_results[1].score = 0.2  # correctness fell; the test failed before and after
    store_runs(sqlite_url, {RUN_A: [before], RUN_B: [after]})
    shown = invoke("diff", RUN_A, RUN_B, "--json", "--store", sqlite_url)
    assert shown.exit_code == 1
    (regression,) = json.loads(shown.stdout)["regressions"]
    assert [(m["metric_name"], m["score_a"], m["score_b"]) for m in regression["metrics"]] == [
        ("correctness", pytest.approx(0.55), 0.2)
    ]


def test_diff_of_an_unknown_run_exits_2(two_runs: str) -> None:
    missing = invoke("diff", RUN_A, "zzzzzzzz", "--store", two_runs)
    assert missing.exit_code == 2 and "zzzzzzzz" in missing.stderr


def test_an_unreachable_store_exits_3_with_the_password_masked() -> None:
    failed = invoke("runs", "--store", "postgresql+psycopg://me:topsecret@127.0.0.1:1/x")
    assert failed.exit_code == 3
    assert "cannot open the store" in failed.stderr and "topsecret" not in failed.output


def test_diff_warns_when_the_runs_come_from_different_suites(sqlite_url: str) -> None:
    with open_store(sqlite_url) as store:
        for run_id, suite in ((RUN_A, "travel"), (RUN_B, "calculator")):
            info = run_info(run_id).model_copy(update={"suite_name": suite})
            store.create_run(info)
            store.add_results(run_id, [(0, single("capital"))])
            store.finish_run(run_id, "completed", summarize([single("capital")]), "2025-03-01")
    other = invoke("diff", RUN_A, RUN_B, "--store", sqlite_url)
    assert other.exit_code == 0, other.output
    assert (
        "warning: the runs come from different suites ('travel' and 'calculator')" in other.stderr
    )
    same = invoke("diff", RUN_A, RUN_A, "--store", sqlite_url)
    assert "warning" not in same.stderr
