"""The summary's total time under HoloDeck's name, ``total_duration_ms``, beside assay's
``execution_time_ms`` (kept for the readers of assay's reports): the same value."""

from __future__ import annotations

import json

from assay.results.models import MetricResult, ReportSummary, TestResult, TurnResult
from assay.results.rollup import single_turn_result, summarize
from assay.results.schema import json_schema


def result(name: str, ms: int) -> TestResult:
    equality = MetricResult(metric_name="equality", score=1.0, passed=True)
    turn = TurnResult(
        turn_index=0,
        input="q",
        response="a",
        metric_results=[equality],
        passed=True,
        execution_time_ms=ms,
    )
    return single_turn_result(name, turn, "2025-03-01T10:00:00+00:00")


def test_the_total_time_is_written_under_both_names() -> None:
    summary = summarize([result("a", 120), result("b", 30), result("c", 7)])
    written = json.loads(summary.model_dump_json())
    assert (written["execution_time_ms"], written["total_duration_ms"]) == (157, 157)


def test_a_summary_with_either_name_reads_with_both() -> None:
    # a run stored before total_duration_ms was added
    old = ReportSummary.model_validate_json('{"total_tests": 1, "execution_time_ms": 412}')
    assert (old.execution_time_ms, old.total_duration_ms) == (412, 412)
    # HoloDeck's ReportSummary, every field it has
    holodeck = {
        "total_tests": 2,
        "passed": 1,
        "failed": 1,
        "pass_rate": 50.0,
        "total_duration_ms": 530,
        "metrics_evaluated": {"bleu": 2},
        "average_scores": {"bleu": 0.25},
    }
    read = ReportSummary.model_validate(holodeck)
    assert (read.execution_time_ms, read.total_duration_ms, read.pass_rate) == (530, 530, 50.0)


def test_the_report_schema_has_it_as_an_integer() -> None:
    summary = json_schema("report")["$defs"]["ReportSummary"]
    assert summary["properties"]["total_duration_ms"]["type"] == "integer"
    assert "total_duration_ms" in summary["required"]
