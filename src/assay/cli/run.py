"""``assay run``: run a suite (and/or datasets) against a target, store every result, report,
and exit 0 (all passed), 1 (some failed), 2 (invalid input), 3 (could not execute).

A thin adapter on ``assay.api.execute``, the run under ``assay.run``: its flags are the
fields of ``RunOptions`` (with their help), and it adds the progress bar, SIGTERM, the
summary and the report files."""

from __future__ import annotations

import functools
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import ParamSpec

import typer

from assay._words import counted
from assay.cli._gc import collector_paused
from assay.cli._out import check_out
from assay.cli._terminal import for_stdout, markup_safe
from assay.cli.app import app, err_console, out_console, user_errors
from assay.cli.report import FORMAT_NAMES
from assay.errors import ConfigError, Problem, StoreError
from assay.run_options import RunOptions

EXIT_INTERRUPTED = 130


_SPELLED = {"datasets": "--dataset", "keyword": "-k", "tags": "--tag"}


def _flag(name: str) -> str:
    """A RunOptions field's flag: ``turn_timeout_s`` is ``--turn-timeout-s``."""
    return _SPELLED.get(name) or "--" + name.replace("_", "-")


# a flag's help is its option's description: one text for the CLI, the API and the docs
HELP = {
    name: markup_safe(field.description or "") for name, field in RunOptions.model_fields.items()
}
DEFAULT_SUITE = "suite.yaml"  # what `assay run` runs when given no suite, dataset or run
P = ParamSpec("P")


def _ends_the_process(command: Callable[P, None]) -> Callable[P, None]:
    """The command, then the process's end with its exit status, without waiting more than
    a bounded grace for the threads the user's code left running (``assay._threads_left``):
    by then the run is stored, its reports written and its summary printed."""

    @functools.wraps(command)
    def ended(*args: P.args, **kwargs: P.kwargs) -> None:
        from assay._threads_left import exit_if_threads_left

        try:
            command(*args, **kwargs)
        except typer.Exit as done:
            exit_if_threads_left(done.exit_code)
            raise
        exit_if_threads_left(0)

    return ended


