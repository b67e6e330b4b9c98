"""Dataset rows as test cases: a conversation of one is a single-turn test, a longer one a
scripted multi-turn test in one agent session, each turn with its own Answer and tools.

They are compiled by the suite's compiler (``Compiler.dataset_test``), under the rules of a
suite test with no metric list of its own: the suite's metrics apply to them exactly as to
its own tests, turn metrics on every turn and conversation metrics (``trajectory_*``,
``scope: test``) once over the conversation. A conversation's expected trajectory is its
rows' expected tool calls, in turn order, when every row has an ``expected_tool_calls``
cell (``[]`` included); otherwise it has none and the trajectory metrics are not run on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from assay.cases.compile import Compiler, suite_metric_specs
from assay.cases.models import TestCase
from assay.config import Suite
from assay.datasets import Conversation, load_dataset
from assay.metrics import build_metric
from assay.metrics.base import Metric

# With a judge model, the judge metrics each column allows join the defaults.
JUDGE_DEFAULTS = {"answer": "correctness", "context": "groundedness", "question": "relevance"}


def test_names(prefix: str, conversations: list[Conversation]) -> list[str]:
    """``PREFIX:SESSION_ID`` for conversations, ``PREFIX:rowN`` for rows without one (N as a
    spreadsheet numbers it). A session id that reads like a row name (``row2``) becomes
    ``PREFIX:session:row2``, so no two tests of a file share a name."""
    # the row names first, each made once ("" holds a session's place: no name is empty)
    names = [
        f"{prefix}:row{c.rows[0].row_number}" if c.session_id is None else "" for c in conversations
    ]
    if "" not in names:  # no session: every name is a row's
        return names
    rows = set(names)
    for i, conv in enumerate(conversations):
        if conv.session_id is not None:
            name = f"{prefix}:{conv.session_id}"
            names[i] = f"{prefix}:session:{conv.session_id}" if name in rows else name
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


def dataset_cases(
    path: Path, suite: Suite, label: str, judge: bool = False, prefix: str | None = None
) -> list[TestCase]:
    """Test cases for every conversation of a dataset file; the suite's metrics apply when
    the suite has a list, else the column defaults. Test names start with ``prefix``
    (default: the file's stem)."""
    dataset = load_dataset(path)
    compiler = Compiler(
        label, defaults=default_dataset_metrics(dataset.column_map, judge), base_dir=path.parent
    )
    specs = suite_metric_specs(suite)
    plan = compiler.metric_plan(None, None if specs is None else compiler.metrics(specs, "metrics"))
    names = test_names(prefix or Path(label).stem, dataset.conversations)
    cases = []
    for conv, name in zip(dataset.conversations, names, strict=True):
        rows = conv.rows
        if len(rows) == 1:
            where = f"row {rows[0].row_number}"
        else:
            where = f"rows {', '.join(str(r.row_number) for r in rows)}"
        cases.append(compiler.dataset_test(name, rows, plan, where))
    return cases
