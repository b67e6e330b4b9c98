"""A result a worker ran is counted in the run's summary from its ``Tally`` (not parsed back
from its JSON): the summary is the one its TestResult gives."""

from __future__ import annotations

import pickle

from assay.results.models import MetricResult, TestResult, TokenUsage, TurnResult
from assay.results.rollup import SummaryBuilder, Tally, rollup_multi_turn, single_turn_result

NOW = "2026-11-30T00:00:00+00:00"


def turn(index: int, passed: bool, **extra: object) -> TurnResult:
    score = 1.0 if passed else 0.0
    metric = MetricResult(
        metric_name="equality", score=score, passed=passed, dimension="comparison"
    )
    return TurnResult(
        turn_index=index,
        input=f"q{index}",
        response="a",
        passed=passed,
        execution_time_ms=10 + index,
        metric_results=[metric],
        **extra,  # type: ignore[arg-type]
    )


def results() -> list[TestResult]:
    usage = TokenUsage(prompt_tokens=3, completion_tokens=2, total_tokens=5)
    judged = turn(0, True, token_usage=usage, metrics_not_run={"tone": "no judge"})
    quiet = TurnResult(turn_index=0, input="q", passed=True, execution_time_ms=1)
    multi = [turn(0, True, metrics_not_run={"tone": "no judge"}), turn(1, False)]
    return [
        single_turn_result("passes", judged, NOW),
        single_turn_result("fails", turn(0, False), NOW, repeat_index=1),
        single_turn_result("checks nothing", quiet, NOW),  # not run
        single_turn_result("errs", turn(0, True, errors=["boom"]), NOW),
        rollup_multi_turn("multi", multi, NOW),
        rollup_multi_turn("multi", [turn(0, True), turn(1, True)], NOW, repeat_index=1),
    ]


def test_a_tally_counts_as_its_result() -> None:
    whole, tallied = SummaryBuilder(repeat=2), SummaryBuilder(repeat=2)
    for result in results():
        whole.add(result)
        tally = pickle.loads(pickle.dumps(Tally.of(result)))  # as a worker sends it
        tallied.add_tally(tally)
    summary = whole.build()
    assert {summary.passed, summary.not_run, summary.errored} == {2, 1}  # not all alike
    assert summary.total_turns == 4 + 2 * 2 and summary.token_usage.total_tokens == 5
    assert summary.metrics_not_run and summary.repeats
    assert tallied.build() == summary


def test_a_goal_test_that_ran_no_turn_counts_none() -> None:
    # a goal test not run (no judge) has no turns: it adds 0 to total_turns, where a
    # single-turn test adds its one turn even when it fails
    goal = TestResult(
        test_name="goal",
        test_type="goal",
        test_input="book a flight",
        passed=False,
        status="not_run",
        execution_time_ms=0,
        timestamp=NOW,
        metrics_not_run={"goal": "no judge"},
    )
    built = SummaryBuilder()
    for result in (goal, single_turn_result("fails", turn(0, False), NOW)):
        built.add(result)
    assert built.build().total_turns == 1
