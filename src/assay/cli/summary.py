"""The run summary printed at the end of ``assay run`` (and by ``assay report``)."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from assay.results.models import MetricResult, Report, TestResult

_STATUS_STYLE = {"passed": "green", "failed": "red", "error": "red", "not_run": "yellow"}


def _turn_reason(errors: list[str], mismatches: list[str], metrics: list[MetricResult]) -> str:
    if errors:
        return errors[0]
    if mismatches:
        return mismatches[0]
    failed = [m for m in metrics if m.passed is False]
    if failed:
        m = failed[0]
        score = "error" if m.score is None else f"{m.score:.2f}"
        why = m.error or m.reasoning
        return f"{m.metric_name} {score}" + (f" ({why})" if why else "")
    return ""


def _why(result: TestResult) -> str:
    """The first reason a test did not pass, in a few words."""
    if result.passed:
        return ""
    for turn in result.turns or []:
        if not turn.passed:
            reason = _turn_reason(turn.errors, turn.tool_mismatches, turn.metric_results)
            if reason:
                return f"turn {turn.turn_index}: {reason}"
    mismatches = [d.unmatched_reason for d in result.arg_match_details or [] if d.unmatched_reason]
    return _turn_reason(result.errors, mismatches, result.metric_results) or "failed"


def print_summary(report: Report, console: Console, quiet: bool = False) -> None:
    s = report.summary
    if not quiet:
        table = Table(
            title=f"{report.run.suite_name} — run {report.run.id[:12]}", title_justify="left"
        )
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
