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


def _name(stem: str, conversation: Conversation) -> str:
    first = conversation.rows[0].row_number
    if conversation.session_id is None:
        return f"{stem}:row{first}"
    return f"{stem}:{conversation.session_id}"


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


def dataset_cases(path: Path, suite: Suite, label: str, judge: bool = False) -> list[TestCase]:
    """Test cases for every conversation of a dataset file; suite metrics apply when the
    suite has them, else the column defaults."""
    dataset = load_dataset(path)
    compiler = Compiler(label)
    metrics = compiler.metrics(suite.metrics, "metrics") or default_dataset_metrics(
        compiler, dataset.column_map, judge
    )
    stem = Path(label).stem
    cases = []
    for conv in dataset.conversations:
        turns = tuple(_turn(row, metrics) for row in conv.rows)
        rows = [r.row_number for r in conv.rows]
        where = f"row {rows[0]}" if len(rows) == 1 else f"rows {', '.join(map(str, rows))}"
        cases.append(
            TestCase(
                name=_name(stem, conv),
                type="single_turn" if len(turns) == 1 else "multi_turn",
                turns=turns,
                source=f"{label}: {where}",
            )
        )
    return cases
