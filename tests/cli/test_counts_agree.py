"""Every output counts statuses the same way: one run with a test of each status, through
the real CLI, gives the same four numbers on the terminal, in the JSON summary, the
Markdown and HTML reports, JUnit XML, and ``assay report`` of the stored run."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.cli.conftest import RunCli

AGENT = """
def respond(query, session_id):
    if query == "boom":
        raise RuntimeError("the agent broke")
    return query.upper()
"""

SUITE = """
name: each-status
target: {python: "agent:respond"}
tests:
  - {name: passes, input: hi, ground_truth: HI}
  - {name: fails, input: hi, ground_truth: BYE}
  - {name: errors, input: boom, ground_truth: X}
  - {name: unchecked, input: hi}
"""

LINE = "4 tests: 1 passed, 1 failed, 1 errored, 1 not run"


def test_every_format_gives_the_same_counts(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(SUITE)
    outs = ["--out", "r.json", "--out", "r.md", "--out", "r.html", "--out", "r.xml"]
    proc = assay_cli("run", "suite.yaml", *outs)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a failure and an error
    assert f"{LINE} — 4 turns" in proc.stdout.splitlines()

    report = json.loads((tmp_path / "r.json").read_text())
    statuses = {r["test_name"]: r["status"] for r in report["results"]}
    assert statuses == {
        "passes": "passed",
        "fails": "failed",
        "errors": "error",
        "unchecked": "not_run",
    }
    s = report["summary"]
    # the contract: failed is every test that did not pass; errored and not_run are in it
    assert (s["total_tests"], s["passed"], s["failed"], s["errored"], s["not_run"]) == (
        4,
        1,
        3,
        1,
        1,
    )

    assert f"**{LINE}**" in (tmp_path / "r.md").read_text()

    html = (tmp_path / "r.html").read_text()
    boxes = dict(
        (label, int(n))
        for n, label in re.findall(
            r"<div[^>]*><b>(\d+)</b>(tests|passed|failed|errored|not run)", html
        )
    )
    assert boxes == {"tests": 4, "passed": 1, "failed": 1, "errored": 1, "not run": 1}

    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    assert suite is not None
    junit = {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")}
    assert junit == {"tests": "4", "failures": "1", "errors": "1", "skipped": "1"}

    run_id = report["run"]["id"]
    stored = assay_cli("report", run_id[:12], "--format", "markdown")
    assert f"**{LINE}**" in stored.stdout
    stored_junit = ET.fromstring(assay_cli("report", run_id[:12], "--format", "junit").stdout)
    assert stored_junit.get("failures") == "1" and stored_junit.get("skipped") == "1"


def test_a_test_that_stops_being_checked_is_a_regression(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    head = 'name: s\ntarget: {python: "agent:respond"}\ntests:\n'
    (tmp_path / "suite.yaml").write_text(head + "  - {name: t, input: hi, ground_truth: HI}\n")
    assert assay_cli("run", "suite.yaml", "--out", "a.json").returncode == 0
    (tmp_path / "suite.yaml").write_text(head + "  - {name: t, input: hi}\n")  # no answer
    assert assay_cli("run", "suite.yaml", "--out", "b.json").returncode == 0
    run_a, run_b = (
        json.loads((tmp_path / f).read_text())["run"]["id"] for f in ("a.json", "b.json")
    )
    diff = assay_cli("diff", run_a, run_b)
    assert diff.returncode == 1, diff.stdout + diff.stderr
    assert re.search(r"regression\s.*\bt\b.*passed.*not_run", diff.stdout), diff.stdout
