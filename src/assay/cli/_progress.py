"""Live progress for ``assay run``: a rich bar on a terminal, plain lines otherwise, fed by
the run's ``on_start`` and ``on_result`` hooks."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from rich.console import Console

from assay.api import execute
from assay.results.models import TestResult
from assay.results.rollup import StatusCounts
from assay.run_options import RunOptions
from assay.runner.observer import RunStart, StatusHook
from assay.runner.outcome import JobOutcome

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

    from assay.store import Store

PLAIN_INTERVAL_S = 5.0


class RunProgress:
    """Counts finished tests; draws a bar (terminal) or prints a line every few seconds.
    ``start`` when the run's size is known, ``stop`` when it ends (or use ``with``)."""

    def __init__(
        self, total: int = 0, console: Console | None = None, enabled: bool = True
    ) -> None:
        self.total = total
        self.done = 0
        self._statuses: dict[str, int] = {}  # status -> tests finished with it
        self.console = console or Console(stderr=True, emoji=False)
        self.enabled = enabled
        self.started = time.monotonic()
        self._last_line = self.started
        self._bar: Progress | None = None
        self._task: TaskID | None = None
        if enabled and self.console.is_terminal:
            # imported here: a run in CI (no terminal) or --quiet draws no bar
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(
                TextColumn("[bold]running"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"),
                TextColumn("{task.fields[rate]:.1f}/s"),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=self.console,
                transient=True,
            )

    def start(self, start: RunStart) -> None:
        """``on_start``: the tests left to run are the bar's total."""
        self.total = start.remaining
        if self.enabled and start.workers:
            self.console.print(f"running on {start.workers}", highlight=False)
        self.started = self._last_line = time.monotonic()
        self.__enter__()

    def stop(self) -> None:
        self.__exit__()

    def __enter__(self) -> RunProgress:
        if self._bar is not None and self._task is None:
            self._bar.start()
            counts = self.counts.words()
            self._task = self._bar.add_task("run", total=self.total, counts=counts, rate=0.0)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.stop()

    @property
    def counts(self) -> StatusCounts:
        """The finished tests by status (made when shown, not once per test)."""
        statuses = self._statuses
        return StatusCounts(
            passed=statuses.get("passed", 0),
            failed=statuses.get("failed", 0),
            errored=statuses.get("error", 0),
            not_run=statuses.get("not_run", 0),
        )

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.done / elapsed if elapsed > 0 else 0.0

    def advance(self, result: TestResult) -> None:
        self.advance_status(result.status)

    def advance_status(self, status: str) -> None:
        """One more test finished, with this status (all the bar reads of a result)."""
        self.done += 1
        statuses = self._statuses
        statuses[status] = statuses.get(status, 0) + 1
        if not self.enabled:
            return
        if self._bar is not None and self._task is not None:
            self._bar.update(
                self._task,
                completed=self.done,
                counts=self.counts.words(),
                rate=self.rate,
            )
            return
        now = time.monotonic()
        if now - self._last_line >= PLAIN_INTERVAL_S or self.done == self.total:
            self._last_line = now
            if sys.stderr is None or sys.stderr.closed:  # an in-process agent closed it
                reopen_closed_streams()
            self._plain(sys.stderr)

    def _plain(self, stream: TextIO) -> None:
        rate = self.rate
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        print(
            f"progress: {self.done}/{self.total} tests, {self.counts.words()}, "
            f"{rate:.1f}/s, eta {eta:.0f}s",
            file=stream,
            flush=True,
        )


def execute_with_progress(
    suite: Path | None,
    options: RunOptions,
    store: Store,
    store_url: str | None,
    resume: str | None = None,
    enabled: bool = True,
    check_names: Callable[[list[str]], None] | None = None,
) -> JobOutcome:
    """``assay.api.execute`` with the progress bar drawn from the run's start to its end;
    ``check_names`` is execute's."""
    kept = sys.stdout, sys.stderr  # as the run found them: an in-process agent may replace them
    progress = RunProgress(enabled=enabled)
    try:
        return execute(
            suite,
            options,
            store=store,
            store_url=store_url,
            resume=resume,
            on_start=progress.start,
            on_result=StatusHook(progress.advance_status),  # a status: nothing parsed back
            check_names=check_names,
        )
    finally:
        # before the bar's last line and the summary: streams an in-process agent replaced
        # (a library silencing output) put back, closed ones reopened
        sys.stdout, sys.stderr = kept
        reopen_closed_streams()
        progress.stop()


def reopen_closed_streams() -> None:
    """Put back ``sys.stdout`` and ``sys.stderr`` when an in-process agent closed them, so
    the run's summary and its reports still go out: closing Python's own streams leaves
    their file descriptors (1 and 2) open."""
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is not None and stream.closed:
            encoding = getattr(stream, "encoding", None) or "utf-8"
            errors = getattr(stream, "errors", None) or "strict"
            again = open(fd, "w", encoding=encoding, errors=errors, closefd=False)  # noqa: SIM115
            again.reconfigure(line_buffering=True)
            setattr(sys, name, again)
