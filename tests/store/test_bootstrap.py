"""Honest comparisons: the paired bootstrap interval, checked by hand and by simulation, and
flaky tests set apart from regressions (``assay diff``, ``assay diff --json``)."""

from __future__ import annotations

import json
import random

import pytest
from typer.testing import CliRunner

import assay.cli.diff  # noqa: F401  (registers the command)
from assay.cli.app import app
from assay.store import MetricOutcome, TestOutcome
from assay.store.bootstrap import paired_bootstrap
from assay.store.compare import diff_outcomes
from assay.store.estimates import MIN_TESTS
from tests.store.conftest import single
from tests.store.test_store_cli import store_runs


def test_the_interval_of_a_hand_worked_case_whose_bootstrap_distribution_is_known() -> None:
    """Five tests: four went from failing to passing (difference +1), one stayed (0).

    A resample draws 5 differences with replacement, so K, the number of +1 drawn, is
    Binomial(5, 4/5) and the resample mean is K/5:

        K      0        1        2        3        4        5
        P    1/3125   20/3125  160/3125  640/3125 1280/3125 1024/3125
        CDF  0.00032  0.00672  0.05792   0.26272  0.67232   1

    The 2.5% quantile is the first K whose CDF reaches 0.025: K = 2, a mean of 0.4. The
    97.5% quantile is the first K whose CDF reaches 0.975: K = 5, a mean of 1.0. So the 95%
    interval is [0.4, 1.0]; it excludes 0. (With 5,000 resamples the order statistics used,
    the 125th and the 4,874th, fall inside K = 2 and K = 5 by many standard deviations: on
    average 33.6 resamples have K <= 1 and 289.6 have K <= 2; 3,361.6 have K <= 4.)"""
    interval = paired_bootstrap([0, 0, 0, 0, 0], [1, 1, 1, 1, 0])
    assert interval.mean == pytest.approx(0.8)
    assert (interval.low, interval.high) == (pytest.approx(0.4), pytest.approx(1.0))
    assert interval.excludes_zero


def test_an_interval_that_straddles_zero_is_not_significant() -> None:
    """Two tests, one improved (+1) and one unchanged (0): a resample mean is 0, 0.5 or 1
    with probabilities 1/4, 1/2, 1/4. The 2.5% quantile is 0 and the 97.5% quantile is 1:
    the interval [0, 1] holds zero, so the +0.5 change is not significant."""
    interval = paired_bootstrap([0, 0], [1, 0])
    assert (interval.mean, interval.low, interval.high) == (0.5, 0.0, 1.0)
    assert not interval.excludes_zero


def test_the_same_input_gives_the_same_interval() -> None:
    before = [random.Random(1).random() for _ in range(200)]
    after = [b + 0.01 for b in before]
    assert paired_bootstrap(before, after) == paired_bootstrap(before, after)


def _outcomes(passes: list[bool], metric: list[float] | None = None) -> list[TestOutcome]:
    return [
        TestOutcome(
            f"t{i}",
            0,
            "passed" if ok else "failed",
            ok,
            {"score": MetricOutcome(metric[i], None)} if metric else {},
        )
        for i, ok in enumerate(passes)
    ]


def test_the_pass_rate_interval_covers_the_true_change_in_about_95_percent_of_comparisons() -> None:
    """200 simulated pairs of runs of 100 tests: each test passes with probability 0.6 in
    run A and 0.7 in run B, so the true pass-rate change is +0.10."""
    rng = random.Random(20240614)
    covered = significant = 0
    for _ in range(200):
        a = _outcomes([rng.random() < 0.6 for _ in range(100)])
        b = _outcomes([rng.random() < 0.7 for _ in range(100)])
        change = diff_outcomes("A", a, "B", b).pass_rate
        assert change is not None and change.tests == 100
        covered += change.low <= 0.10 <= change.high
        significant += change.significant
    assert 180 <= covered <= 198  # 90-99%
    assert significant > 0  # a real +10 points is found some of the time, not never


