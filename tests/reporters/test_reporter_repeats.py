"""What every format adds for ``--repeat K`` runs and for metrics scored over a whole test."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.reporters import render_html, render_junit, render_markdown
from assay.reporters.view import why_failed
from assay.results import MetricResult, Report, summarize
from tests.reporters.conftest import build_report, failing_multi, passing_single


def _repeated() -> Report:
    results = [passing_single() for _ in range(3)]
    results[1].repeat_index, results[2].repeat_index = 1, 2
    results[2].passed, results[2].status = False, "failed"
    report = build_report(results)
    report.summary = summarize(results, repeat=3)
    return report


def test_repeat_statistics_in_every_format() -> None:
    report = _repeated()
    line = "3 runs of each test: pass@1 0.67, pass^3 0.00; flaky: capital"
    assert line in render_markdown(report)
    page = render_html(report)
    assert line in page and "<b>0.67</b>pass@1" in page and "<b>0.00</b>pass^3" in page
    props = {
        p.get("name"): p.get("value") for p in ET.fromstring(render_junit(report)).iter("property")
    }
    assert (props["repeat"], props["pass_at_1"], props["flaky_tests"]) == ("3", "0.67", "capital")
    names = [c.get("name") for c in ET.fromstring(render_junit(report)).iter("testcase")]
    assert names == ["capital", "capital#2", "capital#3"]


def test_junit_gives_each_testcase_its_own_name() -> None:
    # a test named "capital#2" and the second repeat of "capital" would both show as
    # "capital#2": CI tools key results by name, so the later one is told apart
    results = [passing_single() for _ in range(4)]
    results[1].repeat_index = 1
    results[2].test_name = "capital#2"
    results[3].test_name, results[3].repeat_index = "capital#2", 1
    names = [
        c.get("name") for c in ET.fromstring(render_junit(build_report(results))).iter("testcase")
    ]
    assert names == ["capital", "capital#2", "capital#2 (2)", "capital#2#2"]


def test_a_failed_whole_test_metric_is_reported() -> None:
    result = failing_multi()
    result.metric_results.append(
        MetricResult(
            metric_name="trajectory",
            kind="tool",
            score=0.0,
            passed=False,
            reasoning="subtract was called before lookup_revenue",
        )
    )
    reasons = why_failed(result)
    assert reasons[0].startswith("turn 1: ")
    assert reasons[-1] == "trajectory 0.00: subtract was called before lookup_revenue"
    markdown = render_markdown(build_report([result]))
    assert "**Failed metric (whole test):** trajectory 0.00" in markdown
    failure = ET.fromstring(render_junit(build_report([result]))).find(".//failure")
    assert failure is not None
    assert "trajectory 0.00: subtract was called" in (failure.text or "")
    assert "subtract was called before lookup_revenue" in render_html(build_report([result]))
