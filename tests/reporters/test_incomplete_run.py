"""A run that did not complete (interrupted; killed, so still "running"; failed) is never
headlined as passed, in any format: its tests without a result are in no count. Here every
test it has a result for passed, the case that used to read "✅ ... 2 passed"."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console
from rich.text import Text

from assay.cli.summary import print_summary
from assay.reporters import render_html, render_junit, render_markdown
from assay.results import Report
from tests.reporters.conftest import build_report, passing_single

STATUSES = ["interrupted", "running", "failed"]


def _report(status: str) -> Report:
    report = build_report([passing_single(), passing_single()])
    report.run.status = status  # type: ignore[assignment]
    return report


@pytest.mark.parametrize("status", STATUSES)
def test_markdown_says_incomplete(status: str) -> None:
    text = render_markdown(_report(status))
    assert text.startswith(f"## ⚠️ assay: revenue-suite — incomplete ({status})\n")
    assert f"**run {status}: results for 2 tests only**: not a passing run" in text
    assert "✅ assay" not in text
    assert render_markdown(_report("completed")).startswith("## ✅ assay: revenue-suite\n")


@pytest.mark.parametrize("status", STATUSES)
def test_junit_has_an_error_ci_counts(status: str) -> None:
    root = ET.fromstring(render_junit(_report(status)))
    suite = root.find("testsuite")
    assert suite is not None
    for element in (root, suite):
        assert (element.get("tests"), element.get("failures"), element.get("errors")) == (
            "3",
            "0",
            "1",
        )
    first = suite.find("testcase")
    assert first is not None and first.get("name") == "assay run incomplete"
    error = first.find("error")
    assert error is not None
    assert error.get("message") == (
        f"run {status}: results for 2 tests only: the tests without one are in no count"
    )
    assert "assay run --resume 0123456789ab" in (error.text or "")
    done = ET.fromstring(render_junit(_report("completed")))
    assert done.get("errors") == "0" and done.get("tests") == "2"
    assert "assay run incomplete" not in render_junit(_report("completed"))


@pytest.mark.parametrize("status", STATUSES)
def test_html_says_incomplete(status: str) -> None:
    page = render_html(_report(status))
    assert f"<title>assay · revenue-suite · incomplete ({status}) · 2/2 passed</title>" in page
    assert f"<b>run {status}: results for 2 tests only</b>: not a passing run" in page
    assert "incomplete" not in render_html(_report("completed")).split("<body>")[1]


@pytest.mark.parametrize("status", STATUSES)
def test_the_terminal_says_incomplete(status: str) -> None:
    report = _report(status)
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=200)
    print_summary(report.run, report.summary, report.results, console, quiet=True)
    raw = out.getvalue()
    plain = Text.from_ansi(raw).plain
    assert f"run {status}: results for 2 tests only — 2 tests: 2 passed" in plain
    assert "\x1b[1;33m" in raw and "\x1b[1;32m" not in raw  # yellow, not a pass's green
