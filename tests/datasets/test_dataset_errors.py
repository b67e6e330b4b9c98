"""Errors that concern the whole file: unsupported or missing file, blank questions, blank
rows, several problems reported at once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import load_dataset, validate_dataset
from assay.errors import DatasetError

Writer = Callable[..., Path]


def _problems(path: Path | str) -> list[str]:
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    with pytest.raises(DatasetError) as again:
        load_dataset(path)
    assert [str(p) for p in again.value.problems] == [str(p) for p in info.value.problems]
    return [str(p) for p in info.value.problems]


@pytest.mark.parametrize("name", ["data.txt", "data.xls", "data.json", "data"])
def test_unsupported_extension(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("Question\nQ\n")
    suffix = path.suffix or "no extension"
    assert _problems(path) == [
        f"{path}: unsupported file type ({suffix}): a dataset must be .csv, .xlsx or .jsonl"
    ]


def test_the_extension_is_case_insensitive(tmp_path: Path) -> None:
    path = tmp_path / "DATA.CSV"
    path.write_text("Question\nQ\n")
    assert validate_dataset(path).shape_line() == "SINGLE-TURN — 1 rows"


@pytest.mark.parametrize("name", ["missing.csv", "missing.xlsx", "missing.jsonl"])
def test_missing_file_is_named_as_given(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert _problems(f"sub/{name}") == [f"sub/{name}: file not found: check the path"]


def test_a_directory(tmp_path: Path) -> None:
    path = tmp_path / "dir.csv"
    path.mkdir()
    assert _problems(path) == [f"{path}: is a directory, not a dataset file"]


def test_blank_rows_are_skipped_and_blank_questions_refused(
    table: Writer, where: Callable[[int], str]
) -> None:
    rows = [["Q1", "A1"], [None, None], [None, "an answer without a question"], ["Q4", "A4"]]
    path = table(["Question", "Answer"], rows)
    assert _problems(path) == [
        f"{path}: {where(2)}, column Question: the question is blank: every row needs one (or "
        "delete the row)"
    ]
    rows = [["Q1", "A1"], [None, None], ["  ", "  "], ["Q4", "A4"]]
    dataset = load_dataset(table(["Question", "Answer"], rows))
    assert [r.question for r in dataset.rows] == ["Q1", "Q4"]
    assert dataset.shape.shape_line() == "SINGLE-TURN — 2 rows"


def test_several_problems_are_reported_together(table: Writer, where: Callable[[int], str]) -> None:
    rows = [
        ["s", 1, "Q", "nope"],
        ["s", 1, "Q", None],
        ["s", 2, None, "[]"],
    ]
    path = table(["session_id", "turn_id", "Question", "tools"], rows)
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    assert [p.path for p in info.value.problems] == [
        f"{where(0)}, column tools",
        f"{where(1)}, column turn_id",
        f"{where(2)}, column Question",
    ]


def test_problems_stop_after_twenty(tmp_path: Path) -> None:
    path = tmp_path / "many.csv"
    path.write_text("Question,tools\n" + "Q,bad\n" * 50)
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    problems = info.value.problems
    assert len(problems) == 21
    assert problems[19].path == "row 21, column tools"
    assert str(problems[20]) == f"{path}: stopped after 20 problems: fix these first"


def test_test_data_is_verbatim_ids_are_trimmed_and_blank_cells_are_none(table: Writer) -> None:
    # Question, Answer and context are sent and scored as written (docs/datasets.md, the
    # turn-result contract's "verbatim turn input"); a cell of only spaces is blank; ids are
    # names, trimmed
    header = ["session_id", "turn_id", "Question", "Answer", "context", "tools"]
    rows = [
        [" s1 ", " 1 ", "  What?  ", "  ", " ctx\n", ""],
        ["s1", "2", "  ANSWER: x  ", "\tx ", "   ", None],
    ]
    dataset = load_dataset(table(header, rows))
    got = [
        (r.session_id, r.turn_id, r.question, r.answer, r.context, r.expected_tools)
        for r in dataset.rows
    ]
    assert got == [
        ("s1", "1", "  What?  ", None, " ctx\n", None),
        ("s1", "2", "  ANSWER: x  ", "\tx ", None, None),
    ]
