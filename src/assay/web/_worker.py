"""A dashboard run in a process of its own: ``python -m assay.web._worker FD`` reads what to run
(JSON) from standard input, runs it with ``assay.api.execute`` (as ``assay run`` does), and
reports on file descriptor FD, one JSON object a line, from the run's ``on_start`` and
``on_result`` hooks:

- ``{"event": "started", "run_id", "total", "done"}`` once the run is stored;
- ``{"event": "result", "test", "status", "passed"}`` for each finished test;
- ``{"event": "finished", "run_id", "status", "total", "passed", "failed", "errored",
  "not_run"}`` at the end (the four status counts of ``StatusCounts``);
- ``{"event": "error", "problems": [...], "exit_code"}`` when nothing could run.

A process of its own gives a run what the CLI gives it: Ctrl-C (SIGINT, sent by the server
when it stops) marks the run interrupted with every finished result stored, so it resumes
with ``assay run --resume RUN_ID``; and nothing an agent does can stall the server.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from assay._threads_left import exit_if_threads_left
from assay.api import execute
from assay.errors import AssayError
from assay.results.models import TestResult
from assay.results.rollup import StatusCounts
from assay.runner import RunStart, run_options
from assay.secrets import REDACTOR
from assay.store import open_store

EXIT_INTERRUPTED = 130


class Events:
    """Writes events to the server; a server that went away costs the run nothing."""

    def __init__(self, stream: TextIO) -> None:
        self.stream: TextIO | None = stream

    def emit(self, **event: Any) -> None:
        if self.stream is None:
            return
        try:
            self.stream.write(REDACTOR(json.dumps(event, ensure_ascii=False)) + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.stream = None

    def started(self, start: RunStart) -> None:
        self.emit(event="started", run_id=start.run.id, total=start.total, done=start.done)

    def result(self, result: TestResult) -> None:
        self.emit(event="result", test=result.test_name, status=result.status, passed=result.passed)


def run(spec: dict[str, Any], events: Events) -> int:
    """Run ``spec`` (``store``, ``suite``, ``options``: RunOptions, ``resume``); the exit
    code."""
    store_url = spec.get("store")
    suite = Path(spec["suite"]) if spec.get("suite") else None
    try:
        options = run_options(spec.get("options") or {})
        store = open_store(store_url)
        try:
            outcome = execute(
                suite,
                options,
                store=store,
                store_url=store_url,
                resume=spec.get("resume"),
                on_start=events.started,
                on_result=events.result,
            )
        finally:
            store.close()
    except AssayError as exc:
        problems = [str(p) for p in getattr(exc, "problems", [])] or [str(exc)]
        events.emit(event="error", problems=problems, exit_code=exc.exit_code)
        return exc.exit_code
    except KeyboardInterrupt:
        events.emit(event="error", problems=["stopped before the run started"], exit_code=130)
        return EXIT_INTERRUPTED
    counts = StatusCounts.of(outcome.summary)
    events.emit(
        event="finished",
        run_id=outcome.run.id,
        status=outcome.run.status,
        total=counts.total,
        **dataclasses.asdict(counts),
    )
    if outcome.interrupted:
        return EXIT_INTERRUPTED
    return counts.exit_code()


def main() -> int:
    fd = int(sys.argv[1])
    spec = json.loads(sys.stdin.read())
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        events = Events(stream)
        try:
            return run(spec, events)
        except Exception as exc:  # a bug in assay: say so, rather than vanish
            events.emit(
                event="error",
                problems=[f"the run failed: {type(exc).__name__}: {exc}"],
                exit_code=3,
            )
            raise


if __name__ == "__main__":
    code = main()
    # the run is stored and the server told: threads the user's code left running get a
    # bounded grace, not more (this process would never end, the server waiting on it)
    exit_if_threads_left(code)
    sys.exit(code)
