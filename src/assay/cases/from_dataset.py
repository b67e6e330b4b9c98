"""Dataset rows as test cases: a conversation of one is a single-turn test, a longer one a
scripted multi-turn test in one agent session, each turn with its own Answer and tools."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assay.cases.compile import Compiler
from assay.cases.models import TestCase, Turn
from assay.config import Suite
from assay.datasets import Conversation, DatasetRow, load_dataset
from assay.metrics import build_metric
from assay.metrics.base import Metric
from assay.metrics.tools import ExpectedTool, LiteralMatcher


def _expected_tools(row: DatasetRow) -> tuple[ExpectedTool, ...] | None:
    if row.expected_tools is None:
        return None
    return tuple(
        ExpectedTool(
            name=tool["name"],
            args={k: LiteralMatcher(v) for k, v in (tool.get("args") or {}).items()},
        )
        if tool.get("args")
        else ExpectedTool(name=tool["name"])
        for tool in row.expected_tools
    )


def _turn(row: DatasetRow, metrics: tuple[Metric, ...]) -> Turn:
    return Turn(
        input=row.question,
        turn_id=row.turn_id,
        ground_truth=row.answer,
        context=row.context,
        expected_tools=_expected_tools(row),
        metrics=metrics,
    )


def test_names(prefix: str, conversations: list[Conversation]) -> list[str]:
    """``PREFIX:SESSION_ID`` for conversations, ``PREFIX:rowN`` for rows without one (N as a
    spreadsheet numbers it). A session id that reads like a row name (``row2``) becomes
    ``PREFIX:session:row2``, so no two tests of a file share a name."""
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


# With a judge model, the judge metrics each column allows join the defaults.
JUDGE_DEFAULTS = {"answer": "correctness", "context": "groundedness", "question": "relevance"}


def default_dataset_metrics(
    compiler: Compiler, columns: Iterable[str], judge: bool
) -> tuple[Metric, ...]:
    """equality where there is an Answer; with a judge, the judge metrics the columns allow."""
    metrics = compiler.defaults
    if judge:
        present = set(columns)
        metrics += tuple(
            build_metric(name, {}) for column, name in JUDGE_DEFAULTS.items() if column in present
        )
    return metrics


def dataset_cases(
    path: Path, suite: Suite, label: str, judge: bool = False, prefix: str | None = None
) -> list[TestCase]:
    """Test cases for every conversation of a dataset file; suite metrics apply when the
    suite has them, else the column defaults. Test names start with ``prefix`` (default:
    the file's stem)."""
    dataset = load_dataset(path)
    compiler = Compiler(label)
    metrics = compiler.metrics(suite.metrics, "metrics") or default_dataset_metrics(
        compiler, dataset.column_map, judge
    )
    names = test_names(prefix or Path(label).stem, dataset.conversations)
    cases = []
    for conv, name in zip(dataset.conversations, names, strict=True):
        turns = tuple(_turn(row, metrics) for row in conv.rows)
        rows = [r.row_number for r in conv.rows]
        where = f"row {rows[0]}" if len(rows) == 1 else f"rows {', '.join(map(str, rows))}"
        cases.append(
            TestCase(
                name=name,
                type="single_turn" if len(turns) == 1 else "multi_turn",
                turns=turns,
                source=f"{label}: {where}",
            )
        )
    return cases