def test_a_metric_interval_covers_the_true_mean_change_in_about_95_percent() -> None:
    """Continuous scores (every difference distinct, the other way of resampling): the
    true mean change is +0.05."""
    rng = random.Random(7)
    covered = 0
    for _ in range(200):
        before = [rng.gauss(0.5, 0.1) for _ in range(40)]
        after = [x + rng.gauss(0.05, 0.1) for x in before]
        interval = paired_bootstrap(before, after, resamples=2000)
        covered += interval.low <= 0.05 <= interval.high
    assert 180 <= covered <= 198


def test_metric_means_are_compared_over_the_tests_scored_in_both_runs() -> None:
    a = _outcomes([True] * 6, metric=[0.5] * 6)
    b = _outcomes([True] * 6, metric=[0.9] * 6)
    b.append(TestOutcome("only-in-b", 0, "passed", True, {"score": MetricOutcome(0.0, None)}))
    (change,) = diff_outcomes("A", a, "B", b).metrics
    assert (change.measure, change.tests) == ("score", 6)
    assert (change.mean_a, change.mean_b) == (pytest.approx(0.5), pytest.approx(0.9))
    assert change.significant and change.verdict == "significantly better"


def test_too_few_shared_tests_are_never_significant() -> None:
    few = MIN_TESTS - 1
    change = diff_outcomes("A", _outcomes([True] * few), "B", _outcomes([False] * few)).pass_rate
    assert change is not None and (change.low, change.high) == (-1.0, -1.0)
    assert not change.significant
    assert change.verdict.startswith("too few shared tests")


def _repeated(name: str, passes: list[bool]) -> list[TestOutcome]:
    return [
        TestOutcome(name, k, "passed" if ok else "failed", ok, {}) for k, ok in enumerate(passes)
    ]


def test_a_test_flaky_in_either_run_is_listed_apart_not_as_a_regression() -> None:
    a = _repeated("steady", [True] * 3) + _repeated("wobbly", [True] * 3)
    a += _repeated("was-flaky", [True, False, True])
    b = _repeated("steady", [False] * 3) + _repeated("wobbly", [True, False, False])
    b += _repeated("was-flaky", [True, True, True])
    diff = diff_outcomes("A", a, "B", b)
    assert {c.test_name for c in diff.regressions} == {"steady"}  # all 3 repeats broke
    assert diff.improvements == []
    assert [(f.test_name, f.passed_a, f.runs_a, f.passed_b, f.runs_b) for f in diff.flaky] == [
        ("wobbly", 3, 3, 1, 3),
        ("was-flaky", 2, 3, 3, 3),
    ]
    assert diff.summary_line() == (
        "3 regressions, 0 improvements, 0 new, 0 removed, 0 unchanged, 2 flaky tests set apart"
    )
    # each test counts once in the pass rate: steady 1 -> 0, wobbly 1 -> 1/3, was-flaky 2/3 -> 1
    assert diff.pass_rate is not None and diff.pass_rate.tests == 3
    assert diff.pass_rate.delta == pytest.approx((-1 - 2 / 3 + 1 / 3) / 3)


def test_assay_diff_reports_the_intervals_and_the_json_carries_them(sqlite_url: str) -> None:
    names = [f"q{i}" for i in range(8)]
    store_runs(
        sqlite_url,
        {
            "a" * 32: [single(n, score=1.0) for n in names],
            "b" * 32: [single(n, passed=i >= 6, score=float(i >= 6)) for i, n in enumerate(names)],
        },
    )
    shown = CliRunner().invoke(app, ["diff", "a" * 12, "b" * 12, "--store", sqlite_url])
    assert shown.exit_code == 1, shown.output  # six regressions
    assert "pass rate over 8 tests: 100.0% -> 25.0%, -75.0 points (95% CI" in shown.stdout
    assert "significantly worse" in shown.stdout
    raw = CliRunner().invoke(app, ["diff", "a" * 12, "b" * 12, "--json", "--store", sqlite_url])
    body = json.loads(raw.stdout)
    assert body["pass_rate"]["verdict"] == "significantly worse"
    assert body["pass_rate"]["tests"] == 8 and body["pass_rate"]["high"] < 0
    assert {m["measure"] for m in body["metrics"]} >= {"equality"}
    assert body["flaky"] == []
