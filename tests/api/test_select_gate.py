"""Selection and gates from Python: ``assay.run(keyword=, tags=, only_failed=)`` picks the
tests ``assay run -k/--tag/--only-failed`` would, a selection of nothing raises
ConfigError, a resume keeps its selection, and ``assay.gate.check_gate`` judges a report."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import assay
from assay.errors import ConfigError
from assay.gate import check_gate
from assay.store import open_store
from tests.cli.picking import write_suite


def respond(query: str, session_id: str) -> str:
    """The picking suite's agent, as a function: wrong on the inputs in $WRONG."""
    return "no idea" if query in os.environ.get("WRONG", "").split(",") else query.upper()


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.db'}"


def names(report: assay.Report) -> list[str]:
    return [r.test_name for r in report.results]


def test_keyword_and_tags_pick_as_the_flags_do(suite: Path, store: str) -> None:
    picked = assay.run(suite, target=respond, store=store, keyword="refund and not late")
    assert names(picked) == ["Refund-policy"]
    tagged = assay.run(suite, target=respond, store=store, tags=["slow", "TRAVEL"])
    assert names(tagged) == ["refund-when-late", "flight-change", "seat-window"]
    one = assay.run(suite, target=respond, store=store, tags="billing")  # one tag, not letters
    assert names(one) == ["Refund-policy", "refund-when-late"]


def test_a_selection_of_nothing_raises(suite: Path, store: str) -> None:
    with pytest.raises(ConfigError, match=r"no test matches -k 'zzz' \(of 5 tests\)"):
        assay.run(suite, target=respond, store=store, keyword="zzz")


def test_only_failed_and_the_gate(suite: Path, store: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WRONG", "change,seat")
    first = assay.run(suite, target=respond, store=store)
    assert first.summary.passed == 3
    monkeypatch.setenv("WRONG", "seat")
    rerun = assay.run(suite, target=respond, store=store, only_failed=first.run.id)
    assert names(rerun) == ["flight-change", "seat-window"]

    verdict = check_gate(rerun, fail_under=0.5, baseline=first)
    assert verdict.passed and verdict.exit_code == 0  # 1 of 2 is 50%; nothing regressed
    assert verdict.checks[0].line.startswith("pass rate 50.0% (1 of 2 tests) is at or above")
    # against a run in which seat-window passed, it regressed
    monkeypatch.setenv("WRONG", "")
    green = assay.run(suite, target=respond, store=store)
    with open_store(store) as opened:
        against_green = check_gate(rerun, baseline=green.run.id[:10], store=opened)
    assert not against_green.passed and against_green.exit_code == 1
    assert against_green.regressions == ["seat-window"]
    assert check_gate(rerun, baseline=green, max_regressions=1).passed


def test_a_resume_keeps_its_selection(suite: Path, store: str) -> None:
    report = assay.run(suite, target=respond, store=store, keyword="refund")
    with pytest.raises(ConfigError, match="cannot resume run .* with a different -k"):
        assay.run(suite, target=respond, store=store, keyword="seat", resume=report.run.id)
    again = assay.run(suite, target=respond, store=store, resume=report.run.id)
    assert names(again) == ["Refund-policy", "refund-when-late"]


def test_a_holodeck_report_is_a_baseline(
    suite: Path, store: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # HoloDeck's TestReport: no run, and results with no status (as its executor writes)
    monkeypatch.setenv("WRONG", "seat")
    now = assay.run(suite, target=respond, store=store)
    assert [r.test_name for r in now.results if not r.passed] == ["seat-window"]
    stamp = "2026-04-20T00:00:00+00:00"
    results = [
        {"test_name": name, "test_input": "q", "passed": name != "flight-change"}
        | {"execution_time_ms": 5, "timestamp": stamp}
        for name in names(now)
    ]
    # HoloDeck's test_name is optional: a result without one matches no test
    results.append(results[0] | {"test_name": None})
    summary = {"total_tests": 5, "passed": 4, "failed": 1, "pass_rate": 80.0}
    holodeck = {
        "agent_name": "travel",
        "agent_config_path": "agent.yaml",
        "results": results,
        "summary": summary | {"total_duration_ms": 25},
        "timestamp": stamp,
        "holodeck_version": "0.3.0",
        "environment": {},
    }
    path = tmp_path / "holodeck.json"
    path.write_text(json.dumps(holodeck))

    verdict = check_gate(now, baseline=path)
    assert verdict.regressions == ["seat-window"] and not verdict.passed
    assert verdict.checks[0].line == (
        "1 test that passed in holodeck.json did not pass now (more than --max-regressions 0)"
    )
    assert check_gate(now, baseline=path, max_regressions=1).passed


def test_check_gate_refuses_a_baseline_that_compares_nothing(suite: Path, store: str) -> None:
    """A baseline with none of the report's tests, or of a run that did not complete, would
    make a gate that compared nothing pass: ConfigError, as ``assay run --baseline`` exits 2."""
    everything = assay.run(suite, target=respond, store=store)
    refunds = assay.run(suite, target=respond, store=store, keyword="refund")
    others = assay.run(suite, target=respond, store=store, keyword="not refund")
    with pytest.raises(ConfigError, match="shares no test name with this run's 2 tests"):
        check_gate(refunds, baseline=others)
    assert check_gate(refunds, baseline=everything).passed  # two tests compared
    stopped = everything.model_copy(deep=True)
    stopped.run.status = "interrupted"
    with pytest.raises(ConfigError, match="is interrupted, not completed"):
        check_gate(refunds, baseline=stopped)


def test_check_gate_refuses_a_report_of_a_run_that_did_not_complete(
    suite: Path, store: str
) -> None:
    """Its pass rate is of the tests that have a result: a gate would pass on what is left."""
    report = assay.run(suite, target=respond, store=store)
    assert check_gate(report, fail_under=0.5).passed
    stopped = report.model_copy(deep=True)
    stopped.run.status = "interrupted"
    with pytest.raises(ConfigError, match="is interrupted, not completed .5 test results."):
        check_gate(stopped, fail_under=0.5)
