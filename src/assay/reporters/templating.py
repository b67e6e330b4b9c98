"""The Jinja2 environment the HTML report and the dashboard share: autoescaping on for
everything, so whatever an agent, a judge or a dataset wrote is shown as text, and the
reporters' helpers as filters and globals, so both say what the CLI says."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from assay.reporters.view import (
    STATUS_LABELS,
    display_name,
    file_line,
    fmt_ms,
    fmt_rate,
    fmt_score,
    metric_verdict,
    to_json,
    tool_mismatches,
    truncate,
    turns_cell,
    turns_of,
    why_failed,
    why_turn_failed,
)
from assay.results.rollup import errors_that_broke, result_errors_that_broke

if TYPE_CHECKING:
    import jinja2

MAX_VALUE = 20_000
"""Tool arguments and results are cut to about this many characters of JSON."""
MAX_TEXT = 100_000
"""Inputs and responses are cut to about this many characters."""


def pretty(value: Any) -> str:
    return truncate(to_json(value, indent=2), MAX_VALUE)


def message_text(message: BaseModel | dict[str, Any] | None) -> str:
    """A chat message's text (a trace's model, or a plain mapping); a message without plain
    text content, as JSON."""
    if not message:
        return ""
    if isinstance(message, BaseModel):
        message = message.model_dump(mode="json")
    content = message.get("content")
    return content if isinstance(content, str) else to_json(message, indent=2)


def template_environment(package: str, **options: Any) -> jinja2.Environment:
    """An environment loading ``package``'s ``templates`` folder, with the shared filters and
    globals; the caller adds its own."""
    # imported here: Jinja2 is only needed when an HTML report or a page is rendered
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader(package, "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        **options,
    )
    env.filters.update(
        score=fmt_score,
        ms=fmt_ms,
        rate=fmt_rate,
        pretty=pretty,
        text=lambda s: truncate(s, MAX_TEXT),
        message=message_text,
        file_line=file_line,
    )
    env.globals.update(
        status_label=STATUS_LABELS.get,
        display_name=display_name,
        turns_of=turns_of,
        turns_cell=turns_cell,
        why_failed=why_failed,
        why_turn_failed=why_turn_failed,
        tool_mismatches=tool_mismatches,
        errors_that_broke=errors_that_broke,
        result_errors_that_broke=result_errors_that_broke,
        metric_verdict=metric_verdict,
    )
    return env
