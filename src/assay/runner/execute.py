"""One run from start to report: start the target, run the cases, roll up the summary."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.cases.models import TestCase
from assay.results.models import SCHEMA_VERSION, Report, RunInfo, TestResult
from assay.results.rollup import SummaryBuilder
from assay.runner.conversation import CaseSettings, now_iso
from assay.runner.scheduler import run_cases
from assay.targets.base import Target
from assay.version import __version__


@dataclass
class RunOptions:
    concurrency: int = 16
    repeat: int = 1
    turn_timeout_s: float = 60.0
    limit: int | None = None
    judge: Any = None  # an assay.models chat model, when one is configured
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass
class RunOutcome:
    report: Report

    @property
    def all_passed(self) -> bool:
        return self.report.summary.failed == 0


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


async def execute_run(
    cases: Sequence[TestCase],
    target: Target,
    options: RunOptions,
    suite_name: str,
    config_snapshot: dict[str, Any] | None = None,
    on_result: Callable[[TestResult], None] | None = None,
) -> RunOutcome:
    selected = list(cases[: options.limit] if options.limit is not None else cases)
    run = RunInfo(
        id=options.run_id,
        suite_name=suite_name,
        status="running",
        started_at=now_iso(),
        assay_version=__version__,
        git_commit=git_commit(),
        target=target.description or None,
        config=config_snapshot or {},
    )
    settings = CaseSettings(
        turn_timeout_s=options.turn_timeout_s,
        judge=options.judge,
        run_id=options.run_id,
    )
    collected: dict[int, TestResult] = {}
    summary = SummaryBuilder()

    def sink(position: int, result: TestResult) -> None:
        collected[position] = result
        summary.add(result)
        if on_result is not None:
            on_result(result)

    work = (
        (i * options.repeat + r, case, r)
        for i, case in enumerate(selected)
        for r in range(options.repeat)
    )
    await target.start()
    try:
        await run_cases(work, target, settings, options.concurrency, sink)
    finally:
        await target.aclose()
    run.status = "completed"
    run.finished_at = now_iso()
    results = [collected[k] for k in sorted(collected)]
    report = Report(
        schema_version=SCHEMA_VERSION, run=run, results=results, summary=summary.build()
    )
    return RunOutcome(report)
