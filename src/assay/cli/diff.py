"""``assay diff RUN_A RUN_B``: what changed from run A to run B, test by test, and whether the
run-level changes are real (a 95% paired-bootstrap interval); exit 1 on a regression."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import typer

from assay.cli._terminal import markup_safe
from assay.cli.app import app, err_console, out_console, user_errors
from assay.cli.runs import store_option

if TYPE_CHECKING:
    from rich.table import Table

    from assay.store import RunDiff, TestChange
    from assay.store.estimates import Change

_SHOWN = 50  # new/removed tests listed by name; the rest are counted


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _test(name: str, repeat: int) -> str:
    return markup_safe(name + (f" #{repeat + 1}" if repeat else ""))


def _rows(table: Table, change: TestChange) -> None:
    style = "red" if change.direction == "regression" else "green"
    label = f"[{style}]{change.direction}[/]"
    test = _test(change.test_name, change.repeat_index)
    if change.status_a != change.status_b:
        table.add_row(label, test, "(status)", change.status_a, change.status_b)
    for m in change.metrics:
        mark = f"[{'red' if m.direction == 'regression' else 'green'}]{m.direction}[/]"
        verdict_a = "" if m.passed_a is None else (" pass" if m.passed_a else " fail")
        verdict_b = "" if m.passed_b is None else (" pass" if m.passed_b else " fail")
        table.add_row(
            mark,
            test,
            markup_safe(m.metric_name),
            _score(m.score_a) + verdict_a,
            _score(m.score_b) + verdict_b,
        )
    if change.status_a == change.status_b and not change.metrics:
        table.add_row(label, test, "", change.status_a, change.status_b)


def _print(diff: RunDiff) -> None:
    out_console.print(f"run {diff.run_b[:12]} compared with run {diff.run_a[:12]}")
    changes = diff.regressions + diff.improvements
    if changes:
        from rich.table import Table

        table = Table(title_justify="left")
        for column in ("change", "test", "metric", "A", "B"):
            table.add_column(column, overflow="fold")
        for change in changes:
            _rows(table, change)
        out_console.print(table)
    for title, keys in (
        ("new in B", diff.new_tests),
        ("removed from A", diff.removed_tests),
        ("attached files changed (not compared)", diff.files_changed),
    ):
        if keys:
            shown = ", ".join(_test(name, repeat) for name, repeat in keys[:_SHOWN])
            more = f" and {len(keys) - _SHOWN} more" if len(keys) > _SHOWN else ""
            out_console.print(f"{title}: {shown}{more}")
    if diff.flaky:
        shown = ", ".join(markup_safe(f.cell()) for f in diff.flaky[:_SHOWN])
        more = f" and {len(diff.flaky) - _SHOWN} more" if len(diff.flaky) > _SHOWN else ""
        out_console.print(
            f"[yellow]flaky[/] (passed on some runs, failed on others; not counted as "
            f"regressions): {shown}{more}"
        )
    for estimate in ([diff.pass_rate] if diff.pass_rate else []) + diff.metrics:
        out_console.print(_change_line(estimate))
    style = "red" if diff.regressions else "green"
    out_console.print(f"[bold {style}]{markup_safe(diff.summary_line())}[/]")


def _change_line(change: Change) -> str:
    style = {"significantly better": "green", "significantly worse": "red"}.get(change.verdict)
    line = markup_safe(change.line())
    return f"[{style}]{line}[/]" if style else line


@app.command()
@user_errors
def diff(
    run_a: str = typer.Argument(..., help="the earlier run (id or unique prefix)"),
    run_b: str = typer.Argument(..., help="the later run (id or unique prefix)"),
    as_json: bool = typer.Option(False, "--json", help="print the comparison as JSON"),
    store: str | None = store_option(),
) -> None:
    """Compare two stored runs test by test and metric by metric, with a 95% interval on the
    pass-rate and mean-score changes; exit 1 on a regression."""
    from assay.store import open_store

    with open_store(store) as opened:
        result = opened.compare_runs(run_a, run_b)
        suites = [
            info.suite_name for r in (result.run_a, result.run_b) if (info := opened.get_run(r))
        ]
    if len(set(suites)) > 1:  # tests are matched by name: another suite's rarely line up
        a, b = (markup_safe(name) for name in suites)
        err_console.print(
            f"[yellow]warning:[/] the runs come from different suites ('{a}' and '{b}'): "
            "their tests are compared by name"
        )
    if as_json:
        typer.echo(json.dumps(result.to_json(), indent=2))
    else:
        _print(result)
    raise typer.Exit(1 if result.regressions else 0)
