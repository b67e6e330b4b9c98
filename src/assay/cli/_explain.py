"""Why the tests that did not pass failed, turn by turn, on the terminal: for each failing
turn the input, the agent's reply (trimmed, with its length), the expected answer and every
failed assertion and metric with its reason. ``assay run`` and ``assay demo`` print it after
the table; ``--verbose`` adds the passing turns (and the passing tests a run keeps).

The reasons are the reporters' own (``assay.reporters.view``): the terminal, Markdown, JUnit
and HTML say the same things in the same words. Everything from an agent, a judge or a suite
goes through ``markup_safe``: no escape sequence reaches the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from assay.cli._terminal import markup_safe
from assay.reporters.view import (
    STATUS_LABELS,
    call_text,
    display_name,
    fmt_score,
    metric_verdict,
    test_scoped_failures,
    truncate,
    turns_of,
    why_failed,
    why_turn_failed,
)
from assay.results.models import ReportSummary, TestResult, TurnResult

TEXT_LIMIT = 300  # characters of an input, reply or expected answer shown
MAX_EXPLAINED = 50  # tests explained in full; the rest are counted
_LABEL = 10  # width of the labels, so continued lines line up


def _field(label: str, text: str | None, *, length: bool = False) -> str:
    """``    reply:    Paris is the capital (31 characters)``, continued lines indented."""
    if text is None:
        shown = "[dim](none)[/]"
    else:
        body = truncate(text, TEXT_LIMIT) if text else "(empty)"
        indent = "\n" + " " * (6 + _LABEL)
        shown = markup_safe(body).replace("\n", indent)
        if length:
            shown += f" [dim]({len(text):,} character{'' if len(text) == 1 else 's'})[/]"
    return f"    {label + ':':<{_LABEL}}{shown}"


def _turn_lines(turn: TurnResult, multi: bool) -> list[str]:
    mark = "[green]✓[/]" if turn.passed else "[red]✗[/]"
    lines = [f"  {mark} turn {turn.turn_index}"] if multi else []
    lines.append(_field("input", turn.input))
    if not turn.skipped:
        lines.append(_field("reply", turn.response, length=True))
    if turn.ground_truth is not None:
        lines.append(_field("expected", turn.ground_truth))
    reasons = why_turn_failed(turn)
    if turn.tool_invocations and (turn.tools_matched is False or turn.passed):
        calls = ", ".join(call_text(c.name, c.args) for c in turn.tool_invocations)
        lines.append(_field("tools", calls))
    lines += [f"    [red]✗[/] {markup_safe(reason)}" for reason in reasons]
    if turn.passed:
        lines += [
            f"    [green]✓[/] {markup_safe(m.metric_name)} {fmt_score(m.score)}"
            for m in turn.metric_results
        ]
    return lines


def test_lines(result: TestResult, verbose: bool = False) -> list[str]:
    """The explanation of one test: a header, then each failing turn (every turn with
    ``verbose``), then what failed over the whole test."""
    style = "green" if result.passed else "red"
    mark = "✓" if result.passed else "✗"
    lines = [
        f"[{style}]{mark}[/] [bold]{markup_safe(display_name(result))}[/] "
        f"({result.test_type}, {STATUS_LABELS[result.status]})"
    ]
    turns = [t for t in turns_of(result) if verbose or not t.passed]
    multi = bool(result.turns)
    for turn in turns:
        lines += _turn_lines(turn, multi)
    whole = test_scoped_failures(result)
    lines += [f"  [red]✗[/] whole test: {markup_safe(metric_verdict(m))}" for m in whole]
    if not turns and not whole and not result.passed:
        if result.test_type == "goal":
            lines.append(_field("goal", result.test_input))
            used = (result.trace or {}).get("turns_used")
            if isinstance(used, int):
                lines.append(_field("turns", str(used)))
        lines += [f"    [red]✗[/] {markup_safe(r)}" for r in why_failed(result)]
    return lines


def print_explanation(
    results: Sequence[TestResult],
    summary: ReportSummary,
    run_id: str,
    console: Console,
    verbose: bool = False,
) -> None:
    """Explain the results the run kept for the terminal: every one that did not pass (and,
    with ``verbose``, the passing ones), at most ``MAX_EXPLAINED`` in full."""
    chosen = [r for r in results if verbose or not r.passed]
    if not chosen:
        return
    heading = "every test, turn by turn" if verbose else "why the tests that did not pass failed"
    console.print(f"\n[bold]{heading}[/]")
    for result in chosen[:MAX_EXPLAINED]:
        for line in test_lines(result, verbose):
            console.print(line)
    failing = summary.total_tests - summary.passed
    shown = sum(not r.passed for r in chosen[:MAX_EXPLAINED])
    left = (summary.total_tests if verbose else failing) - len(chosen[:MAX_EXPLAINED])
    if left > 0:
        what = "tests" if verbose else "tests that did not pass"
        console.print(
            f"… {left} more {what} not explained here ({shown} of {failing} failing shown); "
            f"every test, turn by turn: assay report {run_id[:12]} --format markdown"
        )
