"""A tiny example agent for assay's Python target: answers revenue questions from a table,
remembers the year a conversation is about, and reports the tools it calls."""

from __future__ import annotations

import re
from typing import Any

REVENUE = {2019: 3900.0, 2020: 4480.0, 2021: 5120.0, 2022: 5010.0}
_memory: dict[str, int] = {}  # session id -> the year last asked about


def _call(name: str, args: dict[str, Any], result: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "result": result, "duration_ms": 0, "error": None}


def respond(query: str, session_id: str) -> dict[str, Any]:
    text = query.lower()
    year_match = re.search(r"\b(20\d\d)\b", text)
    if "capital of france" in text:
        return {
            "response": "Paris",
            "tool_invocations": [_call("lookup", {"q": "France"}, "Paris")],
        }
    if "revenue" in text and year_match:
        year = int(year_match.group(1))
        _memory[session_id] = year
        value = REVENUE.get(year)
        call = _call("lookup_revenue", {"year": year}, value)
        answer = f"{value:,.0f}" if value is not None else "unknown"
        return {
            "response": answer,
            "tool_invocations": [call],
            "token_usage": {"prompt_tokens": len(query.split()), "completion_tokens": 1},
        }
    if "change" in text or "difference" in text:
        year = _memory.get(session_id)
        if year is None:
            return {"response": "Which year do you mean?", "tool_invocations": []}
        previous = year - 1
        a, b = REVENUE[year], REVENUE.get(previous, 0.0)
        calls = [
            _call("lookup_revenue", {"year": previous}, b),
            _call("subtract", {"a": a, "b": b}, a - b),
        ]
        return {"response": f"{a - b:g}", "tool_invocations": calls}
    return {"response": "I don't know.", "tool_invocations": []}
