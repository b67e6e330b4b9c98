"""Crafted dataset files through the real CLI: each is refused before anything is loaded
or run, with exit 2 and one line naming the file, the place and the fix; never a
traceback, an abort or unbounded memory.

The .xlsx files are written by hand (``crafted``): today's python-calamine aborts the whole
process (a Rust allocation failure, exit 134) on a 5 KB file with one cell at XFD1048576.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import xlsxwriter
from tests.cli.conftest import RunCli
from tests.datasets.crafted import (
    HEADER_AND_ONE_ROW,
    MAIN,
    SHEET,
    row,
    sheet,
    text_cell,
    write_bomb,
    write_xlsx,
)

ECHO = "def respond(query, session_id):\n    return query\n"
TOOLS = "[{'name': 'get_weather', 'arguments': {'location': 'Seattle'}}]".replace("'", '"')
TOOL_HINT = f"; expected a JSON array such as {TOOLS}"
DELETE = "(select them, right-click, Delete) and save"
RESAVE = "open it in Excel or LibreOffice and save it again"
TOO_WIDE = (
    "the first sheet has a value in cell {cell}, which makes it {width} columns wide "
    "(A to {last}); a dataset may have at most 1,000 columns: delete the columns past your "
    f"data {DELETE}"
)
BOMB = (
    "{part} inflates to more than 256 MiB, the most assay reads from one part of a workbook: "
    "split the dataset into smaller files (or save it as CSV, which is read as a stream)"
)


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    """The one line of a refusal (exit 2, nothing on stdout, no traceback)."""
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0].removeprefix("error: ")


def refused_by_validate_and_run(assay_cli: RunCli, tmp_path: Path, name: str) -> str:
    """``assay validate`` and ``assay run --dataset`` refuse ``name`` alike, with one line."""
    (tmp_path / "echo.py").write_text(ECHO)
    line = refused(assay_cli("validate", name))
    proc = assay_cli("run", "--dataset", name, "--target", "echo:respond", "--out", "r.json")
    assert refused(proc) == line
    assert not (tmp_path / "r.json").exists()  # nothing ran
    return line


def write(tmp_path: Path, name: str, rows: str) -> str:
    write_xlsx(tmp_path / name, sheet(rows))
    return name


# --- XLSX: the used range ---------------------------------------------------------------


def test_one_cell_at_xfd1048576_is_refused_before_calamine_loads_it(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    name = write(
        tmp_path, "far.xlsx", HEADER_AND_ONE_ROW + row(1048576, text_cell("XFD1048576", "x"))
    )
    assert (tmp_path / name).stat().st_size < 5_000
    line = refused_by_validate_and_run(assay_cli, tmp_path, name)
    assert line == "far.xlsx: " + TOO_WIDE.format(cell="XFD1048576", width="16,384", last="XFD")


def test_one_cell_at_xfd2000_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    name = write(tmp_path, "wide.xlsx", HEADER_AND_ONE_ROW + row(2000, text_cell("XFD2000", "x")))
    line = refused_by_validate_and_run(assay_cli, tmp_path, name)
    assert line == "wide.xlsx: " + TOO_WIDE.format(cell="XFD2000", width="16,384", last="XFD")


def test_a_thousand_columns_are_read_and_a_thousand_and_one_refused(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    # column ALL is the 1,000th: the file reaches the dataset's own rules, which refuse a
    # value under no header; column ALM, the 1,001st, is refused before loading
    header = row(1, text_cell("A1", "Question"))
    at_limit = write(
        tmp_path, "a.xlsx", header + row(2, text_cell("A2", "q"), text_cell("ALL2", "x"))
    )
    assert refused(assay_cli("validate", at_limit)) == (
        "a.xlsx: row 2, column ALL: a value in column ALL, which has no name in the header "
        "row: name the column, or delete the value"
    )
    over = write(tmp_path, "b.xlsx", header + row(2, text_cell("A2", "q"), text_cell("ALM2", "x")))
    assert refused(assay_cli("validate", over)) == "b.xlsx: " + TOO_WIDE.format(
        cell="ALM2", width="1,001", last="ALM"
    )


def test_ten_million_cells_counted_from_row_1_are_the_most(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    # ten columns named on row 1 and a value on Excel's last row: 1,048,576 x 10 cells
    header = row(1, *(text_cell(f"{letter}1", f"c{letter}") for letter in "ABCDEFGHIJ"))
    name = write(tmp_path, "tall.xlsx", header + row(1048576, text_cell("A1048576", "x")))
    assert refused(assay_cli("validate", name)) == (
        "tall.xlsx: the first sheet has a value in cell A1048576, which makes it 1,048,576 rows "
        "× 10 columns = 10,485,760 cells; assay reads at most 10,000,000: delete the rows past "
        f"your data {DELETE}, or split the file"
    )


def test_a_formatted_but_empty_far_cell_is_not_a_used_cell(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    # Excel writes a formatted blank cell as <c r=... s=.../>; calamine skips it, so must we
    far = '<row r="1048576"><c r="XFD1048576" s="1"/></row>'
    name = write(tmp_path, "styled.xlsx", HEADER_AND_ONE_ROW + far)
    proc = assay_cli("validate", name)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "SINGLE-TURN \u2014 1 rows"


@pytest.mark.parametrize(
    ("cells", "cell", "width", "last"),
    [
        # cells without r sit after the previous cell of their row: the 1,001st is at ALM2
        ('<row r="2">' + "<c><v>1</v></c>" * 1001 + "</row>", "ALM2", "1,001", "ALM"),
        # an XML prefix on the cell element
        (
            f'<row r="3"><x:c xmlns:x="{MAIN}" r="XFD3" t="inlineStr"><x:is><x:t>v</x:t>'
            "</x:is></x:c></row>",
            "XFD3",
            "16,384",
            "XFD",
        ),
        # attributes in single quotes, spaces around the =
        ("<row r='4'><c r = 'XFD4'><v>1</v></c></row>", "XFD4", "16,384", "XFD"),
    ],
    ids=["cells-without-r", "prefixed", "unusual-quoting"],
)
def test_cells_in_any_form_calamine_reads_are_counted(
    assay_cli: RunCli, tmp_path: Path, cells: str, cell: str, width: str, last: str
) -> None:
    name = write(tmp_path, "odd.xlsx", row(1, text_cell("A1", "Question")) + cells)
    line = refused(assay_cli("validate", name))
    assert line == "odd.xlsx: " + TOO_WIDE.format(cell=cell, width=width, last=last)


def test_a_cell_past_the_last_row_a_spreadsheet_has(assay_cli: RunCli, tmp_path: Path) -> None:
    # calamine would wrap the row number round to 1,215,752,190 and walk as many rows
    name = write(tmp_path, "past.xlsx", HEADER_AND_ONE_ROW + row(3, text_cell("A99999999999", "x")))
    assert refused(assay_cli("validate", name)) == (
        "past.xlsx: the first sheet has a value in cell A99999999999, past the last row "
        "(1,048,576) or column (XFD) a spreadsheet has: the file was not written by a "
        f"spreadsheet program; {RESAVE}"
    )


def test_a_hundred_thousand_merged_ranges_are_the_most(assay_cli: RunCli, tmp_path: Path) -> None:
    merges = '<mergeCell ref="B5:C5"/>' * 100_001
    xml = sheet(HEADER_AND_ONE_ROW).replace(
        "</sheetData>", f'</sheetData><mergeCells count="100001">{merges}</mergeCells>'
    )
    write_xlsx(tmp_path / "merged.xlsx", xml)
    assert refused(assay_cli("validate", "merged.xlsx")) == (
        "merged.xlsx: the first sheet has more than 100,000 merged ranges: unmerge them "
        "(select all, Merge & Center off) and save"
    )


def test_an_xml_entity_bomb_in_a_sheet_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    entities = '<!ENTITY a "aaaaaaaaaa">' + "".join(
        f'<!ENTITY {b} "&{a};&{a};&{a};&{a};&{a};&{a};&{a};&{a};&{a};&{a};">'
        for a, b in zip("abcdefgh", "bcdefghi", strict=True)
    )
    prefixed = f'<row r="2"><x:c xmlns:x="{MAIN}" r="A2" t="inlineStr"><x:is><x:t>&i;</x:t>'
    xml = sheet(row(1, text_cell("A1", "Question")) + prefixed + "</x:is></x:c></row>")
    xml = xml.replace("<worksheet", f"<!DOCTYPE worksheet [{entities}]><worksheet", 1)
    write_xlsx(tmp_path / "laughs.xlsx", xml)
    assert refused(assay_cli("validate", "laughs.xlsx")) == (
        f"laughs.xlsx: {SHEET} declares a DOCTYPE, which no workbook has: {RESAVE}"
    )


def test_a_duration_python_cannot_hold_is_one_line(assay_cli: RunCli, tmp_path: Path) -> None:
    book = xlsxwriter.Workbook(str(tmp_path / "d.xlsx"))
    sheet_ = book.add_worksheet()
    sheet_.write_row(0, 0, ["Question", "Answer"])
    sheet_.write_row(1, 0, ["q", "a"])
    sheet_.write(2, 0, "how long?")
    sheet_.write_number(2, 1, 1e15, book.add_format({"num_format": "[h]:mm:ss"}))
    book.close()
    line = refused(assay_cli("validate", "d.xlsx"))
    assert line.startswith(
        "d.xlsx: row 3: a cell formatted as a date or time holds a number no date or "
        "duration can be ("
    )
    assert line.endswith("): format the cell as a number or as text")


# --- XLSX: zip bombs --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "lie"),
    [(SHEET, False), ("xl/sharedStrings.xml", False), (SHEET, True)],
    ids=["sheet", "shared-strings", "sheet-with-false-sizes"],
)
def test_a_zip_bomb_is_refused_after_256_mib(
    assay_cli: RunCli, tmp_path: Path, part: str, lie: bool
) -> None:
    # 300 MiB of one string, 300 KiB on disk; with false sizes the zip claims 229 bytes
    write_bomb(tmp_path / "bomb.xlsx", part, 300, lie=lie)
    assert (tmp_path / "bomb.xlsx").stat().st_size < 400_000
    line = refused_by_validate_and_run(assay_cli, tmp_path, "bomb.xlsx")
    assert line == "bomb.xlsx: " + BOMB.format(part=part)


def test_a_part_under_the_limit_is_read(assay_cli: RunCli, tmp_path: Path) -> None:
    write_bomb(tmp_path / "big.xlsx", SHEET, 2)  # 2 MiB of "A" in A1: read, then judged
    line = refused(assay_cli("validate", "big.xlsx"))
    assert line.startswith("big.xlsx: columns: no Question column")


# --- JSON in a dataset: nesting and long integers --------------------------------------


def test_deep_nesting_in_a_jsonl_line(assay_cli: RunCli, tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "deep.jsonl").write_text(
        '{"Question": "q"}\n{"Question": "q", "x": ' + deep + "}\n"
    )
    line = refused_by_validate_and_run(assay_cli, tmp_path, "deep.jsonl")
    assert line == "deep.jsonl: line 2: nested more than 100 levels deep: flatten it"


def test_an_integer_of_5000_digits_in_a_jsonl_line(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "big.jsonl").write_text('{"Question": "q", "Answer": ' + "9" * 5000 + "}\n")
    line = refused_by_validate_and_run(assay_cli, tmp_path, "big.jsonl")
    assert (
        line
        == "big.jsonl: line 1: a number with more than 4,300 digits: write it as text, in quotes"
    )


@pytest.mark.parametrize(
    ("cell", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 100 levels deep: flatten it"),
        (
            '[{""name"": ""add"", ""arguments"": {""a"": ' + "1" * 5000 + "}}]",
            "a number with more than 4,300 digits: write it as text, in quotes",
        ),
    ],
    ids=["deep", "long-integer"],
)
def test_an_expected_tool_calls_cell_past_a_limit(
    assay_cli: RunCli, tmp_path: Path, cell: str, problem: str
) -> None:
    (tmp_path / "tools.csv").write_text(f'Question,expected_tool_calls\nq,"{cell}"\n')
    line = refused_by_validate_and_run(assay_cli, tmp_path, "tools.csv")
    assert line == f"tools.csv: row 2, column expected_tool_calls: {problem}{TOOL_HINT}"


@pytest.mark.parametrize("kind", ["jsonl", "xlsx"])
def test_validate_json_reports_a_refusal_as_an_error(
    assay_cli: RunCli, tmp_path: Path, kind: str
) -> None:
    if kind == "jsonl":
        (tmp_path / "bad.jsonl").write_text('{"Question": ' + "[" * 5000 + "]" * 5000 + "}\n")
        path, message = "line 1", "nested more than 100 levels deep: flatten it"
    else:
        write(tmp_path, "bad.xlsx", HEADER_AND_ONE_ROW + row(9, text_cell("XFD9", "x")))
        path, message = "", TOO_WIDE.format(cell="XFD9", width="16,384", last="XFD")
    name = f"bad.{kind}"
    proc = assay_cli("validate", name, "--json")
    assert proc.returncode == 2 and proc.stderr == ""
    report = json.loads(proc.stdout)
    assert report["kind"] is None
    text = f"{name}: {path}: {message}" if path else f"{name}: {message}"
    assert report["errors"] == [{"source": name, "path": path, "message": message, "text": text}]


# --- control characters in ids and names; NUL in free text ------------------------------


def test_a_nul_in_a_session_id_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "nul.csv").write_text("session_id,Question\ns1,hi\ns\x002,there\n")
    line = refused_by_validate_and_run(assay_cli, tmp_path, "nul.csv")
    assert line == (
        "nul.csv: row 3, column session_id: the session_id contains NUL (U+0000) at character "
        "2: names and ids are plain text, so remove it"
    )


def test_a_line_break_in_a_turn_id_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    rows = [{"session_id": "s", "turn_id": "1\n2", "Question": "q"}]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert refused(assay_cli("validate", "t.jsonl")) == (
        "t.jsonl: line 1, column turn_id: the turn_id contains a line break (U+000A) at "
        "character 2: names and ids are plain text, so remove it"
    )


def test_a_control_character_in_an_xlsx_session_id(assay_cli: RunCli, tmp_path: Path) -> None:
    # Excel writes U+0001 as _x0001_, which calamine reads back as the character
    header = row(1, text_cell("A1", "session_id"), text_cell("B1", "Question"))
    write(tmp_path, "c.xlsx", header + row(2, text_cell("A2", "a_x0001_b"), text_cell("B2", "q")))
    assert refused(assay_cli("validate", "c.xlsx")) == (
        "c.xlsx: row 2, column session_id: the session_id contains a control character "
        "(U+0001) at character 2: names and ids are plain text, so remove it"
    )


def test_a_nul_in_an_expected_tool_name_is_refused(assay_cli: RunCli, tmp_path: Path) -> None:
    calls = [{"name": "get\u0000weather", "arguments": {}}]
    (tmp_path / "t.jsonl").write_text(json.dumps({"Question": "q", "tools": calls}) + "\n")
    assert refused(assay_cli("validate", "t.jsonl")) == (
        "t.jsonl: line 1, column tools: tool call 1: the tool name contains NUL (U+0000) at "
        "character 4: names and ids are plain text, so remove it"
    )


def test_a_nul_in_free_text_reaches_the_agent_unchanged(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "echo.py").write_text(ECHO)
    (tmp_path / "free.csv").write_text('Question,Answer\n"say a\x00b","say a\x00b"\n')
    proc = assay_cli("run", "--dataset", "free.csv", "--target", "echo:respond", "--out", "r.json")
    assert proc.returncode == 0, proc.stderr  # the agent echoed "say a\0b": equality passed
    (result,) = json.loads((tmp_path / "r.json").read_text())["results"]
    # no store holds NUL (PostgreSQL refuses it): the stored text says where it was
    assert result["test_input"] == result["agent_response"] == "say a\ufffdb"
    assert any("NUL" in w for w in result["warnings"]), result["warnings"]
    assert result["passed"] is True
