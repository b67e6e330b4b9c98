"""The run's progress: what it counts of each finished test, and the plain line it prints."""

from __future__ import annotations

import io

from rich.console import Console

from assay.cli._progress import RunProgress
from assay.results.rollup import StatusCounts


def test_each_status_is_counted_and_shown() -> None:
    progress = RunProgress(total=6, console=Console(file=io.StringIO()), enabled=True)
    for status in ("passed", "failed", "passed", "error", "not_run", "passed"):
        progress.advance_status(status)

    assert progress.done == 6
    assert progress.counts == StatusCounts(passed=3, failed=1, errored=1, not_run=1)
    out = io.StringIO()
    progress._plain(out)
    assert out.getvalue().startswith(
        "progress: 6/6 tests, 3 passed, 1 failed, 1 errored, 1 not run, "
    )


def test_a_quiet_run_still_counts() -> None:
    progress = RunProgress(total=2, enabled=False)
    progress.advance_status("failed")
    progress.advance_status("failed")
    assert progress.counts == StatusCounts(failed=2)
    assert progress.counts.total == 2
