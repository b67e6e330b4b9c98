"""Validate an uploaded dataset as ``assay validate`` does (the same function), and preview its
first rows and its conversations' turns in order."""

from __future__ import annotations

import re
from itertools import islice
from pathlib import Path

from assay.datasets import load_dataset, validate_dataset
from assay.datasets.readers import open_table
from assay.errors import DatasetError
from assay.web.schemas import ConversationOut, DatasetCheck, Finding, Turn

PREVIEW_ROWS = 10
PREVIEW_CONVERSATIONS = 20
PREVIEW_TURNS = 50
_WHERE = re.compile(r"^(?:row|line) (\d+)(?:, column (.+))?$")


def _finding(where: str, message: str) -> Finding:
    match = _WHERE.match(where)
    if match is None:
        return Finding(where=where, message=message)
    return Finding(row=int(match[1]), column=match[2], where=where, message=message)


def _preview(path: Path, name: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and first rows as the file has them (nothing when it cannot be read)."""
    try:
        with open_table(path, name) as table:
            return list(table.header), [
                (number, list(cells)) for number, cells in islice(table.rows, PREVIEW_ROWS)
            ]
    except DatasetError:
        return [], []


def check_dataset(path: Path, name: str) -> DatasetCheck:
    """Validate ``path`` (shown as ``name``): the shape line, the column mapping, warnings,
    errors with their row and column, and a preview."""
    header, rows = _preview(path, name)
    try:
        shape = validate_dataset(path)
    except DatasetError as exc:
        return DatasetCheck(
            shape=None,
            kind=None,
            rows=None,
            conversations=None,
            columns={},
            columns_line=None,
            ignored_columns=[],
            warnings=[],
            errors=[_finding(p.path, p.message) for p in exc.problems],
            header=header,
            preview=rows,
            preview_conversations=[],
        )
    conversations = load_dataset(path).conversations
    shown = [
        ConversationOut(
            session_id=conv.session_id,
            turns=[
                Turn(
                    row=r.row_number,
                    turn_id=r.turn_id,
                    question=r.question,
                    answer=r.answer,
                    expected_tools=r.expected_tools,
                )
                for r in conv.rows[:PREVIEW_TURNS]
            ],
        )
        for conv in conversations[:PREVIEW_CONVERSATIONS]
    ]
    return DatasetCheck(
        shape=shape.shape_line(),
        kind=shape.kind,
        rows=shape.rows,
        conversations=shape.conversations,
        columns=dict(shape.column_map),
        columns_line=shape.columns_line(),
        ignored_columns=list(shape.ignored_columns),
        warnings=list(shape.warnings),
        errors=[],
        header=header,
        preview=rows,
        preview_conversations=shown,
        more_conversations=max(0, len(conversations) - PREVIEW_CONVERSATIONS),
    )
