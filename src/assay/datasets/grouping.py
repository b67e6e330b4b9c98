"""Session grouping: rows sharing a ``session_id`` form one conversation.

Conversations keep the order of their first row. Within one, turns whose ``turn_id`` is a
number come first, ordered as numbers (``10`` after ``9``); turns with a blank or other
turn_id follow them in file order (the reference dataset service's rule: a stray blank
turn does not scramble the rest). A row without a session_id is a conversation of
one. A file is MULTI-TURN when some conversation has more than one turn: one whose every
``session_id`` differs from the others assembles no conversation and is SINGLE-TURN.
``SessionTracker`` checks a file as it streams by (for ``assay validate``); ``group_rows``
builds the conversations of a loaded file.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from assay.datasets.model import Conversation, DatasetRow

# What pandas reads as a missing value by default (``pandas.read_csv``'s na_values), and so
# the reference dataset service: a session_id written so is no session, as a blank one.
MISSING_SPELLINGS = frozenset(
    ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN")
    + ("<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
)


def as_number(text: str) -> float | None:
    """``text`` as a finite number, or None (``"1"``, ``"1.0"`` and ``"1e0"`` are all 1)."""
    try:
        value = float(text)
    except ValueError:
        return None
    if "_" in text or not math.isfinite(value):
        return None
    return value


@dataclass(slots=True)
class _Session:
    turns: dict[int | float | str, int] = field(default_factory=dict)  # turn -> its row
    rows: int = 0
    not_a_number: tuple[int, str] | None = None  # the first (row, turn_id) that is not one


@dataclass(frozen=True)
class DuplicateTurn:
    session_id: str
    turn_id: str
    first_row: int


class SessionTracker:
    """Counts conversations and catches duplicated turn ids, one row at a time.

    Memory grows with the number of sessions and turns, never with single-turn rows.
    """

    def __init__(self, has_turn_ids: bool, unit: str = "row") -> None:
        self.has_turn_ids = has_turn_ids
        self.unit = unit
        self.conversations = 0
        self.sessions: dict[str, _Session] = {}
        self.multi_turn = False  # some session has more than one row
        self.spelled_missing: list[tuple[int, str]] = []  # (row, session_id) read as none

    def read_missing(self, row_number: int, session_id: str) -> None:
        """A session_id spelled as a missing value: the row is a conversation of its own."""
        self.conversations += 1
        self.spelled_missing.append((row_number, session_id))

    def track(
        self, row_number: int, session_id: str | None, turn_id: str | None
    ) -> DuplicateTurn | None:
        """Record one row; a turn_id already seen in its session is returned, not recorded."""
        if session_id is None:
            self.conversations += 1
            return None
        session = self.sessions.get(session_id)
        if session is None:
            session = self.sessions[session_id] = _Session()
            self.conversations += 1
        session.rows += 1
        if session.rows == 2:
            self.multi_turn = True
        if not self.has_turn_ids:
            return None
        if turn_id is None:
            if session.not_a_number is None:
                session.not_a_number = (row_number, "")
            return None
        number = as_number(turn_id)
        key: int | float | str
        if number is None:
            key = turn_id
            if session.not_a_number is None:
                session.not_a_number = (row_number, turn_id)
        else:  # 1 == 1.0 as a key either way; small ints are shared, floats are not
            key = int(number) if number.is_integer() else number
        first = session.turns.get(key)
        if first is not None:
            return DuplicateTurn(session_id, turn_id, first)
        session.turns[key] = row_number
        return None

    def warnings(self) -> list[str]:
        return self._missing_warnings() + self._order_warnings()

    def _missing_warnings(self) -> list[str]:
        if not self.spelled_missing:
            return []
        row, written = self.spelled_missing[0]
        more = len(self.spelled_missing) - 1
        also = f" (and {more} more {self.unit}{'s' if more > 1 else ''})" if more else ""
        return [
            f"session_id {written!r} on {self.unit} {row} reads as missing, as pandas and the "
            f"reference dataset service read it, so that {self.unit} is a conversation of its "
            f"own{also}; give it a real session_id to group it"
        ]

    def _order_warnings(self) -> list[str]:
        """Conversations with a turn_id that is not a number: those turns run last."""
        unordered = [
            (sid, s.not_a_number)
            for sid, s in self.sessions.items()
            if s.rows > 1 and s.not_a_number is not None
        ]
        if not unordered:
            return []
        sid, (row, turn_id) = unordered[0]
        what = f"turn_id {turn_id!r}" if turn_id else "a blank turn_id"
        more = f" (and {len(unordered) - 1} more conversations)" if len(unordered) > 1 else ""
        return [
            f"session {sid!r} has {what} on {self.unit} {row}, which is not a number, so that turn "
            f"runs after the numbered ones, in file order{more}; give every turn a number to "
            "order them all by turn_id"
        ]


def group_rows(rows: Iterable[DatasetRow]) -> list[Conversation]:
    """Conversations in order of first appearance, each with its turns in order."""
    conversations: list[Conversation] = []
    by_session: dict[str, Conversation] = {}
    for row in rows:
        if row.session_id is None:
            conversations.append(Conversation(None, [row]))
            continue
        conversation = by_session.get(row.session_id)
        if conversation is None:
            conversation = by_session[row.session_id] = Conversation(row.session_id, [])
            conversations.append(conversation)
        conversation.rows.append(row)
    for conversation in by_session.values():
        _order_turns(conversation)
    return conversations


def _order_turns(conversation: Conversation) -> None:
    """Numbered turns by number, then the others in file order (sorted is stable: ties
    and the unnumbered keep file order)."""
    conversation.rows.sort(key=_turn_order)


def _turn_order(row: DatasetRow) -> tuple[bool, float]:
    number = None if row.turn_id is None else as_number(row.turn_id)
    return (True, 0.0) if number is None else (False, number)
