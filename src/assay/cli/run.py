"""``assay run``: run a suite (and/or datasets) against a target, report, store, exit 0/1/2/3."""

from __future__ import annotations

import asyncio
from pathlib import Path

import typer

from assay.cli.app import app, err_console, out_console, user_errors
from assay.cli.summary import print_summary
from assay.errors import ConfigError, Problem
from assay.reporters import format_for_path, render, write_report
from assay.runner import RunOptions, execute_run
from assay.runner.plan import RunPlan, plan_run


@app.command()
@user_errors
def run(
    suite: Path | None = typer.Argument(None, help="the suite file (YAML)"),
    dataset: list[Path] = typer.Option([], "--dataset", help="a CSV/XLSX/JSONL file of tests"),
    target: str | None = typer.Option(None, "--target", help="URL or module:function"),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1),
    repeat: int | None = typer.Option(None, "--repeat", min=1),
    limit: int | None = typer.Option(None, "--limit", min=1),
    out: list[Path] = typer.Option([], "--out", help="write a report here (repeatable)"),
    fmt: list[str] = typer.Option([], "--format", help="json|markdown|junit|html (repeatable)"),
    judge: str | None = typer.Option(None, "--judge", help="PROVIDER:MODEL"),
    quiet: bool = typer.Option(False, "--quiet", help="print only the totals line"),
) -> None:
    """Run a suite and report per-turn results."""
    plan: RunPlan = plan_run(suite, dataset, target, judge)
    outputs = _outputs(out, fmt)
    execution = plan.suite.execution
    options = RunOptions(
        concurrency=concurrency or execution.concurrency,
        repeat=repeat or execution.repeat,
        turn_timeout_s=execution.turn_timeout_s,
        limit=limit,
    )
    outcome = asyncio.run(
        execute_run(plan.cases, plan.make_target(), options, plan.suite.name, plan.snapshot)
    )
    report = outcome.report
    to_stdout = [f for p, f in outputs if p is None]
    console = err_console if to_stdout else out_console
    print_summary(report.run, report.summary, report.results, console, quiet)
    for path, f in outputs:
        if path is None:
            typer.echo(render(report, f), nl=False)
        else:
            write_report(report, path, f)
            console.print(f"wrote {path}")
    raise typer.Exit(0 if outcome.all_passed else 1)


def _outputs(out: list[Path], fmt: list[str]) -> list[tuple[Path | None, str]]:
    """Pair each --out with a format: the --format in the same position, else the extension.
    A --format with no --out prints that report to standard output."""
    if len(fmt) > max(len(out), 1):
        raise ConfigError([Problem("options", "--format", "give one --out per --format")])
    if not out:
        return [(None, format_for_path(Path("stdout"), fmt[0]))] if fmt else []
    return [
        (path, format_for_path(path, fmt[i] if i < len(fmt) else None))
        for i, path in enumerate(out)
    ]
