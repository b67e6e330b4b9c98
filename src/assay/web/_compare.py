"""Two runs compared: ``assay diff``'s verdict (``assay.store.compare``, unchanged: the same
regressions, flaky tests and intervals), the pass/fail matrix of every test with the changes
first, and each metric's mean score in both runs."""

from __future__ import annotations

from dataclasses import dataclass

from assay.store.compare import RunDiff, diff_outcomes
from assay.store.queries import RunRow
from assay.web._state import Dashboard
from assay.web.schemas import Comparison, MetricDelta, RunChange

ORDER = {"regression": 0, "improvement": 1, "new": 2, "removed": 3, "": 4}


@dataclass(frozen=True)
class MatrixRow:
    test_name: str
    repeat_index: int
    status_a: str | None  # None: not in that run
    status_b: str | None
    change: str  # regression, improvement, new, removed, or "" (unchanged)


@dataclass
class Compared:
    a: RunRow
    b: RunRow
    diff: RunDiff
    matrix: list[MatrixRow]
    deltas: dict[str, MetricDelta]

    def to_api(self) -> Comparison:
        d = self.diff
        return Comparison(
            run_a=d.run_a,
            run_b=d.run_b,
            summary=d.summary_line(),
            regressed=bool(d.regressions),
            regressions=d.regressions,
            improvements=d.improvements,
            new_tests=d.new_tests,
            removed_tests=d.removed_tests,
            unchanged=d.unchanged,
            flaky=d.flaky,
            files_changed=d.files_changed,
            pass_rate=RunChange(**d.pass_rate.to_json()) if d.pass_rate else None,
            metrics=[RunChange(**c.to_json()) for c in d.metrics],
            metric_deltas=self.deltas,
        )


def _deltas(a: RunRow, b: RunRow) -> dict[str, MetricDelta]:
    scores_a = a.summary.average_scores if a.summary else {}
    scores_b = b.summary.average_scores if b.summary else {}
    out = {}
    for name in sorted(set(scores_a) | set(scores_b)):
        sa, sb = scores_a.get(name), scores_b.get(name)
        out[name] = MetricDelta(a=sa, b=sb, delta=None if sa is None or sb is None else sb - sa)
    return out


def compare(state: Dashboard, ref_a: str, ref_b: str) -> Compared:
    """Run ``ref_b`` compared with run ``ref_a`` (ids or unique prefixes)."""
    a, b = state.queries.run(ref_a), state.queries.run(ref_b)
    outcomes_a = state.store.outcomes(a.info.id)
    outcomes_b = state.store.outcomes(b.info.id)
    diff = diff_outcomes(a.info.id, outcomes_a, b.info.id, outcomes_b)
    changed: dict[tuple[str, int], str] = {
        (c.test_name, c.repeat_index): c.direction for c in diff.regressions
    }
    changed |= {(c.test_name, c.repeat_index): c.direction for c in diff.improvements}
    changed |= {key: "new" for key in diff.new_tests}
    changed |= {key: "removed" for key in diff.removed_tests}
    status_a = {o.key: o.status for o in outcomes_a}
    status_b = {o.key: o.status for o in outcomes_b}
    keys = list(status_b) + [key for key in status_a if key not in status_b]
    matrix = [
        MatrixRow(
            name,
            repeat,
            status_a.get((name, repeat)),
            status_b.get((name, repeat)),
            changed.get((name, repeat), ""),
        )
        for name, repeat in keys
    ]
    matrix.sort(key=lambda row: ORDER[row.change])  # stable: run order within each group
    return Compared(a, b, diff, matrix, _deltas(a, b))
