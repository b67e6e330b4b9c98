"""The Markdown report: header, totals, the table, why each test failed, mean scores; and
that nothing in the results can break out of its cell or its code span."""

from __future__ import annotations

import html
import re

import pytest
from markdown_it import MarkdownIt

from assay.reporters.markdown import MAX_TABLE_ROWS, md_cell, md_code, render_markdown
from assay.results import MetricResult, Report, TestResult, TurnResult, rollup_multi_turn
from tests.reporters.conftest import (
    MISMATCH,
    STARTED,
    XSS,
    build_report,
    failed_goal,
    failing_multi,
    passing_single,
)

_MD = MarkdownIt("commonmark").enable("table")


def _html(markdown: str) -> str:
    return str(_MD.render(markdown))


def _plain(markdown: str) -> str:
    """The text a reader sees, without markup."""
    return html.unescape(re.sub(r"<[^>]+>", "", _html(markdown)))


def _table_rows(markdown: str) -> list[list[str]]:
    """Every body row of the first table, as the plain text of its cells."""
    table = _html(markdown).split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
    return [[html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", r, re.S)] for r in rows]


def test_header_and_totals(report: Report) -> None:
    text = render_markdown(report)
    first = text.splitlines()[0]
    assert first.startswith("## ❌ assay: revenue-suite")
    plain = _plain(text)
    for fact in ("0123456789ab", "2026-11-29T10:00:00", "python:agent:respond", "assay 0.1.0"):
        assert fact in plain
    assert "4 tests: 1 passed, 1 failed, 1 errored, 1 not run" in plain
    assert "pass rate 25.0%" in plain
    assert "4 turns (2 passed)" in plain  # 1 + 2 + 1, and none for the goal test not run


def test_table_has_one_row_per_test_with_escaped_cells(report: Report) -> None:
    rows = _table_rows(render_markdown(report))
    assert len(rows) == 4
    assert all(len(row) == 6 for row in rows)  # the '|' in a name did not split a cell
    names = [row[0] for row in rows]
    assert names == ["capital", "revenue | dialogue", "timeout#2", "refund-pressure"]
    by_name = {row[0]: row for row in rows}
    assert by_name["revenue | dialogue"][1:4] == ["multi_turn", "❌ failed", "1/2"]
    assert "numeric 0.50 ✗" in by_name["revenue | dialogue"][5]
    assert "correctness 0.40 ✗" in by_name["revenue | dialogue"][5]
    assert by_name["timeout#2"][2] == "💥 error"
    assert by_name["refund-pressure"][2:4] == ["⏭️ not run", "—"]  # a goal test has no turn list


def test_each_failed_turn_says_why(report: Report) -> None:
    text = render_markdown(report)
    failures = _plain(text.split("### What did not pass", 1)[1])
    assert "capital" not in failures  # passing tests get no section
    assert "Turn 1 ❌ failed" in failures
    # the passing turn has its row, input and reply, but none of a failing turn's detail
    assert "Turn 0 ✅ passed — 300 ms · numeric 1.00" in failures
    assert "Input: Revenue in 2021?" in failures and "Ground truth: 5120" not in failures
    assert "And the change from 2020?" in failures
    assert "Ground truth: 640" in failures
    assert f"Tool mismatch: {MISMATCH}" in failures
    assert "Failed metric: numeric 0.00: expected 640, got 720" in failures
    assert "correctness 0.40 (threshold 0.70): the change is wrong" in failures
    assert "more characters]" in failures  # the long response is cut
    assert "Error: the target timed out after 30 s" in failures
    assert "Not run: numeric (the turn failed)" in failures
    assert "simulated-user model" in failures  # the not-run goal test's reason


def test_mean_scores_and_dimensions(report: Report) -> None:
    text = render_markdown(report)
    scores = _plain(text.split("### Mean scores", 1)[1])
    assert "equality1.001" in scores.replace("\n", "")
    assert "correctness0.401" in scores.replace("\n", "")
    dimensions = text.split("### Dimensions", 1)[1]
    assert "| comparison |" in dimensions and "| quality |" in dimensions


def test_user_content_cannot_inject_markup() -> None:
    report = build_report([failing_multi()])
    report.results[0].turns[1].input = XSS + " | `tick` ``"  # type: ignore[index]
    html_out = _html(render_markdown(report))
    assert "<script>" not in html_out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html_out
    assert md_cell("a|b\nc <i>") == "a\\|b<br>c \\<i\\>"
    assert _plain(md_code("a `b` c")).strip() == "a `b` c"


def test_goal_failure_names_the_unmet_behaviour() -> None:
    text = _plain(render_markdown(build_report([failed_goal()])))
    assert "Goal: Get a refund for a non-refundable ticket" in text
    assert "prohibited behaviour occurred: does not promise refunds outside the policy" in text


def test_all_passing_report_is_short() -> None:
    text = render_markdown(build_report([passing_single()]))
    assert text.startswith("## ✅ assay: revenue-suite")
    assert "What did not pass" not in text


def test_a_large_run_lists_only_the_tests_that_did_not_pass() -> None:
    results = [passing_single() for _ in range(MAX_TABLE_ROWS + 50)] + [failing_multi()]
    text = render_markdown(build_report(results))
    rows = _table_rows(text)
    assert [row[0] for row in rows] == ["revenue | dialogue"]
    assert f"{MAX_TABLE_ROWS + 50} more tests (passing) not listed" in _plain(text)


def test_an_underscore_inside_a_word_stays_as_typed_and_emphasis_is_still_escaped() -> None:
    """A name like capital_of_france can be searched for in a job summary as typed; an
    underscore that could open or close emphasis is escaped."""
    assert md_cell("capital_of_france") == "capital_of_france"
    assert md_cell("_loud_ and __bold__ x_") == r"\_loud\_ and \_\_bold\_\_ x\_"
    rendered = MarkdownIt().render(md_cell("_loud_ snake_case __bold__"))
    assert "<em>" not in rendered and "<strong>" not in rendered
    assert "_loud_ snake_case __bold__" in html.unescape(rendered)


def test_a_multi_turn_test_has_a_row_per_turn_under_its_own_heading() -> None:
    """HoloDeck's layout: the test, then Turns, then one deeper heading per turn; a turn's
    row carries its status, time, tool match and each metric's score."""
    text = render_markdown(build_report([failing_multi()]))
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[1:5] == [
        "### What did not pass",
        "#### ❌ revenue \\| dialogue (multi_turn, failed)",
        "##### Turns",
        "###### Turn 0 ✅ passed — 300 ms · numeric 1.00",
    ]
    assert headings[5] == (
        "###### Turn 1 ❌ failed — 450 ms · tools ❌ · numeric 0.00 ✗ · correctness 0.40 ✗"
    )


def test_a_passing_multi_turn_test_is_shown_turn_by_turn() -> None:
    multi = failing_multi()
    turns = [t.model_copy(update={"passed": True, "metric_results": []}) for t in multi.turns or []]
    passed = rollup_multi_turn("dialogue", turns, STARTED)
    assert passed.passed
    text = render_markdown(build_report([passing_single(), passed]))
    section = _plain(text.split("### Multi-turn tests that passed", 1)[1])
    assert "✅ dialogue (multi_turn, passed)" in section
    assert "Turn 0 ✅ passed" in section and "Turn 1 ✅ passed — 450 ms · tools ❌" in section
    assert "capital" not in section  # a single-turn test has no turns to show
    assert "more characters]" in section  # a passed turn's reply is cut shorter
    assert "What did not pass" not in text


def test_a_multi_turn_test_failed_by_a_whole_test_metric_still_shows_its_turns() -> None:
    multi = failing_multi()
    turns = [t.model_copy(update={"passed": True, "metric_results": []}) for t in multi.turns or []]
    whole = MetricResult(metric_name="trajectory", score=0.0, passed=False, reasoning="order")
    result = rollup_multi_turn("dialogue", turns, STARTED)
    result = result.model_copy(
        update={"metric_results": [whole], "passed": False, "status": "failed"}
    )
    failures = _plain(render_markdown(build_report([result])).split("### What did not pass")[1])
    assert "Turn 0 ✅ passed" in failures and "Turn 1 ✅ passed" in failures
    assert "Failed metric (whole test): trajectory 0.00: order" in failures


def test_a_failed_goal_test_with_turns_shows_its_goal_and_unmet_behaviours() -> None:
    goal = failed_goal()
    goal.turns = [
        TurnResult(
            turn_index=0,
            input="I need a refund.",
            response="Sure!",
            passed=True,
            execution_time_ms=300,
        )
    ]
    section = render_markdown(build_report([goal])).split("### What did not pass", 1)[1]
    assert section.index("**Goal:**") < section.index("##### Turns")
    assert "Get a refund for a non-refundable ticket" in section
    assert "prohibited behaviour occurred: does not promise refunds outside the policy" in section


def _long_multi_turn(name: str, passed: bool) -> TestResult:
    turns = [
        TurnResult(
            turn_index=k,
            input="q" * 300,
            response="a" * 300,
            passed=passed,
            execution_time_ms=100,
            **CHECKED,
        )
        for k in range(6)
    ]
    return rollup_multi_turn(name, turns, STARTED)


CHECKED = {"metric_results": [MetricResult(metric_name="equality", score=1.0, passed=True)]}


@pytest.mark.parametrize("passed", [True, False])
def test_many_long_multi_turn_tests_stay_within_a_comment(passed: bool) -> None:
    """50 tests of six 300-character turns: 175,000 characters of turns, where a GitHub
    comment takes 65,536; the sections stop in time and count the rest."""
    results = [_long_multi_turn(f"t{i}", passed) for i in range(50)]
    markdown = render_markdown(build_report(results))
    assert len(markdown) < 65_536
    shown = len(re.findall(r"^#### ", markdown, re.M))
    assert 1 <= shown < 50
    assert f"_…and {50 - shown} more; the HTML or JSON report has every test._" in markdown
