"""Dataset rows as test cases: each conversation becomes the ``TestSpec`` a suite would
write for it (a conversation of one is a single-turn test, a longer one a scripted
multi-turn test in one agent session, each turn with its own Answer and tools) and goes
through the suite's compiler, so the suite's metrics apply to it exactly as to its own
tests: turn metrics on every turn, conversation metrics (``trajectory_*``, ``scope: test``)
once over the conversation.

A conversation's expected trajectory is its rows' expected tool calls, in turn order, when
every row has an ``expected_tool_calls`` cell (``[]`` included); otherwise it has none and
the trajectory metrics are not run on it, with that reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assay.cases.compile import Compiler, suite_metric_specs
from assay.cases.models import TestCase
from assay.config import ExpectedToolSpec, Suite, TestSpec, TurnSpec
from assay.datasets import Conversation, DatasetRow, load_dataset
from assay.metrics import build_metric
from assay.metrics.base import Metric

# With a judge model, the judge metrics each column allows join the defaults.
JUDGE_DEFAULTS = {"answer": "correctness", "context": "groundedness", "question": "relevance"}


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


def default_dataset_metrics(columns: Iterable[str], judge: bool) -> tuple[Metric, ...]:
    """equality where there is an Answer; with a judge, the judge metrics the columns allow."""
    metrics = Compiler("defaults").defaults
    if judge:
        present = set(columns)
        metrics += tuple(
            build_metric(name, {}) for column, name in JUDGE_DEFAULTS.items() if column in present
        )
    return metrics


def _tools(row: DatasetRow) -> list[ExpectedToolSpec] | None:
    if row.expected_tools is None:
        return None
    return [
        ExpectedToolSpec.model_construct(
            name=t["name"], **({"args": t["args"]} if t["args"] else {})
        )
        for t in row.expected_tools
    ]


def conversation_spec(name: str, conversation: Conversation) -> TestSpec:
    """The test a suite would write for this conversation (built, not re-validated: the
    dataset reader has checked every cell)."""
    rows = conversation.rows
    tools = [_tools(row) for row in rows]
    trajectory = None
    if all(t is not None for t in tools):
        trajectory = [spec for t in tools for spec in t or ()]
    fields: dict[str, Any] = {"name": name, "expected_trajectory": trajectory}
    if len(rows) == 1:
        row = rows[0]
        fields |= {
            "input": row.question,
            "ground_truth": row.answer,
            "context": row.context,
            "expected_tools": tools[0],
        }
    else:
        fields["turns"] = [
            TurnSpec.model_construct(
                input=row.question,
                ground_truth=row.answer,
                context=row.context,
                expected_tools=row_tools,
                metrics=None,
            )
            for row, row_tools in zip(rows, tools, strict=True)
        ]
    return TestSpec.model_construct(**fields)


def dataset_cases(
    path: Path, suite: Suite, label: str, judge: bool = False, prefix: str | None = None
) -> list[TestCase]:
    """Test cases for every conversation of a dataset file; the suite's metrics apply when
    the suite has a list, else the column defaults. Test names start with ``prefix``
    (default: the file's stem)."""
    dataset = load_dataset(path)
    compiler = Compiler(
        label, defaults=default_dataset_metrics(dataset.column_map, judge), literal_args=True
    )
    specs = suite_metric_specs(suite)
    suite_metrics = None if specs is None else compiler.metrics(specs, "metrics")
    names = test_names(prefix or Path(label).stem, dataset.conversations)
    cases = []
    for conv, name in zip(dataset.conversations, names, strict=True):
        numbers = [r.row_number for r in conv.rows]
        unit = "row" if len(numbers) == 1 else "rows"
        where = f"{unit} {', '.join(map(str, numbers))}"
        case = compiler.test(conversation_spec(name, conv), where, suite_metrics)
        turns = tuple(
            dataclasses.replace(turn, turn_id=row.turn_id)
            for turn, row in zip(case.turns, conv.rows, strict=True)
        )
        cases.append(dataclasses.replace(case, turns=turns, source=f"{label}: {where}"))
    return cases
