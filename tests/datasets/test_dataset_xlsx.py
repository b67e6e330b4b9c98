"""XLSX specifics, with workbooks written by xlsxwriter: formula cells give their cached
value, integral numbers lose their .0, merged or blank header cells are refused, row numbers
and column letters are the spreadsheet's, only the first sheet is read."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path

import pytest
import xlsxwriter
from tests.datasets.crafted import row, sheet, text_cell, write_xlsx
from xlsxwriter.worksheet import Worksheet

from assay.datasets import load_dataset, validate_dataset
from assay.errors import DatasetError

Build = Callable[[Callable[[Worksheet], None]], Path]


@pytest.fixture
def workbook(tmp_path: Path) -> Build:
    def build(fill: Callable[[Worksheet], None]) -> Path:
        path = tmp_path / "data.xlsx"
        book = xlsxwriter.Workbook(str(path))
        fill(book.add_worksheet("Tests"))
        other = book.add_worksheet("Other")
        other.write_row(0, 0, ["Question", "Answer"])
        other.write_row(1, 0, ["from the second sheet", "x"])
        book.close()
        return path

    return build


def _problems(path: Path) -> list[str]:
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    return [str(p) for p in info.value.problems]


def test_formula_cells_give_their_cached_value(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["session_id", "turn_id", "Question", "Answer"])
        sheet.write_row(1, 0, ["s", 1, "first", "A"])
        sheet.write(2, 0, "s")
        sheet.write_formula(2, 1, "=B2+1", None, 2)
        sheet.write(2, 2, "second")
        sheet.write_formula(2, 3, '="Par"&"is"', None, "Paris")

    dataset = load_dataset(workbook(fill))
    assert [(r.turn_id, r.question, r.answer) for r in dataset.rows] == [
        ("1", "first", "A"),
        ("2", "second", "Paris"),
    ]


def test_numbers_are_written_as_a_spreadsheet_shows_them(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["session_id", "turn_id", "Question", "Answer", "context"])
        sheet.write_row(1, 0, [7, 10.0, 2024, 0.1, True])
        sheet.write_row(2, 0, [7.0, 9, "What is pi?", 3.14159, False])
        sheet.write_row(3, 0, [7, 2.5, "Half?", -3])

    dataset = load_dataset(workbook(fill))
    assert [
        (c.session_id, [(r.turn_id, r.question, r.answer, r.context) for r in c.rows])
        for c in dataset.conversations
    ] == [
        (
            "7",
            [
                ("2.5", "Half?", "-3", None),
                ("9", "What is pi?", "3.14159", "FALSE"),
                ("10", "2024", "0.1", "TRUE"),
            ],
        ),
    ]


def test_dates_are_written_in_iso_8601(tmp_path: Path) -> None:
    path = tmp_path / "dates.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["session_id", "Question", "Answer"])
    date_format = book.add_format({"num_format": "yyyy-mm-dd"})
    sheet.write_datetime(1, 0, datetime.datetime(2024, 5, 1), date_format)
    sheet.write(1, 1, "When?")
    sheet.write_datetime(1, 2, datetime.datetime(2024, 5, 1, 13, 30), date_format)
    book.close()
    dataset = load_dataset(path)
    assert [(r.session_id, r.answer) for r in dataset.rows] == [
        ("2024-05-01", "2024-05-01T13:30:00")  # midnight reads as a date
    ]


def test_only_the_first_sheet_is_read(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["Question", "Answer"])
        sheet.write_row(1, 0, ["from the first sheet", "y"])

    dataset = load_dataset(workbook(fill))
    assert [r.question for r in dataset.rows] == ["from the first sheet"]


def test_a_merged_header_cell_is_refused(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.merge_range(0, 0, 0, 1, "Question")
        sheet.write(0, 2, "Answer")
        sheet.write_row(1, 0, ["Q", "more Q", "A"])

    path = workbook(fill)
    assert _problems(path) == [
        f"{path}: row 1: the header row has merged cells (A1:B1): unmerge them and give every "
        "column its own name"
    ]


def test_a_table_that_does_not_start_at_a1_keeps_spreadsheet_numbers(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(2, 1, ["Question", "Answer", "tools"])  # header on row 3, from B
        sheet.write_row(3, 1, ["Q1", "A1", "[]"])
        sheet.write_row(5, 1, ["Q2", "A2", "{oops"])  # row 5 is blank
        sheet.write(6, 1, "Q3")
        sheet.write(6, 4, "stray")  # column E has no header

    path = workbook(fill)
    assert _problems(path) == [
        f"{path}: row 6, column tools: not valid JSON (Expecting property name enclosed in "
        'double quotes at character 2); expected a JSON array such as [{"name": '
        '"get_weather", "arguments": {"location": "Seattle"}}]',
        f"{path}: row 7, column E: a value in column E, which has no name in the header row: "
        "name the column, or delete the value",
    ]


def test_a_blank_header_cell_is_named_by_its_letter_in_the_warning(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 2, ["Question", "", "Answer"])  # C1, D1 (blank), E1
        sheet.write_row(1, 2, ["Q", "x", "A"])

    dataset = load_dataset(workbook(fill))
    assert [(row.question, row.answer) for row in dataset.rows] == [("Q", "A")]
    assert dataset.warnings == [
        "column D has no name in the header row: its values are ignored (name the column to use it)"
    ]


def test_an_empty_first_sheet(workbook: Build) -> None:
    path = workbook(lambda sheet: None)
    assert _problems(path) == [f"{path}: the first sheet ('Tests') is empty"]


def test_header_without_rows(workbook: Build) -> None:
    path = workbook(lambda sheet: sheet.write_row(0, 0, ["Question", "Answer"]))
    assert _problems(path) == [
        f"{path}: the file has a header but no data rows: add one row per test"
    ]


def test_a_file_that_is_not_a_workbook(tmp_path: Path) -> None:
    path = tmp_path / "fake.xlsx"
    path.write_text("Question,Answer\nQ,A\n")
    problems = _problems(path)
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}: cannot read it as an Excel workbook (.xlsx): ")


def _formula_sheet(tmp_path: Path, answer_cell: str) -> Path:
    """Question in A, a formula cell as the Answer in B2 (hand-written XML: what openpyxl
    writes for ``ws["B2"] = '=UPPER("paris")'``, which no program has computed)."""
    rows = row(1, text_cell("A1", "Question"), text_cell("B1", "Answer")) + row(
        2, text_cell("A2", "capital?"), answer_cell
    )
    return write_xlsx(tmp_path / "formulas.xlsx", sheet(rows))


@pytest.mark.parametrize(
    "cell",
    [
        '<c r="B2"><f>UPPER("paris")</f><v></v></c>',  # openpyxl
        '<c r="B2"><f>UPPER("paris")</f></c>',
        '<c r="B2"><f>UPPER("paris")</f><v/></c>',
        '<c r="B2" t="str"><f>UPPER("paris")</f></c>',
        '<c r="B2"><f t="shared" si="0"/></c>',
    ],
)
def test_a_formula_without_a_saved_value_is_refused(tmp_path: Path, cell: str) -> None:
    path = _formula_sheet(tmp_path, cell)
    assert _problems(path) == [
        f"{path}: row 2, column B: cell B2 of sheet 'Tests' holds a formula with no saved "
        "value (the file was written by a program that does not compute formulas), so it "
        "would read as blank: open and save the file in Excel or LibreOffice so its formulas "
        "have values"
    ]


@pytest.mark.parametrize(
    ("cell", "answer"),
    [
        ('<c r="B2" t="str"><f>UPPER("paris")</f><v>PARIS</v></c>', "PARIS"),
        ('<c r="B2" t="str"><f>""</f><v></v></c>', None),  # a formula whose result is ""
        ('<c r="B2"/>', None),  # a blank cell with no formula
    ],
)
def test_a_formula_with_its_value_or_a_blank_cell_reads(
    tmp_path: Path, cell: str, answer: str | None
) -> None:
    dataset = load_dataset(_formula_sheet(tmp_path, cell))
    assert [(r.question, r.answer) for r in dataset.rows] == [("capital?", answer)]


def _error_message(where: str, cell: str, error: str, why: str = "would read as blank") -> str:
    return (
        f"{where}: cell {cell} of sheet 'Tests' holds the error {error}, which {why}: fix the "
        "formula (or type the value) and save"
    )


@pytest.mark.parametrize(
    "error", ["#DIV/0!", "#N/A", "#REF!", "#VALUE!", "#NAME?", "#NUM!", "#NULL!"]
)
@pytest.mark.parametrize("formula", ["<f>1/0</f>", ""])  # computed, or the error typed in
def test_an_error_cell_is_refused_not_read_as_blank(
    tmp_path: Path, error: str, formula: str
) -> None:
    # python-calamine gives an error cell as "", as if the Answer were missing
    path = _formula_sheet(tmp_path, f'<c r="B2" t="e">{formula}<v>{error}</v></c>')
    assert _problems(path) == [_error_message(f"{path}: row 2, column Answer", "B2", error)]


@pytest.mark.parametrize("error", ["#SPILL!", "#CALC!"])
def test_an_error_calamine_cannot_read_is_named(tmp_path: Path, error: str) -> None:
    # python-calamine refuses the whole sheet then, without saying which cell
    path = _formula_sheet(tmp_path, f'<c r="B2" t="e"><f>A1:A2</f><v>{error}</v></c>')
    why = "assay cannot read"
    assert _problems(path) == [_error_message(f"{path}: row 2, column B", "B2", error, why)]


def test_an_error_cell_is_named_by_its_row_and_column(tmp_path: Path) -> None:
    rows = (
        row(1, text_cell("A1", "Question"), text_cell("B1", "Answer"))
        + row(2, text_cell("A2", "capital?"), text_cell("B2", "Paris"))
        + row(3, '<c r="A3" t="e"><f>Sheet2!Z1</f><v>#REF!</v></c>', text_cell("B3", "Rome"))
    )
    path = write_xlsx(tmp_path / "errors.xlsx", sheet(rows))
    assert _problems(path) == [_error_message(f"{path}: row 3, column Question", "A3", "#REF!")]


def test_an_error_in_the_header_row_is_named_by_its_letter(tmp_path: Path) -> None:
    rows = row(1, text_cell("A1", "Question"), '<c r="B1" t="e"><v>#NAME?</v></c>') + row(
        2, text_cell("A2", "capital?"), text_cell("B2", "Paris")
    )
    path = write_xlsx(tmp_path / "errors.xlsx", sheet(rows))
    assert _problems(path) == [_error_message(f"{path}: row 1, column B", "B1", "#NAME?")]


def test_an_error_right_of_the_named_columns_is_refused(tmp_path: Path) -> None:
    rows = row(1, text_cell("A1", "Question"), text_cell("B1", "Answer")) + row(
        2, text_cell("A2", "capital?"), text_cell("B2", "Paris"), '<c r="D2" t="e"><v>#N/A</v></c>'
    )
    path = write_xlsx(tmp_path / "errors.xlsx", sheet(rows))
    assert _problems(path) == [_error_message(f"{path}: row 2, column D", "D2", "#N/A")]


def test_an_error_in_a_column_with_no_name_is_ignored_with_its_values(tmp_path: Path) -> None:
    # a helper column with no name in the header row: its values are never read
    rows = row(1, text_cell("A1", "Question"), text_cell("C1", "Answer")) + row(
        2, text_cell("A2", "capital?"), '<c r="B2" t="e"><v>#N/A</v></c>', text_cell("C2", "Paris")
    )
    dataset = load_dataset(write_xlsx(tmp_path / "errors.xlsx", sheet(rows)))
    assert [(r.question, r.answer) for r in dataset.rows] == [("capital?", "Paris")]


def _merged_warning(count: str, refs: str) -> str:
    return (
        f"{count} ({refs}): every cell a range covers reads as its top-left cell, as the "
        "spreadsheet shows it (unmerge the cells and fill each one in if that is not what you "
        "meant)"
    )


def test_a_session_id_merged_over_its_rows_groups_them(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["session_id", "turn_id", "Question", "Answer"])
        sheet.merge_range(1, 0, 2, 0, "s1")  # A2:A3, as people group a conversation
        sheet.write_row(1, 1, [1, "Cheap hotel?", "Holiday Inn"])
        sheet.write_row(2, 1, [2, "Book it.", "Booked"])
        sheet.merge_range(3, 0, 4, 0, "s2")
        sheet.write_row(3, 1, [1, "Hi", "Hello"])
        sheet.write_row(4, 1, [2, "Bye", "Goodbye"])

    path = workbook(fill)
    report = validate_dataset(path)
    assert report.shape_line() == "MULTI-TURN — 4 rows, 2 conversations (grouped by session_id)"
    assert report.warnings == [_merged_warning("2 merged ranges", "A2:A3, A4:A5")]
    dataset = load_dataset(path)
    assert [(c.session_id, [r.question for r in c.rows]) for c in dataset.conversations] == [
        ("s1", ["Cheap hotel?", "Book it."]),
        ("s2", ["Hi", "Bye"]),
    ]


def test_an_answer_merged_over_rows_is_every_rows_answer(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 1, ["Question", "Answer", "context"])  # from column B
        sheet.write(1, 1, "Capital of France?")
        sheet.write(2, 1, "And its capital city?")
        sheet.merge_range(1, 2, 2, 2, "Paris")  # C2:C3
        sheet.merge_range(1, 3, 1, 4, "ctx")  # D2:E2: E has no name, so is not filled
        sheet.write_row(3, 1, ["Alone?", "Yes"])

    dataset = load_dataset(workbook(fill))
    assert [(r.question, r.answer, r.context) for r in dataset.rows] == [
        ("Capital of France?", "Paris", "ctx"),
        ("And its capital city?", "Paris", None),
        ("Alone?", "Yes", None),
    ]
    assert dataset.warnings == [_merged_warning("1 merged range", "C2:C3")]


def test_a_cell_merged_tall_over_empty_rows_makes_no_rows(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["Question", "Answer"])
        sheet.merge_range(1, 0, 3, 0, "Tall question?")  # A2:A4 and B2:B4: one tall row
        sheet.merge_range(1, 1, 3, 1, "Tall answer")
        sheet.write_row(4, 0, ["Next?", "Next"])

    dataset = load_dataset(workbook(fill))
    assert [(r.row_number, r.question, r.answer) for r in dataset.rows] == [
        (2, "Tall question?", "Tall answer"),
        (5, "Next?", "Next"),
    ]
    assert dataset.warnings == []  # nothing was filled


def test_the_warning_names_the_first_few_ranges_and_counts_them_all(workbook: Build) -> None:
    def fill(sheet: Worksheet) -> None:
        sheet.write_row(0, 0, ["session_id", "Question"])
        for i in range(5):
            sheet.merge_range(1 + 2 * i, 0, 2 + 2 * i, 0, f"s{i}")
            sheet.write_column(1 + 2 * i, 1, [f"q{i}a", f"q{i}b"])

    report = validate_dataset(workbook(fill))
    assert report.shape_line() == "MULTI-TURN — 10 rows, 5 conversations (grouped by session_id)"
    assert report.warnings[0] == _merged_warning("5 merged ranges", "A2:A3, A4:A5, A6:A7, ...")


def _merged_sheet(tmp_path: Path, *refs: str) -> Path:
    rows = (
        row(1, text_cell("A1", "session_id"), text_cell("B1", "Question"))
        + row(2, text_cell("A2", "s1"), text_cell("B2", "first"))
        + row(3, text_cell("B3", "second"))
        + row(4, text_cell("B4", "third"))
    )
    merges = "".join(f'<mergeCell ref="{ref}"/>' for ref in refs)
    xml = sheet(rows).replace(
        "</sheetData>", f'</sheetData><mergeCells count="{len(refs)}">{merges}</mergeCells>'
    )
    return write_xlsx(tmp_path / "merged.xlsx", xml)


def test_overlapping_merged_ranges_are_refused(tmp_path: Path) -> None:
    # no spreadsheet program writes them: which value a cell shows is undefined
    path = _merged_sheet(tmp_path, "A2:A3", "A3:A4")
    assert _problems(path) == [
        f"{path}: row 3: merged ranges A2:A3 and A3:A4 overlap, which a spreadsheet program "
        "never writes: unmerge them (Merge & Center off) and save"
    ]


def test_a_merged_range_given_twice_is_read_once(tmp_path: Path) -> None:
    report = validate_dataset(_merged_sheet(tmp_path, "A2:A4", "A2:A4"))
    assert report.shape_line() == "MULTI-TURN — 3 rows, 1 conversations (grouped by session_id)"
    assert report.warnings[0] == _merged_warning("1 merged range", "A2:A4")


def test_an_error_in_a_named_column_the_dataset_does_not_read_is_ignored(tmp_path: Path) -> None:
    # `Notes` is listed as ignored by validate: a lookup there showing #N/A blocks nothing
    rows = row(1, text_cell("A1", "Question"), text_cell("B1", "Answer"), text_cell("C1", "Notes"))
    rows += row(
        2, text_cell("A2", "capital?"), text_cell("B2", "Paris"), '<c r="C2" t="e"><v>#N/A</v></c>'
    )
    dataset = load_dataset(write_xlsx(tmp_path / "errors.xlsx", sheet(rows)))
    assert [(r.question, r.answer) for r in dataset.rows] == [("capital?", "Paris")]
