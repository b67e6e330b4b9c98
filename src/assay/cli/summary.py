"""The run summary printed at the end of ``assay run``, and the exit code it implies: the
table of tests, why each one that did not pass failed (``assay.cli._explain``), the mean
scores and the totals line, last.

Everything in it that came from a suite, an agent or a judge goes through ``markup_safe``: no
escape sequence an agent sends reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console

from assay._words import counted
from assay.cli._explain import print_explanation
from assay.cli._terminal import markup_safe
from assay.reporters.view import (
    STATUS_LABELS,
    display_name,
    headline_status,
    incomplete_line,
    repeat_line,
    turns_cell,
    why_failed,
)
from assay.results.models import ReportSummary, RunInfo, TestResult
from assay.results.rollup import StatusCounts

_STATUS_STYLE = {
    "passed": "green",
    "failed": "red",
    "error": "red",
    "not_run": "yellow",
    "incomplete": "yellow",
}
# Past this many tests the table lists only the ones that did not pass, up to this many.
MAX_ROWS = 50


def totals_line(s: ReportSummary) -> str:
    """``4 tests: 1 passed, 1 failed, 1 errored, 1 not run — 6 turns``."""
    return f"{StatusCounts.of(s).line()} — {counted(s.total_turns, 'turn')}"


def exit_code(s: ReportSummary, strict: bool = False) -> int:
    """The exit code of a finished run: see ``StatusCounts.exit_code``."""
    return StatusCounts.of(s).exit_code(strict)


def _colour(s: ReportSummary, run_status: str) -> str:
    return _STATUS_STYLE[headline_status(StatusCounts.of(s), run_status)]


def print_summary(
    run: RunInfo,
    summary: ReportSummary,
    results: Iterable[TestResult],
    console: Console,
    quiet: bool = False,
    verbose: bool = False,
) -> None:
    """``quiet``: the totals line only; ``verbose``: every turn explained, passing ones too."""
    results = list(results)
    if not quiet:
        from rich.table import Table  # here: --quiet prints no table

        only_failures = summary.total_tests > MAX_ROWS
        title = f"{run.suite_name} — run {run.id[:12]}" + (
            " (tests that did not pass)" if only_failures else ""
        )
        table = Table(title=markup_safe(title), title_justify="left")
        for column in ("test", "type", "turns", "status", "why"):
            table.add_column(
                column, overflow="fold", justify="right" if column == "turns" else "left"
            )
        shown = 0
        for r in results:
            if only_failures and r.passed:
                continue
            if shown == MAX_ROWS:
                break
            shown += 1
            style = _STATUS_STYLE.get(r.status, "")
            reasons = why_failed(r)
            table.add_row(
                markup_safe(display_name(r)),
                r.test_type,
                turns_cell(r),
                f"[{style}]{STATUS_LABELS[r.status]}[/]",
                markup_safe(reasons[0] if reasons else ""),
            )
        not_shown = (summary.failed if only_failures else summary.total_tests) - shown
        if shown:
            console.print(table)
        if not_shown > 0:
            console.print(f"... and {not_shown} more (see the report: assay report {run.id[:12]})")
        print_explanation(results, summary, run.id, console, verbose)
        if summary.average_scores:
            scores = ", ".join(f"{k} {v:.2f}" for k, v in sorted(summary.average_scores.items()))
            console.print(f"mean scores: {markup_safe(scores)}")
        for name, entry in sorted(summary.metrics_not_run.items()):
            console.print(
                f"[yellow]not run[/]: {markup_safe(name)} on {entry.tests} of "
                f"{summary.total_tests} tests ({markup_safe(entry.reason)})"
            )
        repeats = repeat_line(summary)
        if repeats:
            console.print(markup_safe(repeats))
    incomplete = incomplete_line(run.status, summary.total_tests)
    line = totals_line(summary) if incomplete is None else f"{incomplete} — {totals_line(summary)}"
    console.print(f"[bold {_colour(summary, run.status)}]{markup_safe(line)}[/]")
