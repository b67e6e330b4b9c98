"""Comparing two runs' outcomes: regressions, improvements, new and removed tests."""

from __future__ import annotations

from assay.store import MetricOutcome, TestOutcome
from assay.store.compare import SCORE_EPSILON, compare_test, diff_outcomes


def outcome(name: str, passed: bool, repeat: int = 0, **scores: float) -> TestOutcome:
    metrics = {m: MetricOutcome(score, score >= 0.5) for m, score in scores.items()}
    return TestOutcome(name, repeat, "passed" if passed else "failed", passed, metrics)


def test_a_test_that_stops_passing_is_a_regression() -> None:
    change = compare_test(outcome("a", True, equality=1.0), outcome("a", False, equality=0.0))
    assert change is not None and change.direction == "regression"
    assert (change.status_a, change.status_b) == ("passed", "failed")
    (metric,) = change.metrics
    assert (metric.metric_name, metric.direction, metric.score_a, metric.score_b) == (
        "equality",
        "regression",
        1.0,
        0.0,
    )


def test_a_score_drop_beyond_epsilon_regresses_a_still_passing_test() -> None:
    change = compare_test(outcome("a", True, bleu=0.9), outcome("a", True, bleu=0.8))
    assert change is not None and change.direction == "regression"
    assert [m.metric_name for m in change.metrics] == ["bleu"]
    assert (
        compare_test(outcome("a", True, bleu=0.9), outcome("a", True, bleu=0.9 - SCORE_EPSILON / 2))
        is None
    )


def test_better_scores_or_a_fixed_test_are_improvements() -> None:
    fixed = compare_test(outcome("a", False, equality=0.0), outcome("a", True, equality=1.0))
    assert fixed is not None and fixed.direction == "improvement"
    higher = compare_test(outcome("a", True, bleu=0.6), outcome("a", True, bleu=0.7))
    assert higher is not None and higher.direction == "improvement"


def test_a_regression_on_one_metric_outweighs_an_improvement_on_another() -> None:
    change = compare_test(outcome("a", True, x=0.9, y=0.5), outcome("a", True, x=0.95, y=0.1))
    assert change is not None and change.direction == "regression"
    assert {m.metric_name: m.direction for m in change.metrics} == {
        "x": "improvement",
        "y": "regression",
    }


def test_a_metric_only_one_run_has_is_no_change() -> None:
    assert compare_test(outcome("a", True, x=0.9), outcome("a", True, y=0.1)) is None


def test_tests_are_matched_by_name_and_repeat() -> None:
    a = [outcome("same", True), outcome("gone", True), outcome("r", True, repeat=1)]
    b = [outcome("new", False), outcome("same", True), outcome("r", False, repeat=1)]
    diff = diff_outcomes("A", a, "B", b)
    assert [(c.test_name, c.repeat_index) for c in diff.regressions] == [("r", 1)]
    assert diff.new_tests == [("new", 0)]
    assert diff.removed_tests == [("gone", 0)]
    assert (diff.unchanged, diff.improvements) == (1, [])
    assert diff.summary_line() == "1 regression, 0 improvements, 1 new, 1 removed, 1 unchanged"
    assert diff.to_json()["regressions"][0]["test_name"] == "r"
