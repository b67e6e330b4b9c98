"""``TravelAgent``: the in-process travel assistant, one database and many sessions.

``respond(query, session_id)`` returns the same shape as the HTTP body::

    {"response": str,
     "tool_invocations": [{"name", "args", "result", "duration_ms", "error"}, ...],
     "token_usage": {"prompt_tokens", "completion_tokens", "total_tokens"}}

Token usage is word counting, like a model that is sent the whole conversation each
turn: ``prompt_tokens`` = the words (whitespace-split) of every earlier query and reply
in the session plus this query's; ``completion_tokens`` = the words of this reply.

A session is created on first use. ``forget(session_id)`` drops one, and from then on
``respond`` with that id raises ``assay.errors.SessionLost`` (the HTTP server answers 404).
"""

from __future__ import annotations

import threading
from typing import Any

from assay.demo.data import open_database
from assay.demo.intents import Intent, parse
from assay.demo.memory import SessionMemory
from assay.demo.skills import HANDLERS, acknowledge
from assay.demo.tools import ToolBox, ToolContext, close_session, open_session
from assay.errors import SessionLost


class TravelAgent:
    """A deterministic travel assistant (no model) over its own SQLite database.

    Thread-safe: a lock serialises turns, each of which takes well under a millisecond.
    """

    def __init__(self) -> None:
        self._conn = open_database()
        self._sessions: dict[str, SessionMemory] = {}
        self._forgotten: set[str] = set()
        self._lock = threading.Lock()

    def respond(self, query: str, session_id: str) -> dict[str, Any]:
        with self._lock:
            memory = self._session(session_id)
            memory.turn += 1
            parsed = parse(query)
            for key, value in parsed.prefs:
                memory.state_preference(key, value)
            tools = ToolBox(ToolContext(self._conn, session_id))
            reply = HANDLERS[parsed.intent](parsed, memory, tools)
            unreported = tuple(
                pref
                for pref in parsed.prefs
                if not (parsed.intent is Intent.SEARCH_HOTELS and pref[0] == "hotel")
            )
            if unreported and parsed.intent is not Intent.PREFERENCE:
                reply = f"{acknowledge(unreported)} {reply}"
            prompt = memory.history_words + len(query.split())
            completion = len(reply.split())
            memory.history_words = prompt + completion
        return {
            "response": reply,
            "tool_invocations": tools.invocations,
            "token_usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }

    def forget(self, session_id: str) -> bool:
        """Drop a session and its bookings; False if there was no such session."""
        with self._lock:
            if self._sessions.pop(session_id, None) is None:
                return False
            self._forgotten.add(session_id)
            close_session(self._conn, session_id)
            return True

    def close(self) -> None:
        self._conn.close()

    def _session(self, session_id: str) -> SessionMemory:
        memory = self._sessions.get(session_id)
        if memory is None:
            if session_id in self._forgotten:
                raise SessionLost(f"session {session_id!r} was deleted; start a new session id")
            memory = self._sessions[session_id] = SessionMemory()
            open_session(self._conn, session_id)
        return memory
