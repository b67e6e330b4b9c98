"""Reading a dataset file: ``validate_dataset`` (streaming, for ``assay validate``) and
``load_dataset`` (the rows, grouped into conversations, for a run).

Both go through one scan, so they accept and refuse exactly the same files and say the
same things about them. Problems are collected (up to ``MAX_PROBLEMS``) and raised together
as one DatasetError naming the file, the row and the column as the user wrote it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from assay._json import load_bounded
from assay.datasets.columns import (
    ANSWER,
    CONTEXT,
    FILES,
    QUESTION,
    SESSION,
    TOOLS,
    TURN,
    ColumnPlan,
    column_warnings,
    resolve_columns,
)
from assay.datasets.grouping import MISSING_SPELLINGS, SessionTracker, group_rows
from assay.datasets.model import Conversation, DatasetRow, dataset_row
from assay.datasets.readers import Table, open_table
from assay.datasets.shape import ShapeReport
from assay.datasets.tool_calls import ToolCallsError, parse_expected_tools
from assay.errors import DatasetError, Problem
from assay.limits import name_problem

MAX_PROBLEMS = 20

PathLike = str | os.PathLike[str]


@dataclass(frozen=True)
class Dataset:
    """A loaded dataset: its conversations (turns in order) and its shape."""

    path: Path
    conversations: list[Conversation]
    shape: ShapeReport

    @property
    def column_map(self) -> dict[str, str]:
        return self.shape.column_map

    @property
    def warnings(self) -> list[str]:
        return self.shape.warnings

    @property
    def rows(self) -> list[DatasetRow]:
        """Every row, conversation by conversation, in turn order."""
        return [row for conversation in self.conversations for row in conversation.rows]


def validate_dataset(path: PathLike) -> ShapeReport:
    """Check a dataset file and report its shape, without keeping its rows in memory.

    Raises DatasetError (unreadable or empty file, no Question column, a bad
    ``expected_tool_calls`` cell, a duplicated turn_id, ...).
    """
    return _scan(path, None)


def load_dataset(path: PathLike) -> Dataset:
    """Read a dataset file into conversations. Raises DatasetError as ``validate_dataset``."""
    rows: list[DatasetRow] = []
    shape = _scan(path, rows.append)
    return Dataset(Path(path), group_rows(rows), shape)


def _scan(path: PathLike, keep: Callable[[DatasetRow], None] | None) -> ShapeReport:
    source = os.fspath(path)
    with open_table(Path(source), source) as table:
        plan = resolve_columns(table)
        table.read_columns = frozenset(plan.index.values())
        problems: list[Problem] = []
        # validating reads the attached files too; a run reads them when it is planned
        check = None if keep is not None else _FileCheck(Path(source).parent)
        try:
            tracker, rows = _scan_rows(table, plan, keep, problems, check)
        except DatasetError as exc:  # a reading error part-way: report it after the others
            raise DatasetError(problems + exc.problems) from None
    if problems:
        if len(problems) >= MAX_PROBLEMS:
            problems.append(
                Problem(source, "", f"stopped after {MAX_PROBLEMS} problems: fix these first")
            )
        raise DatasetError(problems)
    if rows == 0:
        raise DatasetError(
            [Problem(source, "", "the file has a header but no data rows: add one row per test")]
        )
    multi_turn = tracker.multi_turn
    return ShapeReport(
        source=source,
        kind="MULTI-TURN" if multi_turn else "SINGLE-TURN",
        rows=rows,
        conversations=tracker.conversations,
        column_map=plan.column_map,
        warnings=table.warnings
        # a session_id spelled as missing is not blank: its own warning says what it is
        + column_warnings(plan, multi_turn, bool(tracker.sessions or tracker.spelled_missing))
        + tracker.warnings(),
        ignored_columns=plan.ignored,
    )


def _scan_rows(
    table: Table,
    plan: ColumnPlan,
    keep: Callable[[DatasetRow], None] | None,
    problems: list[Problem],
    check: _FileCheck | None = None,
) -> tuple[SessionTracker, int]:
    """The hot loop: one pass over the rows, no per-row allocation beyond the cells."""
    index = plan.index
    q = index[QUESTION]
    a = index.get(ANSWER, -1)
    c = index.get(CONTEXT, -1)
    t = index.get(TOOLS, -1)
    s = index.get(SESSION, -1)
    u = index.get(TURN, -1)
    f = index.get(FILES, -1)
    width = plan.width
    padding = [""] * width
    tracker = SessionTracker(has_turn_ids=u >= 0, unit=table.unit)
    where = table.where
    source = table.source
    rows = 0
    for number, cells in table.rows:
        if len(cells) != width:
            if len(cells) < width:
                cells = cells + padding[len(cells) :]
            else:
                _check_unnamed(table, plan, number, cells, problems)
        question = cells[q]  # test data, kept verbatim; blank only decides the row is empty
        if not question.strip():
            if any(cell.strip() for cell in cells):
                problems.append(
                    Problem(
                        source,
                        where(number, plan.written(QUESTION)),
                        "the question is blank: every row needs one (or delete the row)",
                    )
                )
            continue
        rows += 1
        session_id = cells[s].strip() or None if s >= 0 else None
        turn_id = cells[u].strip() or None if u >= 0 else None
        if session_id is not None or turn_id is not None:  # names to check
            for canonical, value in ((SESSION, session_id), (TURN, turn_id)):
                problem = value and name_problem(value, canonical)
                if problem:
                    at = where(number, plan.written(canonical))
                    problems.append(Problem(source, at, problem))
        if session_id is None:
            tracker.conversations += 1
        elif session_id in MISSING_SPELLINGS:
            tracker.read_missing(number, session_id)
            session_id = None
        else:
            duplicate = tracker.track(number, session_id, turn_id)
            if duplicate is not None:
                problems.append(
                    Problem(
                        source,
                        where(number, plan.written(TURN)),
                        f"turn_id {turn_id!r} appears twice in session {session_id!r} "
                        f"({table.unit}s {duplicate.first_row} and {number}): give each turn "
                        "of a conversation its own turn_id",
                    )
                )
        tools = None
        if t >= 0 and cells[t]:
            try:
                tools = parse_expected_tools(cells[t])
            except ToolCallsError as exc:
                problems.append(Problem(source, where(number, plan.written(TOOLS)), str(exc)))
        files = split_files(cells[f]) if f >= 0 and cells[f] else ()
        if check is not None and files:
            where_files = where(number, plan.written(FILES))
            problems.extend(Problem(source, where_files, m) for m in check(files))
        if keep is not None:
            keep(
                dataset_row(
                    number,
                    question,
                    _verbatim(cells[a]) if a >= 0 else None,
                    _verbatim(cells[c]) if c >= 0 else None,
                    tools,
                    session_id,
                    turn_id,
                    files,
                )
            )
        if len(problems) >= MAX_PROBLEMS:
            break
    return tracker, rows


def _verbatim(cell: str) -> str | None:
    """An Answer or context cell as written (test data: sent and scored as the user wrote
    it, spaces included), or None when it is blank."""
    return cell if cell.strip() else None


def _check_unnamed(
    table: Table, plan: ColumnPlan, number: int, cells: list[str], problems: list[Problem]
) -> None:
    """A value under no header would be silently dropped: refuse it."""
    for i in range(plan.width, len(cells)):
        if cells[i].strip():
            letter = table.column_letter(i)
            problems.append(
                Problem(
                    table.source,
                    table.where(number, letter),
                    f"a value in column {letter}, which has no name in the header row: name "
                    "the column, or delete the value",
                )
            )
            return


def split_files(cell: str) -> tuple[str, ...]:
    """A files cell: paths separated by ``;``, blanks around them ignored; in JSONL, also a
    list of paths (``"files": ["a.md", "b.png"]``, which reaches here as its JSON)."""
    if cell.startswith("["):
        try:
            listed = load_bounded(cell)
        except ValueError:
            listed = None
        if isinstance(listed, list) and all(isinstance(p, str) for p in listed):
            return tuple(p.strip() for p in listed if p.strip())
    return tuple(part.strip() for part in cell.split(";") if part.strip())


class _FileCheck:
    """Reads a row's files as a run would (``assay validate``), with the default size limit."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def __call__(self, files: tuple[str, ...]) -> list[str]:
        from assay.files.model import FileRef
        from assay.files.read import MB, FileReadError, read_attachment
        from assay.limits import DEFAULT_MAX_FILE_MB

        messages = []
        for written in files:
            ref = FileRef(self.folder / written, written, "", "")
            try:
                read_attachment(ref, int(DEFAULT_MAX_FILE_MB * MB))
            except FileReadError as exc:
                messages.append(f"{written}: {exc}")
        return messages
