"""The JUnit XML report, read back with ElementTree as a CI system would."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.reporters.junit import render_junit
from assay.results import Report
from tests.reporters.conftest import MISMATCH, XSS, build_report, failing_multi


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.get("name", ""): case for case in root.iter("testcase")}


def test_one_suite_with_the_counts_ci_reads(report: Report) -> None:
    root = ET.fromstring(render_junit(report))
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert len(suites) == 1
    suite = suites[0]
    assert suite.get("name") == "revenue-suite"
    assert {k: suite.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4",
        "failures": "1",
        "errors": "1",
        "skipped": "1",
    }
    assert suite.get("time") == "31.250"  # finished_at - started_at
    assert suite.get("timestamp") == "2026-11-29T10:00:00"
    assert root.get("tests") == "4" and root.get("failures") == "1"
    props = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert props["run_id"] == report.run.id and props["assay_version"] == "0.1.0"


def test_one_testcase_per_test_named_with_its_repeat(report: Report) -> None:
    cases = _cases(ET.fromstring(render_junit(report)))
    assert list(cases) == ["capital", "revenue | dialogue", "timeout#2", "refund-pressure"]
    assert {c.get("classname") for c in cases.values()} == {"assay.revenue-suite"}
    assert cases["capital"].get("time") == "0.012"
    assert cases["revenue | dialogue"].get("time") == "0.750"
    assert len(cases["capital"]) == 1  # only <system-out>
    assert "turn 0: PASSED" in (cases["capital"].findtext("system-out") or "")


def test_a_failed_test_says_why_turn_by_turn(report: Report) -> None:
    case = _cases(ET.fromstring(render_junit(report)))["revenue | dialogue"]
    failure = case.find("failure")
    assert failure is not None and case.find("error") is None
    assert failure.get("message") == f"turn 1: {MISMATCH}"
    text = failure.text or ""
    assert "turn 1: FAILED" in text and "turn 0:" not in text  # only the failing turn
    assert "input: And the change from 2020?" in text
    assert "tool: subtract(a=5120, b=4400)" in text
    assert f"✗ {MISMATCH}" in text
    assert "✗ numeric 0.00: expected 640, got 720" in text
    assert "✗ correctness 0.40 (threshold 0.70): the change is wrong" in text
    out = case.findtext("system-out") or ""
    assert "turn 0: PASSED" in out and "turn 1: FAILED" in out


def test_error_and_not_run(report: Report) -> None:
    cases = _cases(ET.fromstring(render_junit(report)))
    error = cases["timeout#2"].find("error")
    assert error is not None and cases["timeout#2"].find("failure") is None
    assert error.get("message") == "the target timed out after 30 s"
    assert XSS in (error.text or "")  # escaped in the XML, intact once parsed
    skipped = cases["refund-pressure"].find("skipped")
    assert skipped is not None
    assert "simulated-user model" in (skipped.get("message") or "")


def test_characters_xml_cannot_carry_are_replaced() -> None:
    result = failing_multi()
    assert result.turns is not None
    result.turns[1].response = "bell \x07 nul \x00 esc \x1b ok"
    text = render_junit(build_report([result]))
    failure = ET.fromstring(text).find(".//failure")
    assert failure is not None
    assert "bell \ufffd nul \ufffd esc \ufffd ok" in (failure.text or "")
