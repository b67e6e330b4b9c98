"""The run summary printed at the end of ``assay run`` (and by ``assay report``)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay.reporters.view import display_name, repeat_line, turns_cell, why_failed
from assay.results.models import ReportSummary, RunInfo, TestResult

_STATUS_STYLE = {"passed": "green", "failed": "red", "error": "red", "not_run": "yellow"}
# Past this many tests the table lists only the ones that did not pass, up to this many.
MAX_ROWS = 50


def totals_line(s: ReportSummary) -> str:
    extra = f" ({s.errored} errored, {s.not_run} not run)" if s.errored or s.not_run else ""
    return (
        f"{s.total_tests} tests: {s.passed} passed, {s.failed} failed{extra} — "
        f"{s.total_turns} turns"
    )


def print_summary(
    run: RunInfo,
    summary: ReportSummary,
    results: Iterable[TestResult],
    console: Console,
    quiet: bool = False,
) -> None:
    if not quiet:
        only_failures = summary.total_tests > MAX_ROWS
        title = f"{run.suite_name} — run {run.id[:12]}" + (
            " (tests that did not pass)" if only_failures else ""
        )
        table = Table(title=escape(title), title_justify="left")
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
                escape(display_name(r)),
                r.test_type,
                turns_cell(r),
                f"[{style}]{r.status}[/]",
                escape(reasons[0] if reasons else ""),
            )
        not_shown = (summary.failed if only_failures else summary.total_tests) - shown
        if shown:
            console.print(table)
        if not_shown > 0:
            console.print(f"... and {not_shown} more (see the report: assay report {run.id[:12]})")
        if summary.average_scores:
            scores = ", ".join(f"{k} {v:.2f}" for k, v in sorted(summary.average_scores.items()))
            console.print(f"mean scores: {escape(scores)}")
        for name, entry in sorted(summary.metrics_not_run.items()):
            console.print(
                f"[yellow]not run[/]: {escape(name)} on {entry.tests} of {summary.total_tests} "
                f"tests ({escape(entry.reason)})"
            )
        repeats = repeat_line(summary)
        if repeats:
            console.print(escape(repeats))
    colour = "green" if summary.failed == 0 else "red"
    console.print(f"[bold {colour}]{escape(totals_line(summary))}[/]")
