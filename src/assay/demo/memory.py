"""What the travel agent remembers about one conversation (keyed by ``session_id``).

The last list it showed (so "Book the cheapest hotel." has a referent), the last city it
searched, what was booked, stated preferences, the turn count and the number of words
said so far (the "context" its token usage counts).

Flaw, on purpose: a stated preference lives for ``PREFERENCE_TURNS`` turns counting the
turn it was stated in (stated on turn 1: used on turns 1-3, forgotten from turn 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.demo.tools import Row

PREFERENCE_TURNS = 3


@dataclass
class Preference:
    value: str
    turn: int


@dataclass
class SessionMemory:
    turn: int = 0
    history_words: int = 0
    last_kind: str | None = None  # "hotel", "car", "excursion" or "flight"
    last_results: list[Row] = field(default_factory=list)
    last_city: str | None = None
    booked: list[tuple[str, Row]] = field(default_factory=list)  # (kind, item), oldest first
    preferences: dict[str, Preference] = field(default_factory=dict)

    def state_preference(self, key: str, value: str) -> None:
        self.preferences[key] = Preference(value, self.turn)

    def preference(self, key: str) -> str | None:
        pref = self.preferences.get(key)
        if pref is None:
            return None
        if self.turn - pref.turn >= PREFERENCE_TURNS:  # the documented flaw
            del self.preferences[key]
            return None
        return pref.value

    def remember(self, kind: str, rows: list[Row], city: str | None) -> None:
        self.last_kind = kind
        self.last_results = rows
        if city:
            self.last_city = city
