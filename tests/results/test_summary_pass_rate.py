"""The summary's ``pass_rate`` is HoloDeck's: a percentage of the tests passed, 0-100
(specs/turn-result-contract.txt §5 keeps HoloDeck's ReportSummary), while everything that
showed or gated on "80%" still does."""

from __future__ import annotations

from assay.results.models import MetricResult, ReportSummary, TestResult, TurnResult
from assay.results.rollup import single_turn_result, summarize


def result(name: str, passed: bool) -> TestResult:
    equality = MetricResult(metric_name="equality", score=float(passed), passed=passed)
    turn = TurnResult(
        turn_index=0,
        input="q",
        response="a",
        metric_results=[equality],
        passed=passed,
        execution_time_ms=5,
    )
    return single_turn_result(name, turn, "2025-03-01T10:00:00+00:00")


def test_pass_rate_is_the_percentage_of_tests_passed() -> None:
    three_of_four = summarize([result(n, n != "d") for n in "abcd"])
    assert (three_of_four.passed, three_of_four.total_tests) == (3, 4)
    assert three_of_four.pass_rate == 75.0
    assert three_of_four.pass_fraction == 0.75  # what the reports show as 75.0%
    assert summarize([result("a", True)]).pass_rate == 100.0  # HoloDeck's executor test
    assert summarize([result("a", True), result("b", False)]).pass_rate == 50.0
    assert summarize([result(n, n == "a") for n in "abc"]).pass_rate == 100 / 3


def test_no_tests_have_no_pass_rate() -> None:
    nothing = summarize([])
    assert (nothing.pass_rate, nothing.pass_fraction) == (None, None)
    assert ReportSummary().model_dump()["pass_rate"] is None


def test_a_summary_written_with_the_share_of_tests_reads_as_a_percentage() -> None:
    # as assay wrote it before, into stored runs and report files: 3 of 4 as 0.75, and
    # 1 of 1 as 1.0, which only the counts tell apart from 1 %
    old = '{"total_tests": 4, "passed": 3, "failed": 1, "pass_rate": 0.75}'
    assert ReportSummary.model_validate_json(old).pass_rate == 75.0
    one = ReportSummary.model_validate({"total_tests": 1, "passed": 1, "pass_rate": 1.0})
    assert one.pass_rate == 100.0
