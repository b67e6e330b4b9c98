"""Comparing two runs test by test and metric by metric (``assay diff``, the dashboard).

Tests are matched by (test_name, repeat_index). A matched test *regressed* when it passed in
run A and not in run B, or when one of its metrics went from passed to failed or lost more
than ``SCORE_EPSILON`` of score; it *improved* in the opposite cases (and did not regress).
A test that is flaky in either run (``--repeat K``: it passed on some runs, failed on
others) is neither: it is listed apart, as noise. So is a test whose attached files changed
(their paths or SHA-256): it is not the same test, so its change says nothing of the agent.
Over the shared tests, the pass-rate and each metric's mean change come with a 95% interval
(``assay.store.estimates``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from assay.store._records import MetricOutcome, TestOutcome
from assay.store.estimates import (
    Change,
    FlakyTest,
    flaky_tests,
    metric_changes,
    pass_rate_change,
    stats_by_test,
)

SCORE_EPSILON = 1e-6  # score changes smaller than this are float noise, not a change

Direction = Literal["regression", "improvement"]


@dataclass(frozen=True)
class MetricChange:
    metric_name: str
    direction: Direction
    score_a: float | None
    score_b: float | None
    passed_a: bool | None
    passed_b: bool | None


@dataclass(frozen=True)
class TestChange:
    __test__ = False  # not a pytest class

    test_name: str
    repeat_index: int
    status_a: str
    status_b: str
    direction: Direction
    metrics: list[MetricChange] = field(default_factory=list)


@dataclass
class RunDiff:
    run_a: str
    run_b: str
    regressions: list[TestChange] = field(default_factory=list)
    improvements: list[TestChange] = field(default_factory=list)
    new_tests: list[tuple[str, int]] = field(default_factory=list)
    removed_tests: list[tuple[str, int]] = field(default_factory=list)
    unchanged: int = 0
    flaky: list[FlakyTest] = field(default_factory=list)  # set apart, counted nowhere else
    files_changed: list[tuple[str, int]] = field(default_factory=list)  # set apart too
    pass_rate: Change | None = None  # over the shared tests; None when they share none
    metrics: list[Change] = field(default_factory=list)

    def summary_line(self) -> str:
        line = (
            f"{_count(len(self.regressions), 'regression')}, "
            f"{_count(len(self.improvements), 'improvement')}, "
            f"{len(self.new_tests)} new, {len(self.removed_tests)} removed, "
            f"{self.unchanged} unchanged"
        )
        if self.flaky:
            line += f", {_count(len(self.flaky), 'flaky test')} set apart"
        if self.files_changed:
            line += f", {len(self.files_changed)} with changed files set apart"
        return line

    def to_json(self) -> dict[str, Any]:
        def keys(items: list[tuple[str, int]]) -> list[dict[str, Any]]:
            return [{"test_name": name, "repeat_index": repeat} for name, repeat in items]

        return {
            "run_a": self.run_a,
            "run_b": self.run_b,
            "regressions": [asdict(c) for c in self.regressions],
            "improvements": [asdict(c) for c in self.improvements],
            "new_tests": keys(self.new_tests),
            "removed_tests": keys(self.removed_tests),
            "unchanged": self.unchanged,
            "flaky": [asdict(f) for f in self.flaky],
            "files_changed": keys(self.files_changed),
            "pass_rate": self.pass_rate.to_json() if self.pass_rate else None,
            "metrics": [c.to_json() for c in self.metrics],
            "summary": self.summary_line(),
        }


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def _metric_direction(a: MetricOutcome, b: MetricOutcome) -> Direction | None:
    if a.passed is True and b.passed is False:
        return "regression"
    if a.passed is False and b.passed is True:
        return "improvement"
    if a.score is not None and b.score is not None:
        if b.score < a.score - SCORE_EPSILON:
            return "regression"
        if b.score > a.score + SCORE_EPSILON:
            return "improvement"
    return None


def compare_test(a: TestOutcome, b: TestOutcome) -> TestChange | None:
    """How test ``b`` differs from ``a``, or None when it did not change."""
    changes = []
    for name, metric_a in a.metrics.items():
        metric_b = b.metrics.get(name)
        moved = _metric_direction(metric_a, metric_b) if metric_b else None
        if metric_b is not None and moved is not None:
            changes.append(
                MetricChange(
                    name,
                    moved,
                    metric_a.score,
                    metric_b.score,
                    metric_a.passed,
                    metric_b.passed,
                )
            )
    if (a.passed and not b.passed) or any(c.direction == "regression" for c in changes):
        direction: Direction = "regression"
    elif (b.passed and not a.passed) or changes:
        direction = "improvement"
    else:
        return None
    return TestChange(a.test_name, a.repeat_index, a.status, b.status, direction, changes)


def diff_outcomes(
    run_a: str, a: Iterable[TestOutcome], run_b: str, b: Iterable[TestOutcome]
) -> RunDiff:
    """Run B compared with run A; lists keep run B's order (removed tests: run A's)."""
    a, b = list(a), list(b)
    stats_a, stats_b = stats_by_test(a), stats_by_test(b)
    before = {outcome.key: outcome for outcome in a}
    diff = RunDiff(run_a, run_b, flaky=flaky_tests(stats_a, stats_b))
    noisy = {f.test_name for f in diff.flaky}
    seen: set[tuple[str, int]] = set()
    for outcome in b:
        seen.add(outcome.key)
        earlier = before.get(outcome.key)
        if earlier is None:
            diff.new_tests.append(outcome.key)
            continue
        if outcome.test_name in noisy:
            continue
        if outcome.files != earlier.files:
            diff.files_changed.append(outcome.key)
            continue
        change = compare_test(earlier, outcome)
        if change is None:
            diff.unchanged += 1
        elif change.direction == "regression":
            diff.regressions.append(change)
        else:
            diff.improvements.append(change)
    diff.removed_tests = [key for key in before if key not in seen]
    diff.pass_rate = pass_rate_change(stats_a, stats_b)
    diff.metrics = metric_changes(stats_a, stats_b)
    return diff
