"""Why a single-turn test's tool assertion failed is said in its own words, as on a turn of a
multi-turn test: ``'subtract' must not be called, found 1`` for ``count: 0``, ``no call to
'missing' found`` for a name-only check; by every reporter, from the result's
``tool_mismatches``."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.metrics.tools import ExpectedTool, check_expected_tools, parse_matcher
from assay.reporters.html import render_html
from assay.reporters.junit import render_junit
from assay.reporters.markdown import render_markdown
from assay.reporters.view import turns_of, why_failed
from assay.results import TestResult, ToolInvocation, TurnResult, single_turn_result
from tests.reporters.conftest import STARTED, build_report

CALLS = [ToolInvocation(name="lookup"), ToolInvocation(name="subtract", args={"a": 206588})]
COUNT_0 = "'subtract' must not be called, found 1"
MISSING = "no call to 'missing' found"


def checked_single(name: str, expected: list[ExpectedTool]) -> TestResult:
    """A single-turn result as a run makes it: its tools checked by the assertion code."""
    check = check_expected_tools(expected, CALLS)
    turn = TurnResult(
        turn_index=0,
        input="x",
        response="206588",
        expected_tools=[e.normalized() for e in expected],
        tool_calls=[c.name for c in CALLS],
        tool_invocations=CALLS,
        tools_matched=check.tools_matched,
        arg_match_details=check.arg_match_details,
        tool_mismatches=check.mismatches,
        passed=False,
        execution_time_ms=5,
    )
    return single_turn_result(name, turn, STARTED)


def results() -> list[TestResult]:
    return [
        checked_single("cnt0", [ExpectedTool(name="subtract", count=0)]),
        checked_single("miss", [ExpectedTool(name="lookup"), ExpectedTool(name="missing")]),
    ]


def test_why_a_single_turn_test_failed_is_its_tool_mismatch() -> None:
    cnt0, miss = results()
    assert why_failed(cnt0) == [COUNT_0]
    assert why_failed(miss) == [MISSING]
    assert turns_of(cnt0)[0].tool_mismatches == [COUNT_0]


def test_every_reporter_gives_the_reason() -> None:
    report = build_report(results())
    markdown = render_markdown(report)
    assert f"- **Tool mismatch:** {COUNT_0}" in markdown
    assert f"- **Tool mismatch:** {MISSING}" in markdown
    root = ET.fromstring(render_junit(report))
    messages = [f.get("message") for f in root.iter("failure")]
    assert messages == [COUNT_0, MISSING]
    page = render_html(report)
    assert "&#39;subtract&#39; must not be called, found 1" in page
    assert "no call to &#39;missing&#39; found" in page
    for text in (markdown, render_junit(report), page):
        assert "no reason recorded" not in text


def test_a_result_written_without_tool_mismatches_is_still_explained() -> None:
    """A result stored before single-turn results carried ``tool_mismatches``: the argument
    check's reason when it has one; else that the calls did not satisfy the assertion,
    which is true of a ``count: 0`` failure too (not "the tools were not called")."""
    legacy = results()[0].model_dump(mode="json")
    del legacy["tool_mismatches"]
    old = TestResult.model_validate(legacy)
    assert old.tool_mismatches == []
    assert why_failed(old) == ["the tool calls did not satisfy expected_tools (no reason recorded)"]
    args = checked_single(
        "args", [ExpectedTool(name="subtract", args={"a": parse_matcher(5)})]
    ).model_dump(mode="json")
    del args["tool_mismatches"]
    assert why_failed(TestResult.model_validate(args)) == [
        "arg 'a' mismatch: expected 5, got 206588"
    ]
