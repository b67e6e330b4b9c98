"""A dataset row's Turn and TestCase (``Compiler.dataset_test``) and a row read
(``dataset_row``, which sets its slots directly) are exactly what their constructors make,
every field set."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from assay.cases.compile import Compiler
from assay.cases.models import TestCase, Turn
from assay.datasets.model import DatasetRow


def _rows() -> list[DatasetRow]:
    return [
        DatasetRow(row_number=2, question="hi", answer="hello", session_id="s", turn_id="1"),
        DatasetRow(
            row_number=3,
            question="and?",
            context="ctx",
            expected_tools=[{"name": "f", "args": {"x": 1}}],
            session_id="s",
            turn_id="2",
            files=("a.txt",),
        ),
    ]


def test_a_dataset_test_is_what_the_constructors_make(tmp_path: Path) -> None:
    compiler = Compiler("data.csv", base_dir=tmp_path)
    plan = compiler.metric_plan(None, None)
    for rows in (_rows(), _rows()[:1]):
        case = compiler.dataset_test("data:s", rows, plan, "rows 2, 3")
        turns = tuple(
            Turn(
                input=t.input,
                turn_id=t.turn_id,
                ground_truth=t.ground_truth,
                context=t.context,
                expected_tools=t.expected_tools,
                metrics=t.metrics,
                files=t.files,
            )
            for t in case.turns
        )
        expected = TestCase(
            name="data:s",
            type="single_turn" if len(rows) == 1 else "multi_turn",
            turns=turns,
            source="data.csv: rows 2, 3",
            test_metrics=plan.test,
            expected_trajectory=case.expected_trajectory,
        )
        assert case == expected
        assert repr(case) == repr(expected)
        # every field set, in order, as __init__ sets them (a field added later fails here)
        for made, by_init in ((case, expected), *zip(case.turns, turns, strict=True)):
            assert list(vars(made)) == [f.name for f in dataclasses.fields(made)]
            assert vars(made) == vars(by_init)
        assert case.extra == {} and case.extra is not expected.extra
    case = compiler.dataset_test("data:s", _rows(), plan, "rows 2, 3")
    assert case.turns[1].files[0].path == tmp_path / "a.txt"
    assert case.expected_trajectory is None  # row 2 has no tools cell
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.turns[0].input = "changed"  # type: ignore[misc]


def test_a_read_row_is_what_its_constructor_makes() -> None:
    from assay.datasets.model import dataset_row

    values = (3, "q", "a", None, [{"name": "f", "args": {}}], "s", "1", ("x.txt",))
    made = dataset_row(*values)
    expected = DatasetRow(*values)  # type: ignore[arg-type]
    assert made == expected and repr(made) == repr(expected)
    assert [getattr(made, f.name) for f in dataclasses.fields(made)] == list(values)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.question = "changed"  # type: ignore[misc]
