"""Python agents for the runner tests, imported by ``module:function`` like users' agents."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import assay

memory: dict[str, list[str]] = {}
sessions_seen: list[str] = []


def remembering(query: str, session_id: str) -> dict[str, Any]:
    """Answers 'what did I say first?' from its own per-session memory."""
    sessions_seen.append(session_id)
    said = memory.setdefault(session_id, [])
    said.append(query)
    if query == "what did I say first?":
        return {"response": said[0]}
    return {
        "response": f"noted {query}",
        "tool_invocations": [{"name": "note", "args": {"text": query}, "result": {"n": len(said)}}],
        "token_usage": {"prompt_tokens": 3, "completion_tokens": 2},
    }


async def async_echo(query: str, session_id: str) -> str:
    await asyncio.sleep(0)
    return query.upper()


def flaky(query: str, session_id: str) -> str:
    if query.startswith("fail"):
        raise RuntimeError(f"cannot handle {query!r}")
    return "ok"


def losing(query: str, session_id: str) -> str:
    if query == "lose":
        raise assay.SessionLost("session expired")
    return "ok"


def slow(query: str, session_id: str) -> str:
    if query == "slow":
        time.sleep(5)  # well past the test's 1 s turn timeout, on any machine
    return "done"


def not_a_reply(query: str, session_id: str) -> int:
    return 42


def silent(query: str, session_id: str) -> dict[str, Any]:
    return {"response": None}  # no text, no tools


def tools_only(query: str, session_id: str) -> dict[str, Any]:
    return {"tool_invocations": [{"name": "lookup", "args": {"q": query}}]}  # no text


def misnamed(query: str, session_id: str) -> dict[str, Any]:
    return {"text": "Paris", "tools": []}  # the answer under another key
