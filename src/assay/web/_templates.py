"""The pages' Jinja2 environment: autoescaping on for everything, so whatever an agent, a judge
or a dataset wrote is shown as text; the reporters' helpers say the same things the CLI and
the HTML report say."""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from starlette.responses import HTMLResponse

from assay.pricing import cost_usd
from assay.reporters.view import (
    STATUS_LABELS,
    display_name,
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
from assay.store.queries import RunRow

MAX_TEXT = 100_000  # inputs and responses are cut to about this many characters
MAX_VALUE = 20_000  # tool arguments and results, as JSON
LONG_VALUE = 300  # a value longer than this starts collapsed


def pretty(value: Any) -> str:
    return truncate(to_json(value, indent=2), MAX_VALUE)


def is_long(text: str) -> bool:
    return len(text) > LONG_VALUE or text.count("\n") > 8


def run_cost(row: RunRow) -> float | None:
    """What the agent's tokens cost at list price, when it is an OpenAI-compatible model the
    price table knows (``None`` otherwise: never a guess)."""
    target = row.info.config.get("target")
    openai = target.get("openai") if isinstance(target, dict) else None
    model = openai.get("model") if isinstance(openai, dict) else None
    if not isinstance(model, str) or row.summary is None:
        return None
    return cost_usd(model, row.summary.token_usage)


def usd(value: float | None) -> str:
    if value is None:
        return "—"
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def short_id(run_id: str | None) -> str:
    return (run_id or "")[:12]


def when(iso: str | None) -> str:
    return (iso or "")[:16].replace("T", " ")


def seconds(value: float | None) -> str:
    if value is None:
        return "—"
    if value < 60:
        return f"{value:.1f} s"
    minutes, secs = divmod(int(value), 60)
    return (
        f"{minutes} min {secs:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"
    )


def query(params: dict[str, Any], **changes: Any) -> str:
    """``?a=1&b=2`` for a link: ``params`` with ``changes``; empty values and offset 0 are
    left out."""
    merged = {**params, **changes}
    kept = {
        k: v
        for k, v in merged.items()
        if v is not None and v != "" and v is not False and not (k == "offset" and v == 0)
    }
    return "?" + urlencode(kept)


def message_text(message: dict[str, Any] | None) -> str:
    """A chat message's text; a message without plain text content, as JSON."""
    if not message:
        return ""
    content = message.get("content")
    return content if isinstance(content, str) else to_json(message, indent=2)


@cache
def environment() -> Environment:
    env = Environment(
        loader=PackageLoader("assay.web", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(
        score=fmt_score,
        rate=fmt_rate,
        ms=fmt_ms,
        pretty=pretty,
        text=lambda s: truncate(s, MAX_TEXT),
        short=short_id,
        when=when,
        seconds=seconds,
        json=to_json,
        usd=usd,
        message=message_text,
    )
    env.globals.update(
        status_label=STATUS_LABELS.get,
        display_name=display_name,
        turns_of=turns_of,
        turns_cell=turns_cell,
        why_failed=why_failed,
        why_turn_failed=why_turn_failed,
        tool_mismatches=tool_mismatches,
        metric_verdict=metric_verdict,
        is_long=is_long,
        query=query,
        run_cost=run_cost,
    )
    return env


def page(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=status_code)
