"""The run summary printed at the end of ``assay run`` (and by ``assay report``)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay.results.models import Report, TestResult

_STATUS_STYLE = {"passed": "green", "failed": "red", "error": "red", "not_run": "yellow"}


def _why(result: TestResult) -> str:
    """The first reason a test did not pass, in a few words."""
    if result.passed:
        return ""
    turns = result.turns or []
    for turn in turns or [None]:
        errors = turn.errors if turn else result.errors
        mismatches = turn.tool_mismatches if turn else []
        metrics = turn.metric_results if turn else result.metric_results
        prefix = f"turn {turn.turn_index}: " if turn else ""
        if turn is not None and turn.passed:
            continue
        if errors:
            return prefix + errors[0]
        if mismatches:
            return prefix + mismatches[0]
        if turn is None and result.arg_match_details:
            pass
        failed = [m for m in metrics if m.passed is False]
        if failed:
            m = failed[0]
            score = "error" if m.score is None else f"{m.score:.2f}"
            return prefix + f"{m.metric_name} {score}" + (f" ({m.reasoning})" if m.reasoning else "")
        if turn is None and result.tools_matched is False:
            return "tool assertions failed"
    return result.errors[0] if result.errors else "failed"


def print_summary(report: Report, console: Console, quiet: bool = False) -> None:
    s = report.summary
    if not quiet:
        table = Table(title=f"{report.run.suite_name} — run {report.run.id[:12]}", title_justify="left")
        table.add_column("test")
        table.add_column("type")
        table.add_column("turns", justify="right")
        table.add_column("status")
        table.add_column("why", overflow="fold")
        for r in report.results:
            turns = r.turns or []
            turn_text = f"{sum(t.passed for t in turns)}/{len(turns)}" if turns else "1"
            name = r.test_name + (f" #{r.repeat_index + 1}" if r.repeat_index else "")
            style = _STATUS_STYLE.get(r.status, "")
            table.add_row(
                escape(name), r.test_type, turn_text, f"[{style}]{r.status}[/]", escape(_why(r))
            )
        console.print(table)
        if s.average_scores:
            scores = ", ".join(f"{k} {v:.2f}" for k, v in sorted(s.average_scores.items()))
            console.print(f"mean scores: {escape(scores)}")
    console.print(
        f"[bold]{s.total_tests} tests: [green]{s.passed} passed[/], "
        f"[red]{s.failed} failed[/][/]"
        + (f" ({s.errored} errored, {s.not_run} not run)" if s.errored or s.not_run else "")
        + f" — {s.total_turns} turns"
    )
