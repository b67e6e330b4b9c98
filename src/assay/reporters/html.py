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

from pydantic import BaseModel, ValidationError

from assay.reporters.view import (
    STATUS_LABELS,
    display_name,
    fmt_ms,
    fmt_rate,
    fmt_score,
    repeat_line,
    to_json,
    tool_mismatches,
    truncate,
    turns_cell,
    turns_of,
    turns_passed,
    why_failed,
    why_turn_failed,
    without_nul,
)
from assay.results.models import Report
from assay.results.rollup import StatusCounts
from assay.results.trace import GoalTrace

MAX_VALUE = 20_000
"""Tool arguments and results are cut to about this many characters of JSON."""
MAX_TEXT = 100_000
"""Inputs and responses are cut to about this many characters."""
OPEN_FAILURES = 20
"""Tests that did not pass start expanded when there are at most this many of them."""


def _pretty(value: Any) -> str:
    return truncate(to_json(value, indent=2), MAX_VALUE)


def _goal_trace(trace: dict[str, Any] | None) -> GoalTrace | None:
    """The trace as a GoalTrace, or None when it is absent or has another shape (the
    template then shows it as JSON)."""
    if not trace:
        return None
    try:
        return GoalTrace.model_validate(trace)
    except ValidationError:
        return None


if TYPE_CHECKING:
    import jinja2


def _message_text(message: BaseModel | dict[str, Any] | None) -> str:
    """A trace message's text (the trace's models, or a plain mapping)."""
    if not message:
        return ""
    if isinstance(message, BaseModel):
        message = message.model_dump(mode="json")
    content = message.get("content")
    return content if isinstance(content, str) else to_json(message, indent=2)


@cache
def _environment() -> jinja2.Environment:
    # imported here: Jinja2 is only needed when an HTML report is written
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("assay.reporters", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        score=fmt_score,
        ms=fmt_ms,
        rate=fmt_rate,
        pretty=_pretty,
        text=lambda s: truncate(s, MAX_TEXT),
        message=_message_text,
    )
    env.globals.update(
        status_label=STATUS_LABELS.__getitem__,
        display_name=display_name,
        turns_of=turns_of,
        turns_cell=turns_cell,
        why_failed=why_failed,
        why_turn_failed=why_turn_failed,
        tool_mismatches=tool_mismatches,
        goal_trace=_goal_trace,
    )
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
        )
    )
