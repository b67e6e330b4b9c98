"""Run-level changes between two runs, with how sure they are (``assay diff``, the dashboard).

The unit is the *test*: a test run K times (``--repeat K``) counts once, with the share of
its runs that passed and the mean of its scores, so its repeats (which are not independent)
never pass for more evidence than they are. Over the tests both runs share, the pass-rate
change and each metric's mean change get a 95% paired-bootstrap interval
(``assay.store.bootstrap``); a change is significant only when that interval excludes
zero, and never on fewer than ``MIN_TESTS`` shared tests.

A test that passed on some of its runs and failed on others in either run is *flaky*: its
pass/fail flips are noise, so ``compare`` lists it apart instead of calling it a regression.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import Any

from assay.store._records import TestOutcome
from assay.store.bootstrap import LEVEL, RESAMPLES, paired_bootstrap

MIN_TESTS = 5  # below this many shared tests no change is called significant
PASS_RATE = "pass rate"


@dataclass
class TestStats:
    """One test's runs in one run: how many, how many passed, its scores per metric."""

    __test__ = False  # not a pytest class

    runs: int = 0
    passed: int = 0
    scores: dict[str, list[float]] = field(default_factory=dict)

    @property
    def pass_share(self) -> float:
        return self.passed / self.runs

    @property
    def flaky(self) -> bool:
        return 0 < self.passed < self.runs


def stats_by_test(outcomes: Iterable[TestOutcome]) -> dict[str, TestStats]:
    by_name: dict[str, TestStats] = {}
    for outcome in outcomes:
        stats = by_name.setdefault(outcome.test_name, TestStats())
        stats.runs += 1
        stats.passed += int(outcome.passed)
        for name, metric in outcome.metrics.items():
            if metric.score is not None:
                stats.scores.setdefault(name, []).append(metric.score)
    return by_name


@dataclass(frozen=True)
class FlakyTest:
    """A test that passed on some runs and failed on others, in run A or run B."""

    __test__ = False

    test_name: str
    passed_a: int
    runs_a: int
    passed_b: int
    runs_b: int

    def cell(self) -> str:
        a, b = f"{self.passed_a}/{self.runs_a}", f"{self.passed_b}/{self.runs_b}"
        return f"{self.test_name} (A {a}, B {b})"


def flaky_tests(a: dict[str, TestStats], b: dict[str, TestStats]) -> list[FlakyTest]:
    """The shared tests flaky in either run, in run B's order."""
    return [
        FlakyTest(name, a[name].passed, a[name].runs, stats.passed, stats.runs)
        for name, stats in b.items()
        if name in a and (stats.flaky or a[name].flaky)
    ]


@dataclass(frozen=True)
class Change:
    """A mean over the shared tests in run A and in run B, and the change with its interval."""

    measure: str  # "pass rate" or a metric's name
    tests: int
    mean_a: float
    mean_b: float
    delta: float
    low: float
    high: float
    significant: bool

    @property
    def verdict(self) -> str:
        if self.tests < MIN_TESTS:
            return f"too few shared tests to tell (fewer than {MIN_TESTS})"
        if not self.significant:
            return "no significant change"
        return "significantly better" if self.delta > 0 else "significantly worse"

    def line(self) -> str:
        """``pass rate over 40 tests: 80.0% -> 85.0%, +5.0 points (95% CI -2.5 to +12.5):
        no significant change``."""
        if self.measure == PASS_RATE:
            values = f"{self.mean_a:.1%} -> {self.mean_b:.1%}, {100 * self.delta:+.1f} points"
            interval = f"{100 * self.low:+.1f} to {100 * self.high:+.1f}"
        else:
            values = f"{self.mean_a:.3f} -> {self.mean_b:.3f}, {self.delta:+.3f}"
            interval = f"{self.low:+.3f} to {self.high:+.3f}"
        return (
            f"{self.measure} over {self.tests} tests: {values} "
            f"({LEVEL:.0%} CI {interval}): {self.verdict}"
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self) | {"verdict": self.verdict}


def estimate(measure: str, pairs: list[tuple[float, float]]) -> Change:
    """The change in ``measure`` over (run A, run B) pairs, one pair per shared test."""
    before = [a for a, _ in pairs]
    after = [b for _, b in pairs]
    interval = paired_bootstrap(before, after, resamples=RESAMPLES)
    return Change(
        measure=measure,
        tests=len(pairs),
        mean_a=fmean(before),
        mean_b=fmean(after),
        delta=interval.mean,
        low=interval.low,
        high=interval.high,
        significant=interval.excludes_zero and len(pairs) >= MIN_TESTS,
    )


def pass_rate_change(a: dict[str, TestStats], b: dict[str, TestStats]) -> Change | None:
    pairs = [(a[name].pass_share, stats.pass_share) for name, stats in b.items() if name in a]
    return estimate(PASS_RATE, pairs) if pairs else None


def _metric_names(stats: dict[str, TestStats]) -> set[str]:
    return {metric for s in stats.values() for metric in s.scores}


def metric_changes(a: dict[str, TestStats], b: dict[str, TestStats]) -> list[Change]:
    """One Change per metric scored on some test in both runs, by metric name."""
    names = sorted(_metric_names(a) & _metric_names(b))
    changes = []
    for metric in names:
        pairs = [
            (fmean(a[name].scores[metric]), fmean(stats.scores[metric]))
            for name, stats in b.items()
            if name in a and metric in stats.scores and metric in a[name].scores
        ]
        if pairs:
            changes.append(estimate(metric, pairs))
    return changes
