"""The HTML report: one self-contained file (inline CSS, no scripts, no external assets).

A header and totals, a table of tests coloured by status, and for each test a
``<details>`` with every turn: input, response, ground truth, tool invocations, tool
mismatches and each metric's score, threshold and reasoning; then scores per metric and
per dimension. Rendered by Jinja2 with autoescaping on, so nothing an agent says can become
markup.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay.reporters.templating import template_environment
from assay.reporters.view import (
    incomplete_line,
    repeat_line,
    turns_passed,
    without_nul,
)
from assay.results.models import Report
from assay.results.rollup import StatusCounts
from assay.results.trace import GoalTrace

if TYPE_CHECKING:
    import jinja2

OPEN_FAILURES = 20
"""Tests that did not pass start expanded when there are at most this many of them."""


def goal_trace(trace: dict[str, Any] | None) -> GoalTrace | None:
    """The trace as a GoalTrace, or None when it is absent or has another shape (the
    template then shows it as JSON); the dashboard's test page reads it too."""
    if not trace:
        return None
    try:
        return GoalTrace.model_validate(trace)
    except ValidationError:
        return None


@cache
def _environment() -> jinja2.Environment:
    env = template_environment("assay.reporters", keep_trailing_newline=True)
    env.globals.update(goal_trace=goal_trace)
    return env


def render_html(report: Report) -> str:
    failing = sum(not r.passed for r in report.results)
    template = _environment().get_template("report.html.j2")
    return without_nul(
        template.render(
            report=report,
            run=report.run,
            summary=report.summary,
            counts=StatusCounts.of(report.summary),
            turns_passed=turns_passed(report),
            open_failures=failing <= OPEN_FAILURES,
            repeats=repeat_line(report.summary),
            incomplete=incomplete_line(report.run.status, report.summary.total_tests),
        )
    )
