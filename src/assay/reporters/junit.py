"""The JUnit XML report, in the shape GitHub Actions, GitLab and Jenkins read.

One ``<testsuite>`` (inside ``<testsuites>``) per run and one ``<testcase>`` per test (and
repeat): a failed test carries ``<failure>``, an errored one ``<error>``, one that was not
run ``<skipped>``. The first reason is the ``message``; the per-turn details are the text.
Every test's turns are summarised in ``<system-out>``. A run that did not complete
(interrupted, killed, failed) gets one more testcase, ``assay run incomplete``, with an
``<error>``: its tests without a result are in no count, and CI must not read it as passed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime

from assay._words import unused_name
from assay.reporters.view import (
    STATUS_LABELS,
    call_text,
    display_name,
    fmt_ms,
    fmt_score,
    incomplete_line,
    metric_verdict,
    test_scoped_failures,
    truncate,
    turns_of,
    why_failed,
    why_turn_failed,
)
from assay.results.models import Report, TestResult, TurnResult
from assay.results.rollup import StatusCounts

MAX_MESSAGE = 500
"""A failure's ``message`` attribute is cut to about this many characters."""
MAX_TEXT = 2000
"""Inputs and responses in the element text are cut to about this many characters."""

# Characters XML 1.0 cannot carry at all, even escaped; an agent's reply may hold them.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _run_seconds(report: Report) -> str:
    run = report.run
    if run.finished_at:
        try:
            span = datetime.fromisoformat(run.finished_at) - datetime.fromisoformat(run.started_at)
            return f"{max(span.total_seconds(), 0):.3f}"
        except ValueError:
            pass
    return _seconds(report.summary.execution_time_ms)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines()) or prefix


def _turn_summary(turn: TurnResult, checked: bool = True) -> str:
    """One turn as a few indented lines: verdict, input, response, tools, metrics."""
    verdict = "SKIPPED" if turn.skipped else ("PASSED" if turn.passed else "FAILED")
    verdict = verdict if checked else "NOT CHECKED"
    lines = [f"turn {turn.turn_index}: {verdict} ({fmt_ms(turn.execution_time_ms)})"]
    lines.append("  input: " + _indent(truncate(turn.input, MAX_TEXT)).lstrip())
    if turn.response is not None:
        lines.append("  response: " + _indent(truncate(turn.response, MAX_TEXT)).lstrip())
    if turn.ground_truth is not None:
        lines.append("  ground truth: " + _indent(turn.ground_truth).lstrip())
    for call in turn.tool_invocations:
        lines.append("  tool: " + truncate(call_text(call.name, call.args), MAX_TEXT))
    for metric in turn.metric_results:
        mark = {True: "ok", False: "FAILED", None: "-"}[metric.passed]
        bar = "" if metric.threshold is None else f" (threshold {fmt_score(metric.threshold)})"
        lines.append(f"  metric {metric.metric_name}: {fmt_score(metric.score)}{bar} {mark}")
    for name, why in turn.metrics_not_run.items():
        lines.append(f"  metric {name}: not run ({why})")
    return "\n".join(lines)


def _failure_text(result: TestResult) -> str:
    """The text of a ``<failure>`` or ``<error>``: each failing turn, then its reasons."""
    parts = []
    failing = [t for t in turns_of(result) if not t.passed]
    for turn in failing:
        reasons = why_turn_failed(turn)
        parts.append(_turn_summary(turn) + "".join(f"\n  ✗ {r}" for r in reasons))
    if not failing:
        parts += why_failed(result)
    whole = test_scoped_failures(result)
    if whole and failing:
        parts.append("whole test:" + "".join(f"\n  ✗ {metric_verdict(m)}" for m in whole))
    return "\n\n".join(parts)


def _system_out(result: TestResult) -> str:
    turns = turns_of(result)
    head = f"{display_name(result)} ({result.test_type}): {STATUS_LABELS[result.status]}"
    if not turns:
        return "\n".join([head, *why_failed(result)]) if not result.passed else head
    checked = result.status != "not_run"
    if not checked:
        head += "\n" + "\n".join(why_failed(result))
    return "\n\n".join([head, *(_turn_summary(t, checked) for t in turns)])


def _testcase(parent: ET.Element, result: TestResult, classname: str, name: str) -> None:
    case = ET.SubElement(
        parent,
        "testcase",
        classname=classname,
        name=_clean(name),
        time=_seconds(result.execution_time_ms),
    )
    if result.status != "passed":
        message = _clean(truncate(" ".join(why_failed(result)[0].split()), MAX_MESSAGE))
        if result.status == "not_run":
            ET.SubElement(case, "skipped", message=message)
        else:
            tag, kind = ("error", "error") if result.status == "error" else ("failure", "failed")
            element = ET.SubElement(case, tag, message=message, type=kind)
            element.text = _clean(_failure_text(result))
    ET.SubElement(case, "system-out").text = _clean(_system_out(result))


INCOMPLETE_CASE = "assay run incomplete"


def _incomplete_case(parent: ET.Element, report: Report, classname: str, why: str) -> None:
    """The testcase that makes a run that did not complete fail in CI (Jenkins, GitLab and
    GitHub count testcases with an ``<error>``; a testsuite's own attributes they ignore)."""
    case = ET.SubElement(parent, "testcase", classname=classname, name=INCOMPLETE_CASE, time="0")
    message = f"{why}: the tests without one are in no count"
    error = ET.SubElement(case, "error", message=message, type="incomplete")
    error.text = f"{message}; finish it: assay run --resume {report.run.id[:12]}"


def render_junit(report: Report) -> str:
    run, counts = report.run, StatusCounts.of(report.summary)
    incomplete = incomplete_line(run.status, report.summary.total_tests)
    totals = {
        "tests": str(counts.total + bool(incomplete)),
        "failures": str(counts.failed),
        "errors": str(counts.errored + bool(incomplete)),
        "skipped": str(counts.not_run),
        "time": _run_seconds(report),
    }
    root = ET.Element("testsuites", {"name": "assay", **totals})
    suite = ET.SubElement(
        root,
        "testsuite",
        {"name": _clean(run.suite_name), **totals, "timestamp": run.started_at[:19], "id": run.id},
    )
    properties = ET.SubElement(suite, "properties")
    facts = {
        "run_id": run.id,
        "assay_version": run.assay_version,
        "target": run.target,
        "git_commit": run.git_commit,
        "run_status": run.status,
    }
    if report.summary.repeat > 1:
        facts |= {
            "repeat": str(report.summary.repeat),
            "pass_at_1": fmt_score(report.summary.pass_at_1),
            "pass_all_k": fmt_score(report.summary.pass_all_k),
            "flaky_tests": ", ".join(report.summary.flaky_tests),
        }
    for key, value in facts.items():
        if value is not None:
            ET.SubElement(properties, "property", name=key, value=_clean(value))
    classname = "assay." + _clean(run.suite_name)
    # one name per testcase: CI tools key results by it, and a test named "a#2" beside the
    # second repeat of "a" would share one; the later gets " (2)"
    taken: set[str] = set()
    if incomplete:
        _incomplete_case(suite, report, classname, incomplete)
        taken.add(INCOMPLETE_CASE)
    for result in report.results:
        name = unused_name(display_name(result), taken)
        taken.add(name)
        _testcase(suite, result, classname, name)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"
