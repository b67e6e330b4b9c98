"""In-process agents for the HoloDeck vectors: each stands in for one of HoloDeck's stubbed
backends (scripted replies, raised errors, tool calls, token usage), imported by
``module:function`` as a suite's python target would be."""

from __future__ import annotations

import asyncio
import copy
from typing import Any

# input -> what the agent does with it: a reply payload (dict or str), or an exception
# instance to raise. Tests replace it (monkeypatch) before running.
SCRIPT: dict[str, Any] = {}
# what the agents saw and did, in order, for the tests to read
log: list[str] = []
files_seen: list[tuple[str, list[dict[str, Any]]]] = []
live = {"now": 0, "most": 0}


def scripted(query: str, session_id: str) -> Any:
    """Replies, or raises, what SCRIPT says for this input."""
    log.append(query)
    step = SCRIPT[query]
    if isinstance(step, BaseException):
        raise step
    return copy.deepcopy(step)


async def one_at_a_time(query: str, session_id: str) -> str:
    """Logs when each turn starts and ends, yielding in between so any overlap would show."""
    log.append(f"start-{query}")
    await asyncio.sleep(0.01)
    log.append(f"end-{query}")
    return f"r-{query}"


async def counting(query: str, session_id: str) -> str:
    """Counts the conversations in flight at once."""
    live["now"] += 1
    live["most"] = max(live["most"], live["now"])
    try:
        await asyncio.sleep(0.02)
    finally:
        live["now"] -= 1
    return "ok"


async def stalls_on_slow(query: str, session_id: str) -> str:
    """Never answers 'slow' within any test's turn deadline; answers anything else."""
    if query == "slow":
        await asyncio.sleep(60)
    return "second-response"


def reads_files(query: str, session_id: str, files: list[dict[str, Any]] | None = None) -> str:
    files_seen.append((query, list(files or [])))
    return "seen"
