"""The pages' Jinja2 environment: autoescaping on for everything, so whatever an agent, a judge
or a dataset wrote is shown as text; the reporters' helpers say the same things the CLI and
the HTML report say."""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment
from starlette.responses import HTMLResponse

from assay.pricing import cost_usd
from assay.reporters.templating import template_environment
from assay.reporters.view import (
    to_json,
)
from assay.store.queries import RunRow

LONG_VALUE = 300  # a value longer than this starts collapsed


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


@cache
def environment() -> Environment:
    env = template_environment("assay.web")
    env.filters.update(short=short_id, when=when, seconds=seconds, json=to_json, usd=usd)
    env.globals.update(is_long=is_long, query=query, run_cost=run_cost)
    return env


def page(name: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    html = environment().get_template(name).render(**context)
    return HTMLResponse(html, status_code=status_code)
