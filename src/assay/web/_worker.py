"""A dashboard run in a process of its own: ``python -m assay.web._worker FD`` reads what to run
(JSON) from standard input, runs it with the runner ``assay run`` uses, and reports on file
descriptor FD, one JSON object a line:

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
from collections.abc import Iterable
from typing import Any, TextIO

from assay.cases.models import TestCase
from assay.errors import AssayError
from assay.models import ChatModel
from assay.results.models import TestResult
from assay.results.rollup import StatusCounts
from assay.runner import RunJob, RunRequest
from assay.runner.conversation import CaseSettings
from assay.runner.scheduler import ResultSink
from assay.secrets import REDACTOR
from assay.store import open_store
from assay.targets.base import Target

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


class ObservedJob(RunJob):
    """A RunJob that reports its run id and each finished test as it goes.

    This hooks the runner's ``_drive``: the one place that sees the run id and every result
    before the public ``assay.run_async(on_result=...)`` exists; replace it with that."""

    def __init__(self, events: Events, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events = events

    async def _drive(
        self,
        target: Target,
        judge: ChatModel | None,
        work: Iterable[tuple[int, TestCase, int]],
        settings: CaseSettings,
        on_result: ResultSink,
    ) -> None:
        work = list(work)
        total = len(self.cases) * self.repeat
        self.events.emit(
            event="started", run_id=settings.run_id, total=total, done=total - len(work)
        )

        def observed(position: int, result: TestResult) -> None:
            on_result(position, result)
            self.events.emit(
                event="result", test=result.test_name, status=result.status, passed=result.passed
            )

        await super()._drive(target, judge, work, settings, observed)


def run(spec: dict[str, Any], events: Events) -> int:
    """Run ``spec`` (``store``, ``request``: RunRequest inputs, ``resume``); the exit code."""
    request = RunRequest.from_inputs(spec.get("request") or {})
    store_url = spec.get("store")
    try:
        store = open_store(store_url)
        try:
            job = ObservedJob(
                events,
                store,
                request,
                resume=spec.get("resume"),
                progress=False,
                store_url=store_url,
            )
            outcome = job.execute()
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
    sys.exit(main())
