"""What the pytest plugin says about assay tests: a failing item's explanation (the one
``assay run`` prints, as plain text) and the session's JSON report, put together from the
runs of its items (one stored run per item; with pytest-xdist, from every worker's)."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.results.models import Report, RunInfo, TestResult
from assay.version import __version__


def failure_text(report: Report, not_passed: list[TestResult]) -> str:
    """The turns that failed, as ``assay run`` explains them, and where the run is stored."""
    from rich.text import Text

    from assay.cli._explain import test_lines

    lines = [Text.from_markup(line).plain for r in not_passed for line in test_lines(r)]
    run_id = report.run.id[:12]
    lines.append(f"stored as run {run_id}: assay report {run_id} --format markdown")
    return "\n".join(lines)


def not_run_reason(not_run: list[TestResult]) -> str:
    from assay.reporters.view import why_failed

    reasons = dict.fromkeys(reason for r in not_run for reason in why_failed(r))
    return "assay: " + ("; ".join(reasons) or "not run")


class Collected:
    """The results of the items that ran, each with its stored run and collection order."""

    def __init__(self, several_suites: bool) -> None:
        self.several_suites = several_suites
        self.items: list[dict[str, Any]] = []

    @staticmethod
    def payload(report: Report, order: tuple[int, int], nodeid: str) -> str:
        """An item's results as JSON text: what xdist sends from a worker to the controller."""
        return json.dumps(
            {
                "order": list(order),
                "nodeid": nodeid,
                "run": report.run.model_dump(mode="json", exclude={"config"}),
                "repeat": report.summary.repeat,
                "results": [r.model_dump(mode="json") for r in report.results],
            }
        )

    def add(self, item: dict[str, Any]) -> None:
        self.items.append(item)

    def report(self, stopped: bool) -> Report:
        """One report for the session, in collection order. With several suites, each test
        is named as its item (``suite.yaml::name``), so names stay unique."""
        from assay.results.rollup import summarize

        items = sorted(self.items, key=lambda i: tuple(i["order"]))
        runs = [RunInfo.model_validate(i["run"]) for i in items]
        results = []
        for item in items:
            for data in item["results"]:
                result = TestResult.model_validate(data)
                if self.several_suites:
                    result.test_name = item["nodeid"]
                results.append(result)
        now = datetime.now(UTC).isoformat()
        names = list(dict.fromkeys(run.suite_name for run in runs))
        targets = {run.target for run in runs}
        info = RunInfo(
            id=uuid.uuid4().hex,
            suite_name=", ".join(names) or "(no assay tests ran)",
            status="interrupted" if stopped else "completed",
            started_at=min((run.started_at for run in runs), default=now),
            finished_at=max((run.finished_at or now for run in runs), default=now),
            assay_version=__version__,
            git_commit=runs[0].git_commit if runs else None,
            target=targets.pop() if len(targets) == 1 else None,
            config={"pytest": {"runs": {i["nodeid"]: i["run"]["id"] for i in items}}},
        )
        repeat = max((i["repeat"] for i in items), default=1)
        return Report(run=info, results=results, summary=summarize(results, repeat))


def write_session_report(collected: Collected, path: Path, stopped: bool) -> str:
    """Write the session's JSON report; say what became of it."""
    from assay.reporters import write_report

    report = collected.report(stopped)
    try:
        write_report(report, path, "json")
    except OSError as exc:
        return (
            f"assay: cannot write the report to {str(path)!r}: {exc.strerror}; each test's "
            "run is stored (assay runs)"
        )
    return f"assay: wrote {path} ({report.summary.total_tests} tests)"
