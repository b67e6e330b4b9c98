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


_new = object.__new__
(
    _set_row_number,
    _set_question,
    _set_answer,
    _set_context,
    _set_expected_tools,
    _set_session_id,
    _set_turn_id,
    _set_files,
) = (
    getattr(DatasetRow, name).__set__  # each field's slot, set as __init__ sets it
    for name in DatasetRow.__dataclass_fields__
)


def dataset_row(
    row_number: int,
    question: str,
    answer: str | None,
    context: str | None,
    expected_tools: list[dict[str, Any]] | None,
    session_id: str | None,
    turn_id: str | None,
    files: tuple[str, ...],
) -> DatasetRow:
    """``DatasetRow(...)`` with every field, made by setting its slots directly: the frozen
    ``__init__``'s ``object.__setattr__`` per field is half of reading a row."""
    row: DatasetRow = _new(DatasetRow)
    _set_row_number(row, row_number)
    _set_question(row, question)
    _set_answer(row, answer)
    _set_context(row, context)
    _set_expected_tools(row, expected_tools)
    _set_session_id(row, session_id)
    _set_turn_id(row, turn_id)
    _set_files(row, files)
    return row


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
