"""The HTML report: self-contained, escaped, and complete down to each tool call."""

from __future__ import annotations

from html.parser import HTMLParser

from assay.reporters.html import render_html
from assay.results import Report
from tests.reporters.conftest import MISMATCH, XSS, build_report, failed_goal, passing_single


class _Tags(HTMLParser):
    """Every start tag with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _tags(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Tags()
    parser.feed(page)
    return parser.tags


def test_self_contained_and_escaped(report: Report) -> None:
    page = render_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert XSS not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    tags = _tags(page)
    names = [t for t, _ in tags]
    assert "script" not in names and "link" not in names and "img" not in names
    assert names.count("style") == 1
    external = [a for _, a in tags for v in a.values() if v and "//" in v]
    assert external == []
    assert all((a.get("href") or "#").startswith("#") for t, a in tags if t == "a")


def test_header_totals_and_table(report: Report) -> None:
    page = render_html(report)
    assert "<h1>revenue-suite</h1>" in page
    assert "0123456789abcdef0123456789abcdef" in page and "python:agent:respond" in page
    assert "<b>25.0%</b>pass rate" in page and "<b>2/4</b>turns passed" in page
    rows = [a.get("class") for t, a in _tags(page) if t == "tr" and a.get("class")]
    assert rows == ["row-passed", "row-failed", "row-error", "row-not_run"]


def test_one_details_per_test_failures_open(report: Report) -> None:
    page = render_html(report)
    details = [a for t, a in _tags(page) if t == "details"]
    assert len(details) == 4
    assert ["open" in a for a in details] == [False, True, True, True]
    assert "<b>timeout#2</b>" in page


def test_each_turn_shows_tools_mismatches_and_metrics(report: Report) -> None:
    page = render_html(report)
    assert "Turn 0" in page and "Turn 1" in page
    assert "&#34;b&#34;: 4400" in page  # args as JSON
    assert '<td class="num">3 ms</td>' in page  # duration
    assert '<td class="num">5</td>' in page  # bytes
    assert "tool mismatches" in page
    assert MISMATCH.replace("'", "&#39;") in page
    assert "the change is wrong" in page and '<td class="num">0.70</td>' in page
    assert "the target timed out after 30 s" in page
    assert "simulated-user model" in page
    assert "<h2>Dimensions</h2>" in page and "quality" in page


def test_goal_trace_conversation_and_verdicts() -> None:
    page = render_html(build_report([failed_goal()]))
    assert "goal not achieved" in page
    assert "does not promise refunds outside the policy" in page
    assert "I need a refund, please." in page
    assert "Sure! &lt;script&gt;" in page and XSS not in page


def test_passing_tests_start_closed() -> None:
    page = render_html(build_report([passing_single()]))
    assert [("open" in a) for t, a in _tags(page) if t == "details"] == [False]
