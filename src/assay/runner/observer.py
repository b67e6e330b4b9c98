"""The caller's view of a run as it goes: ``on_start`` once the run is stored, ``on_result``
for each test as it finishes (``assay.run(on_start=..., on_result=...)``).

Both are called in the thread that runs the event loop, between two steps of the run, so a
hook must not block (a slow one slows the run). A hook is the caller's code: its exception
costs no result and does not stop the run (nor does its ``sys.exit()`` or a
``GeneratorExit``: they are raised when the run has ended, as an exception is; only Ctrl-C
and a cancellation stop it). Each result is handed to the store before
``on_result`` sees it; after a hook's first exception neither hook is called again, the run
goes on to its end, and then that exception is raised to the caller (``raise_error``),
with a note naming the run, which is stored complete.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from assay.results.models import RunInfo, TestResult

# what a hook may raise to stop the run: the user's Ctrl-C, a cancellation of the run
_STOPS = (KeyboardInterrupt, asyncio.CancelledError)


@dataclass(frozen=True)
class RunStart:
    """What ``on_start`` is given once the run is stored, before its tests run."""

    run: RunInfo
    total: int  # results the run will have: its tests (after limit) times repeat
    done: int  # of those, stored before this call (a resumed run's)
    workers: str = ""  # what runs the tests, when not this one process: "2 worker processes"

    @property
    def remaining(self) -> int:
        return self.total - self.done


OnStart = Callable[[RunStart], object]
OnResult = Callable[[TestResult], object]


class StatusHook:
    """An ``on_result`` hook that reads only each result's status (a progress bar): given
    this, a run on worker processes tells it the status the worker sent instead of parsing
    every result back to hand it over."""

    def __init__(self, on_status: Callable[[str], object]) -> None:
        self.on_status = on_status

    def __call__(self, result: TestResult) -> object:
        return self.on_status(result.status)


class Observer:
    """Calls the caller's hooks; remembers the first exception one raises instead of
    letting it reach the run."""

    def __init__(self, on_start: OnStart | None = None, on_result: OnResult | None = None) -> None:
        self.on_start = on_start
        self.on_result = on_result
        self.error: BaseException | None = None
        self._where = ""

    def started(self, start: RunStart) -> None:
        if self.on_start is not None and self.error is None:
            try:
                self.on_start(start)
            except _STOPS:
                raise
            except BaseException as exc:
                self._failed(exc, "on_start hook")

    @property
    def wants_results(self) -> bool:
        """Whether a hook reads more of a result than its status (``StatusHook``)."""
        return self.on_result is not None and not isinstance(self.on_result, StatusHook)

    def finished_status(self, test_name: str, status: str) -> None:
        """``finished`` for a ``StatusHook``, from a result's name and status alone."""
        hook = self.on_result
        if isinstance(hook, StatusHook) and self.error is None:
            try:
                hook.on_status(status)
            except _STOPS:
                raise
            except BaseException as exc:
                self._failed(exc, f"on_result hook (given test {test_name!r})")

    def finished(self, result: TestResult) -> None:
        if self.on_result is not None and self.error is None:
            try:
                self.on_result(result)
            except _STOPS:
                raise
            except BaseException as exc:
                self._failed(exc, f"on_result hook (given test {result.test_name!r})")

    def _failed(self, exc: BaseException, where: str) -> None:
        self.error, self._where = exc, where

    def raise_error(self, run: RunInfo) -> None:
        """Raise the hook's exception, if one raised, once the run has ended."""
        if self.error is None:
            return
        self.error.add_note(
            f"assay: raised by the {self._where} of run {run.id[:12]}; the run went on "
            f"without calling the hooks again and is stored ({run.status})"
        )
        raise self.error
