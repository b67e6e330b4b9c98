"""What a loaded dataset is made of: rows (one per turn) grouped into conversations."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class DatasetRow:
    """One row of the file: one turn, with its own expected answer and tools.

    ``row_number`` is where the user finds it: the spreadsheet row (header = row 1) for CSV
    and XLSX, the line number for JSONL. Blank cells are ``None``. ``expected_tools``
    entries are ``{"name": str, "args": dict}``; ``None`` means no tool assertion and ``[]``
    that no tool should be called.
    """

    row_number: int
    question: str
    answer: str | None = None
    context: str | None = None
    expected_tools: list[dict[str, Any]] | None = None
    session_id: str | None = None
    turn_id: str | None = None
    files: tuple[str, ...] = ()  # the files column: paths relative to the dataset's folder


@dataclass
class Conversation:
    """Rows run in one agent session, already in turn order.

    ``session_id`` is the dataset's value (it only groups rows; each run uses a fresh
    session of its own); ``None`` for a row without one, which is a conversation of one.
    """

    session_id: str | None
    rows: list[DatasetRow]

    @property
    def is_multi_turn(self) -> bool:
        """More than one turn: a session_id shared by no other row is a conversation of one."""
        return len(self.rows) > 1
