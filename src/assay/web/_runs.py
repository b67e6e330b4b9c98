"""Starting runs from the dashboard and following them: the one place that knows how a run is
started.

Each run is a child process (``assay.web._worker``) in a session of its own, running it with
``assay.api.execute`` as ``assay run`` does; it reports its progress (the run's ``on_start``
and ``on_result`` hooks) over a pipe, read by a thread here into a ``Job``. A process, not
``assay.run_async`` in the server's own loop, because a run is the agent's and the metrics'
code: nothing it does may stall or crash the server, and Ctrl-C must stop it alone.
Stopping the server sends each running child one SIGINT, as Ctrl-C would the CLI: the run
is marked interrupted with every finished result stored, and resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.run_options import RunOptions

RECENT = 10  # finished tests a job remembers, for the live page
STOP_WAIT_S = 60.0  # how long a stopping server waits for its runs to store what they have
FINAL = frozenset({"completed", "interrupted", "failed", "error"})
STATUSES = ("passed", "failed", "errored", "not_run")  # the four counts of StatusCounts


@dataclass
class RunSpec:
    """What to run: the options of ``assay run`` the dashboard offers."""

    suite: Path | None = None
    datasets: list[Path] = field(default_factory=list)
    target: str | None = None  # a URL or "demo" (``--target``)
    concurrency: int | None = None
    judge: str | None = None
    judge_base_url: str | None = None
    resume: str | None = None  # a stored run to finish instead

    def options(self) -> RunOptions:
        return RunOptions(
            datasets=[path.resolve() for path in self.datasets],
            target=self.target,
            judge=self.judge,
            judge_base_url=self.judge_base_url,
            concurrency=self.concurrency,
        )


@dataclass
class Job:
    """A run started here, as its events have told it so far."""

    id: str
    label: str
    status: str = "starting"  # starting, running, then one of FINAL
    run_id: str | None = None
    total: int = 0
    done: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_run: int = 0
    recent: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=RECENT))
    problems: list[str] = field(default_factory=list)
    started: float = field(default_factory=time.time)
    version: int = 0  # bumped on every change, so a stream sends only news
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def finished(self) -> bool:
        return self.status in FINAL

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            return {
                "id": self.id,
                "label": self.label,
                "status": self.status,
                "run_id": self.run_id,
                "total": self.total,
                "done": self.done,
                "passed": self.passed,
                "failed": self.failed,
                "errored": self.errored,
                "not_run": self.not_run,
                "recent": list(self.recent),
                "problems": list(self.problems),
                "version": self.version,
            }

    def apply(self, event: dict[str, Any]) -> None:
        with self.lock:
            kind = event.get("event")
            if kind == "started":
                self.status = "running"
                self.run_id = str(event["run_id"])
                self.total = int(event["total"])
                self.done = int(event.get("done", 0))
            elif kind == "result":
                self.done += 1
                self._count(str(event.get("status")))
                self.recent.appendleft({"test": event.get("test"), "status": event.get("status")})
            elif kind == "finished":
                self.status = str(event.get("status") or "completed")
                self.run_id = str(event["run_id"])
                for status in STATUSES:
                    setattr(self, status, int(event.get(status, 0)))
                self.done = int(event["total"])
            elif kind == "error":
                self.status = "error"
                self.problems = [str(p) for p in event.get("problems") or []]
            self.version += 1

    def _count(self, status: str) -> None:
        # a result's status is one of TestResult's; "error" is counted as errored
        name = "errored" if status == "error" else status
        if name in STATUSES:
            setattr(self, name, getattr(self, name) + 1)

    def ended(self, returncode: int) -> None:
        """The process is gone: a job it did not finish failed."""
        with self.lock:
            if self.status not in FINAL:
                self.status = "failed"
                self.problems.append(
                    f"the run process stopped unexpectedly (exit code {returncode}); "
                    "see the server's terminal"
                    + (f"; resume it: assay run --resume {self.run_id[:12]}" if self.run_id else "")
                )
            self.version += 1


class Runs:
    """Every run this server started, by job id."""

    def __init__(self, store_url: str | None, cwd: Path) -> None:
        self.store_url = store_url
        self.cwd = cwd
        self.jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._interrupted: set[str] = set()  # one SIGINT each: a second one cuts cleanup short

    def start(self, spec: RunSpec, label: str) -> Job:
        job = Job(id=uuid.uuid4().hex[:12], label=label)
        payload = {
            "store": self.store_url,
            "suite": str(spec.suite.resolve()) if spec.suite else None,
            "options": spec.options().model_dump(mode="json"),
            "resume": spec.resume,
        }
        read_end, write_end = os.pipe()
        try:
            job.process = subprocess.Popen(
                [sys.executable, "-m", "assay.web._worker", str(write_end)],
                stdin=subprocess.PIPE,
                pass_fds=(write_end,),
                cwd=self.cwd,
                start_new_session=True,  # the terminal's Ctrl-C is the server's to pass on
            )
        except OSError:
            os.close(read_end)
            raise
        finally:
            os.close(write_end)
        assert job.process.stdin is not None
        with job.process.stdin as stdin:  # the store URL may hold a password: not in argv
            stdin.write(json.dumps(payload).encode())
        with self._lock:
            self.jobs[job.id] = job
        threading.Thread(target=self._follow, args=(job, read_end), daemon=True).start()
        return job

    @staticmethod
    def _follow(job: Job, read_end: int) -> None:
        with os.fdopen(read_end, "r", encoding="utf-8", errors="replace") as events:
            for line in events:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if isinstance(event, dict):
                    job.apply(event)
        assert job.process is not None
        job.ended(job.process.wait())

    def get(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    def for_run(self, run_id: str) -> Job | None:
        """The latest job of this server that ran ``run_id``."""
        found = [j for j in self.jobs.values() if j.run_id == run_id]
        return max(found, key=lambda j: j.started) if found else None

    def running(self) -> list[Job]:
        return [j for j in self.jobs.values() if j.process is not None and j.process.poll() is None]

    def interrupt_all(self) -> list[Job]:
        """Send each running run one SIGINT (Ctrl-C); returns the jobs signalled."""
        signalled = []
        for job in self.running():
            assert job.process is not None
            if job.id in self._interrupted:
                continue
            self._interrupted.add(job.id)
            try:
                os.kill(job.process.pid, signal.SIGINT)
            except ProcessLookupError:
                continue
            signalled.append(job)
        return signalled

    def wait_all(self, timeout_s: float = STOP_WAIT_S) -> list[Job]:
        """Wait for the running runs to end; returns those still running at the deadline."""
        deadline = time.monotonic() + timeout_s
        for job in self.running():
            assert job.process is not None
            with contextlib.suppress(subprocess.TimeoutExpired):
                job.process.wait(max(0.0, deadline - time.monotonic()))
        return self.running()