@app.command()
@_ends_the_process
@user_errors
def run(
    suite: Path | None = typer.Argument(None, help="the suite file (YAML)"),
    datasets: list[Path] = typer.Option([], "--dataset", help=HELP["datasets"]),
    target: str | None = typer.Option(None, "--target", help=HELP["target"]),
    concurrency: int | None = typer.Option(None, "--concurrency", min=1, help=HELP["concurrency"]),
    workers: int | None = typer.Option(None, "--workers", min=1, help=HELP["workers"]),
    executor: str | None = typer.Option(None, "--executor", help=HELP["executor"]),
    ray_address: str | None = typer.Option(None, "--ray-address", help=HELP["ray_address"]),
    repeat: int | None = typer.Option(None, "--repeat", min=1, help=HELP["repeat"]),
    limit: int | None = typer.Option(None, "--limit", min=1, help=HELP["limit"]),
    keyword: str | None = typer.Option(None, "-k", metavar="EXPR", help=HELP["keyword"]),
    tags: list[str] = typer.Option([], "--tag", metavar="TAG", help=HELP["tags"]),
    only_failed: str | None = typer.Option(
        None, "--only-failed", metavar="RUN_ID", help=HELP["only_failed"]
    ),
    turn_timeout_s: float | None = typer.Option(
        None, "--turn-timeout-s", help=HELP["turn_timeout_s"]
    ),
    metric_timeout_s: float | None = typer.Option(
        None, "--metric-timeout-s", help=HELP["metric_timeout_s"]
    ),
    retries: int | None = typer.Option(None, "--retries", min=0, help=HELP["retries"]),
    judge: str | None = typer.Option(None, "--judge", help=HELP["judge"]),
    judge_base_url: str | None = typer.Option(
        None, "--judge-base-url", help=HELP["judge_base_url"]
    ),
    max_file_mb: float | None = typer.Option(None, "--max-file-mb", help=HELP["max_file_mb"]),
    no_cache: bool = typer.Option(False, "--no-cache", help=HELP["no_cache"]),
    out: list[Path] = typer.Option([], "--out", help="write a report here (repeatable)"),
    fmt: list[str] = typer.Option([], "--format", help=f"{FORMAT_NAMES} (repeatable)"),
    store: str | None = typer.Option(
        None, "--store", help="sqlite:///... or postgresql+psycopg://..."
    ),
    resume: str | None = typer.Option(None, "--resume", help="re-run what RUN_ID did not finish"),
    quiet: bool = typer.Option(False, "--quiet", help="print only the totals line"),
    verbose: bool = typer.Option(False, "--verbose", help="explain passing turns too"),
    strict: bool = typer.Option(
        False, "--strict", help="exit 1 when any test was not run (nothing checked on it)"
    ),
    fail_under: str | None = typer.Option(
        None,
        "--fail-under",
        metavar="RATE",
        help="gate: exit 0 when the pass rate is at or above RATE (0.9 or 90%), else 1",
    ),
    baseline: str | None = typer.Option(
        None,
        "--baseline",
        metavar="RUN_ID_OR_REPORT",
        help="gate: compare with this stored run or JSON report (see --max-regressions)",
    ),
    max_regressions: int | None = typer.Option(
        None,
        "--max-regressions",
        min=0,
        metavar="N",
        help="gate: exit 1 when more than N tests that passed in the baseline do not pass now "
        "(default 0)",
    ),
) -> None:
    """Run a suite and report per-turn results."""
    # imported here, not at start-up: `assay --help` lists this command without them
    with collector_paused():
        from assay.cli._progress import execute_with_progress
        from assay.runner import run_options
        from assay.store._deferred import open_store_later

    given = {name: value for name, value in locals().items() if name in RunOptions.model_fields}
    options = run_options(given, spell=_flag)
    if suite is None and not datasets and resume is None and only_failed is None:
        if not Path(DEFAULT_SUITE).is_file():
            raise ConfigError(
                [
                    Problem(
                        "options",
                        "SUITE",
                        f"give a suite file (no {DEFAULT_SUITE} here), or --dataset FILE",
                    )
                ]
            )
        suite = Path(DEFAULT_SUITE)  # the folder `assay init` made
    if ray_address is not None and executor != "ray":
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--ray-address",
                    "it names the Ray cluster for --executor ray: add --executor ray",
                )
            ]
        )
    outputs = _outputs(out, fmt)
    opened = open_store_later(store, collector_paused)  # a new file: at its first use
    verdict = None
    try:
        gate = None
        if fail_under is not None or baseline is not None or max_regressions is not None:
            from assay.cli._gate import read_gate

            gate = read_gate(fail_under, baseline, max_regressions, opened)
        with _sigterm_as_ctrl_c():
            outcome = execute_with_progress(
                suite,
                options,
                opened,
                store,
                resume,
                not quiet,
                None if gate is None else gate.check_names,
            )
        # imported once the run is over: nothing before its first request needs them
        from assay.cli._gate import append_step_summary, print_verdict, step_summary_file
        from assay.cli.summary import exit_code, print_summary

        to_stdout = any(path is None for path, _ in outputs)
        console = err_console if to_stdout else out_console
        print_summary(outcome.run, outcome.summary, outcome.shown, console, quiet, verbose)
        if outcome.interrupted:
            err_console.print(
                f"interrupted: {counted(outcome.summary.total_tests, 'test')} stored; resume with "
                f"[bold]{outcome.resume_command}[/]"
            )
            raise typer.Exit(EXIT_INTERRUPTED)
        not_run_strict = outcome.summary.not_run if strict else 0  # exit 1, gate or none
        if gate is not None:
            verdict = gate.verdict(outcome.summary, outcome.run.id, opened)
            print_verdict(verdict, console, not_run_strict)
        job_summary = step_summary_file()
        report = opened.load_report(outcome.run.id) if outputs or job_summary else None
        if report is not None and job_summary:
            append_step_summary(report, verdict, job_summary, not_run_strict)
        if report is not None:
            from assay.reporters import render, write_report

            for path, f in outputs:
                if path is None:
                    typer.echo(for_stdout(render(report, f)), nl=False)
                else:
                    try:
                        write_report(report, path, f)
                    except OSError as exc:
                        then = (
                            "the run was in an in-memory store, so it is gone: give --out a "
                            "path that can be written"
                            if opened.in_memory
                            else f"the run is stored: assay report {outcome.run.id[:12]} --out "
                            "OTHER_PATH"
                        )
                        raise StoreError(
                            f"cannot write the report to {str(path)!r}: {exc.strerror}; {then}"
                        ) from None
                    console.print(f"wrote {markup_safe(str(path))}")
    finally:
        opened.close()
    code = exit_code(outcome.summary, strict)
    if verdict is not None:  # the gate decides; --strict still asks that every test ran
        code = max(verdict.exit_code, int(strict and outcome.summary.not_run > 0))
    raise typer.Exit(code)


@contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """SIGTERM (a cancelled CI job, ``kill``) stops the run as Ctrl-C does: the run is
    marked interrupted and resumable, exit 130, instead of staying "running" forever. As
    with Ctrl-C, the first stops the run where it next waits (an async agent that holds the
    event loop keeps it until its turn ends); a second forces the stop at once, in the code
    the signal found."""

    signals = 0

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal signals
        signals += 1
        handler = signal.getsignal(signal.SIGINT)  # asyncio's while the loop runs
        if callable(handler):  # its first cancels the run, its second raises in the frame
            handler(signal.SIGINT, frame)
            return
        # SIGINT ignored (a background job): the run's task is cancelled as asyncio's
        # Ctrl-C cancels it, never by a KeyboardInterrupt raised in the frame the signal
        # found (an agent's or a grader's code, which would record it as that turn's error
        # and run on); the second one raises it there, as a second Ctrl-C does, which is
        # then the run's stop
        if signals == 1 and stop_runs_here():
            return
        raise KeyboardInterrupt  # no run going on (starting, or storing what it has)

    from assay._isolation import stop_runs_here

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _outputs(out: list[Path], fmt: list[str]) -> list[tuple[Path | None, str]]:
    """Pair each --out with a format: the --format in the same position, else the extension.
    A --format with no --out prints that report to standard output."""
    if not out and not fmt:
        return []  # no report: the renderers (Jinja2 among them) are never imported
    from assay.reporters import format_for_path

    if len(fmt) > max(len(out), 1):
        raise ConfigError([Problem("options", "--format", "give one --out per --format")])
    if not out:
        return [(None, format_for_path(Path("stdout"), fmt[0]))] if fmt else []
    for path in out:  # checked before the run: a run's hours are not lost to a typo
        check_out(path)
    # made absolute now: an in-process agent that changes the working folder (os.chdir)
    # must not send the reports elsewhere, leaving a stale file where CI reads them
    return [
        (path.absolute(), format_for_path(path, fmt[i] if i < len(fmt) else None))
        for i, path in enumerate(out)
    ]
