"""Control characters in every field a reporter renders: JUnit XML stays well-formed with
each of U+0000..U+009F (and the non-characters XML forbids), no NUL reaches the Markdown or
HTML report, and the terminal helper shows every control but newline and tab."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.cli._terminal import markup_safe, visible
from assay.reporters import render_html, render_junit, render_markdown
from assay.results import (
    MetricResult,
    Report,
    RunInfo,
    ToolInvocation,
    TurnResult,
    rollup_multi_turn,
    single_turn_result,
    summarize,
)

EVERY_CONTROL = "".join(chr(c) for c in range(0xA0)) + "\ufffe\uffff\ud800"


def hostile_report() -> Report:
    text = f"<{EVERY_CONTROL}>"
    failing = TurnResult(
        turn_index=0,
        input=text,
        response=text,
        ground_truth=text,
        tool_calls=[text],
        tool_invocations=[ToolInvocation(name=text, args={text: text}, result=text, error=text)],
        metric_results=[
            MetricResult(metric_name=text, score=0.0, passed=False, reasoning=text, error=text)
        ],
        metrics_not_run={text: text},
        passed=False,
        execution_time_ms=1,
        errors=[text],
    )
    unchecked = TurnResult(
        turn_index=0, input=text, response=text, passed=True, execution_time_ms=1
    )
    results = [
        single_turn_result(text, failing, "ts"),
        rollup_multi_turn(text, [failing, unchecked], "ts"),
        single_turn_result("unchecked " + text, unchecked, "ts"),
    ]
    run = RunInfo(id="r" * 32, suite_name=text, started_at="ts", assay_version="0", target=text)
    return Report(run=run, results=results, summary=summarize(results))


def test_junit_is_well_formed_with_every_control_character() -> None:
    root = ET.fromstring(render_junit(hostile_report()))  # expat raises on invalid XML 1.0
    cases = list(root.iter("testcase"))
    assert len(cases) == 3
    assert [c[0].tag for c in cases] == ["error", "error", "skipped"]
    name = cases[0].get("name", "")
    assert "\x1b" not in name and "\ufffd" in name  # XML 1.0 cannot carry ESC at all
    assert "\x80\x81" in name and "\x9e\x9f" in name  # C1 is legal XML 1.0: kept


def test_no_nul_reaches_markdown_or_html_and_the_rest_is_exact() -> None:
    report = hostile_report()
    for rendered in (render_markdown(report), render_html(report)):
        assert "\x00" not in rendered
        assert "\x1b" in rendered and "\x9b" in rendered  # exact otherwise
    html = render_html(report)
    c0 = "".join(chr(c) for c in range(1, 0x20))
    c1 = "".join(chr(c) for c in range(0x7F, 0xA0))
    assert c0 in html and c1 in html  # the reply in a <pre>: each control but NUL as it was


def test_visible_writes_out_every_control_but_newline_and_tab() -> None:
    shown = visible(EVERY_CONTROL + "\x7f é 日本\u00a0")
    assert "\n" in shown and "\t" in shown
    assert all(c in "\n\t" or not (ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0) for c in shown)
    assert visible("\x1b]0;title\x07") == "\\u001b]0;title\\u0007"
    assert visible("\x9b2J\x00\r") == "\\u009b2J\\u0000\\u000d"
    assert visible("café 日本\u00a0") == "café 日本\u00a0"  # printable text is untouched
    assert markup_safe("[bold]\x1b[2J") == "\\[bold]\\u001b[2J"  # rich markup escaped too
