"""The shortcuts of planning a dataset row, against the paths they shorten.

``test_names`` makes each row name once and skips the session pass when no row has a
session: the same names as the two-pass version it replaced (kept here) on varied files.
``Compiler.dataset_test`` calls ``literal_tools`` only for a cell with tool calls: the same
turn and trajectory as calling it on every row.
"""

from __future__ import annotations

import itertools

import pytest

from assay.cases import from_dataset
from assay.cases.compile import Compiler, literal_tools
from assay.datasets.model import Conversation, DatasetRow


def _two_pass_names(prefix: str, conversations: list[Conversation]) -> list[str]:
    """``test_names`` as it was: every row name made twice, the set always built."""
    rows = {f"{prefix}:row{c.rows[0].row_number}" for c in conversations if c.session_id is None}
    names = []
    for conv in conversations:
        if conv.session_id is None:
            names.append(f"{prefix}:row{conv.rows[0].row_number}")
        elif f"{prefix}:{conv.session_id}" in rows:
            names.append(f"{prefix}:session:{conv.session_id}")
        else:
            names.append(f"{prefix}:{conv.session_id}")
    return names


SESSIONS = [
    None,
    "s1",
    "row2",
    "row3",
    "session:row2",
    "",
    " ",
    "row 2",
    "\x00",
    "\ud800",
    "9" * 40,
]


def _files() -> list[list[Conversation]]:
    files: list[list[Conversation]] = [[]]
    for size in (1, 2, 3):
        for sessions in itertools.product(SESSIONS, repeat=size):
            files.append(
                [
                    Conversation(sid, [DatasetRow(row_number=n, question="q", session_id=sid)])
                    for n, sid in enumerate(sessions, 2)
                ]
            )
    # a file of rows alone, numbered as a spreadsheet with gaps (blank rows skipped)
    files.append([Conversation(None, [DatasetRow(n, "q")]) for n in (2, 3, 7, 10**20)])
    return files


@pytest.mark.parametrize("prefix", ["data", "", "a/b", "x:row2", "p\x01"])
def test_names_are_those_of_the_two_pass_version(prefix: str) -> None:
    files = _files()
    assert len(files) > 1000
    for conversations in files:
        assert from_dataset.test_names(prefix, conversations) == _two_pass_names(
            prefix, conversations
        )


CELLS: list[list[dict[str, object]] | None] = [
    None,
    [],
    [{"name": "f", "args": {}}],
    [{"name": "f", "args": {"x": 1, "y": [1, {"z": None}]}}, {"name": "g", "args": {}}],
    [{"name": "\ud800", "args": {"k": 10**40, "n": "\x00"}}],
]


def test_a_row_compiles_as_with_literal_tools_called_on_every_row() -> None:
    compiler = Compiler("data.csv")
    plan = compiler.metric_plan(None, None)
    for cells in itertools.chain(([c] for c in CELLS), itertools.product(CELLS, repeat=2)):
        rows = [
            DatasetRow(row_number=n, question=f"q{n}", expected_tools=c, session_id="s")
            for n, c in enumerate(cells, 2)
        ]
        case = compiler.dataset_test("data:s", rows, plan, "rows")
        tools = [literal_tools(row.expected_tools) for row in rows]
        assert [turn.expected_tools for turn in case.turns] == tools
        if None in tools:
            assert case.expected_trajectory is None
        else:
            assert case.expected_trajectory == tuple(t for ts in tools for t in ts or ())
