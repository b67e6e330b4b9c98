"""CSV specifics, with files written by hand: BOM, CRLF, semicolons, trailing empty rows,
embedded newlines, spreadsheet row numbers, malformed quoting, non-UTF-8 text."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import _read_csv, load_dataset, validate_dataset
from assay.errors import DatasetError

CsvFile = Callable[..., Path]
MULTI = "session_id,turn_id,Question,Answer\ns1,1,Hi,Hello\ns1,2,Bye,Goodbye\n,,Alone,Yes\n"


def _problems(path: Path) -> list[str]:
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    return [str(p) for p in info.value.problems]


def test_a_utf8_bom_is_not_part_of_the_first_column_name(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file(MULTI, bom=True))
    assert dataset.column_map["session_id"] == "session_id"
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    )


def test_windows_line_endings(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file(MULTI, newline="\r\n"))
    assert [(r.question, r.answer) for r in dataset.rows] == [
        ("Hi", "Hello"),
        ("Bye", "Goodbye"),
        ("Alone", "Yes"),
    ]
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    )


def test_semicolon_delimiter_is_sniffed_from_the_header(csv_file: CsvFile) -> None:
    text = 'Question;Answer;expected_tool_calls\nHow much?;"1,5 €";[{"name": "price"}]\nQ2;A,B;\n'
    dataset = load_dataset(csv_file(text, bom=True, newline="\r\n"))
    assert dataset.column_map == {
        "question": "Question",
        "answer": "Answer",
        "expected_tool_calls": "expected_tool_calls",
    }
    assert [(r.question, r.answer, r.expected_tools) for r in dataset.rows] == [
        ("How much?", "1,5 €", [{"name": "price", "args": {}}]),
        ("Q2", "A,B", None),
    ]


def test_a_header_with_commas_stays_comma_separated(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file("Question,Answer\nQ;1,A;2\n"))
    assert [(r.question, r.answer) for r in dataset.rows] == [("Q;1", "A;2")]


def test_tab_delimiter(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file("Question\tAnswer\nQ, really\tA\n"))
    assert [(r.question, r.answer) for r in dataset.rows] == [("Q, really", "A")]


@pytest.mark.parametrize("tail", ["\n", "\n\n", ",\n", ",,\n", ",", "\n ,  \n"])
def test_empty_trailing_rows_are_not_rows(csv_file: CsvFile, tail: str) -> None:
    shape = validate_dataset(csv_file("Question,Answer\nQ1,A1\nQ2,A2" + tail))
    assert shape.shape_line() == "SINGLE-TURN — 2 rows"


def test_quoted_fields_with_embedded_newlines_count_as_one_row(csv_file: CsvFile) -> None:
    text = (
        'Question,Answer,tools\n"First line\nsecond line",A,\n'
        'Q2,"multi\n\nline answer",\nQ3,A3,not json\n'
    )
    path = csv_file(text, newline="\r\n")
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    # Q3 is on physical line 7 but spreadsheet row 4 (the header is row 1).
    assert info.value.problems[0].path == "row 4, column tools"
    dataset = load_dataset(csv_file(text.replace("not json", "[]")))
    assert [(r.row_number, r.question, r.answer) for r in dataset.rows] == [
        (2, "First line\nsecond line", "A"),
        (3, "Q2", "multi\n\nline answer"),
        (4, "Q3", "A3"),
    ]


def test_row_numbers_count_blank_rows_like_a_spreadsheet(csv_file: CsvFile) -> None:
    path = csv_file("\nQuestion,tools\nQ1,[]\n\nQ3,[1]\n")
    assert _problems(path) == [
        f"{path}: row 5, column tools: tool call 1 is a number; each tool call is an object "
        'such as {"name": "lookup"}'
    ]
    assert [r.row_number for r in load_dataset(csv_file("\nQuestion\nQ1\n\nQ3\n")).rows] == [3, 5]


def test_short_rows_are_padded_and_trailing_commas_are_fine(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file("Question,Answer,context\nQ1\nQ2,A2,,,\n"))
    assert [(r.question, r.answer, r.context) for r in dataset.rows] == [
        ("Q1", None, None),
        ("Q2", "A2", None),
    ]


def test_a_value_under_no_header_is_refused(csv_file: CsvFile) -> None:
    path = csv_file("Question,Answer\nQ1,A1\nQ2,A2,surprise\n")
    assert _problems(path) == [
        f"{path}: row 3, column C: a value in column C, which has no name in the header row: "
        "name the column, or delete the value"
    ]


def test_unclosed_quote_is_malformed(csv_file: CsvFile) -> None:
    path = csv_file('Question,Answer\nQ1,A\n"unclosed,B\nQ3,C\n')
    assert _problems(path) == [
        f"{path}: row 3: malformed CSV (unexpected end of data): a field that starts with a "
        'quote must end with one, and a quote inside a quoted field is written twice ("")'
    ]


def test_not_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("Question,Answer\nCafé?,Oui\n".encode("cp1252"))
    assert _problems(path) == [
        f"{path}: line 2: not UTF-8 text (byte 0xe9): save it as UTF-8 (in Excel: Save As → "
        "CSV UTF-8)"
    ]


def test_empty_file(csv_file: CsvFile) -> None:
    for text in ("", "\n\n", " , \n"):
        path = csv_file(text)
        assert _problems(path) == [
            f"{path}: the file is empty: the first row must name the columns"
        ]


def test_header_without_rows(csv_file: CsvFile) -> None:
    for text in ("Question,Answer", "Question,Answer\n", "Question,Answer\n,\n\n"):
        path = csv_file(text)
        assert _problems(path) == [
            f"{path}: the file has a header but no data rows: add one row per test"
        ]


def test_a_cell_larger_than_the_csv_module_default_limit(csv_file: CsvFile) -> None:
    context = "x" * 200_000
    dataset = load_dataset(csv_file(f"Question,context\nQ,{context}\n"))
    assert dataset.rows[0].context == context


def test_a_cell_past_the_field_size_limit_is_named_with_its_fix(
    csv_file: CsvFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Said as too long, not as bad quoting. The limit is lowered here: assay's own (2**31 - 1
    characters) takes a file of gigabytes to pass."""
    monkeypatch.setattr(_read_csv, "FIELD_SIZE_LIMIT", 1000)
    path = csv_file(f"Question,context\nQ1,short\nQ2,{'x' * 1001}\n")
    try:
        problems = _problems(path)
    finally:  # the csv module's limit is process wide: put back assay's
        csv.field_size_limit(_read_csv.FIELD_SIZE_LIMIT)
    assert problems == [
        f"{path}: row 3: a cell is longer than 1,000 characters, the most a CSV cell may hold: "
        "shorten it, or save the dataset as JSONL, which has no such limit"
    ]


def test_commas_inside_quoted_header_names_do_not_decide_the_delimiter(csv_file: CsvFile) -> None:
    dataset = load_dataset(csv_file('Question;"Notes, misc"\nQ, with comma;n\n'))
    assert [r.question for r in dataset.rows] == ["Q, with comma"]
    assert dataset.shape.ignored_columns == ["Notes, misc"]
