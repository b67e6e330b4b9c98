"""Talking to the travel agent's HTTP server from the tests."""

from __future__ import annotations

from typing import Any

import aiohttp


async def chat(
    http: aiohttp.ClientSession, url: str, query: str, session_id: str, *, status: int = 200
) -> dict[str, Any]:
    async with http.post(f"{url}/chat", json={"query": query, "session_id": session_id}) as r:
        body: dict[str, Any] = await r.json()
        assert r.status == status, body
        return body


def calls(reply: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The (name, args) of each tool invocation in a reply."""
    return [(inv["name"], inv["args"]) for inv in reply["tool_invocations"]]
