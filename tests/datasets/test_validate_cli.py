"""``assay validate FILE [--json]``: the shape line first, then the columns, then warnings;
exit 0 when usable, 2 when not; ``--json`` prints one object, errors included."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import assay.cli.validate  # noqa: F401  (registers the command)
from assay.cli.app import app

runner = CliRunner()

MULTI = (
    "session_id,turn_id,Question,Answer,expected_tool_calls,Notes\n"
    's1,1,Cheap hotel?,Holiday Inn,"[{""name"": ""search_hotels""}]",n\n'
    's1,2,Book it.,Booked,"[{""name"": ""book_hotel"", ""arguments"": {""hotel_id"": 8}}]",\n'
    "s2,1,Hi,Hello,,\n"
    ",,Alone,Yes,,\n"
)


def _file(tmp_path: Path, text: str, name: str = "data.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_text_output(tmp_path: Path) -> None:
    path = _file(tmp_path, MULTI)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "MULTI-TURN — 4 rows, 3 conversations (grouped by session_id)",
        "columns: session_id → session_id, turn_id → turn_id, Question → question, "
        "Answer → answer, expected_tool_calls → expected_tool_calls",
        "ignored columns: Notes",
    ]
    assert result.stderr == ""


def test_text_output_with_warnings(tmp_path: Path) -> None:
    path = _file(tmp_path, "Session_ID,Query\na,Q1\na,Q2\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "SINGLE-TURN — 2 rows",
        "columns: Query → question",
        "ignored columns: Session_ID",
        "warning: column 'Session_ID' not recognised: did you mean session_id? this file will "
        "run as SINGLE-TURN (session_id and turn_id are read literally, in lower case)",
        "warning: no Answer column (also accepted: Expected_Answer, Expected_Output, Expected): "
        "the comparison metrics that need an expected answer (equality, numeric, correctness "
        "and the like) will not run; safety, performance and reasoning metrics still will when the "
        "suite lists them (pii, latency, relevance with --judge); without any, each row is not run",
    ]


def test_json_output(tmp_path: Path) -> None:
    path = _file(tmp_path, MULTI)
    result = runner.invoke(app, ["validate", str(path), "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "file": str(path),
        "shape": "MULTI-TURN — 4 rows, 3 conversations (grouped by session_id)",
        "kind": "MULTI-TURN",
        "rows": 4,
        "conversations": 3,
        "columns": {
            "session_id": "session_id",
            "turn_id": "turn_id",
            "question": "Question",
            "answer": "Answer",
            "expected_tool_calls": "expected_tool_calls",
        },
        "ignored_columns": ["Notes"],
        "warnings": [],
        "errors": [],
    }


def test_an_unusable_file_exits_2_with_one_message(tmp_path: Path) -> None:
    path = _file(tmp_path, "Question,tools\nQ1,[oops\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f"error: {path}: row 2, column tools: not valid JSON (Expecting value at character 2); "
        'expected a JSON array such as [{"name": "get_weather", "arguments": {"location": '
        '"Seattle"}}]'
    ]
    assert "Traceback" not in result.stderr


def test_an_unusable_file_with_json_prints_the_errors(tmp_path: Path) -> None:
    path = _file(tmp_path, "Answer\nA\n")
    result = runner.invoke(app, ["validate", str(path), "--json"])
    assert result.exit_code == 2
    message = (
        "no Question column (also accepted: Query, Input, in any capitalisation); the columns "
        "are: 'Answer'"
    )
    assert json.loads(result.stdout) == {
        "file": str(path),
        "shape": None,
        "kind": None,
        "rows": None,
        "conversations": None,
        "columns": {},
        "ignored_columns": [],
        "warnings": [],
        "errors": [
            {
                "source": str(path),
                "path": "columns",
                "message": message,
                "text": f"{path}: columns: {message}",
            }
        ],
    }


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_missing_file_exits_2(tmp_path: Path, json_flag: list[str]) -> None:
    result = runner.invoke(app, ["validate", str(tmp_path / "nope.xlsx"), *json_flag])
    assert result.exit_code == 2
    assert "file not found" in (result.stdout if json_flag else result.stderr)


def test_column_names_are_printed_literally(tmp_path: Path) -> None:
    path = _file(tmp_path, "Question,[bold]x[/bold] :smile:\nQ,1\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.stdout.splitlines()[2] == "ignored columns: [bold]x[/bold] :smile:"


def test_a_lone_surrogate_in_a_jsonl_cell_exits_2_for_validate_and_run(tmp_path: Path) -> None:
    import subprocess

    from tests.cli.conftest import ASSAY

    path = _file(tmp_path, '{"Question": "hi \\ud800"}\n', "data.jsonl")
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return 'ok'\n")
    (tmp_path / "suite.yaml").write_text("name: s\ntarget: {python: 'agent:respond'}\n")
    message = (
        "error: data.jsonl: line 1, column Question: the value holds a lone surrogate (U+D800) "
        "at character 4: a \\ud800-\\udfff escape that is not half of a surrogate pair, which "
        "no UTF-8 text can hold, so it can be neither sent nor stored: write the character "
        "itself (or its whole pair, such as \\ud83d\\ude00), or remove the escape"
    )
    for args in (["validate", path.name], ["run", "suite.yaml", "--dataset", path.name]):
        proc = subprocess.run(
            [ASSAY, *args], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
        )
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr.splitlines()[0] == message
        assert "Traceback" not in proc.stderr


def test_merged_cells_filled_are_named_in_one_warning(tmp_path: Path) -> None:
    import xlsxwriter

    path = tmp_path / "merged.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, ["session_id", "Question", "Answer"])
    sheet.merge_range(1, 0, 2, 0, "s1")  # a conversation grouped as people do in Excel
    sheet.write_column(1, 1, ["Cheap hotel?", "Book it."])
    sheet.merge_range(1, 2, 2, 2, "Holiday Inn")
    book.close()
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == [
        "MULTI-TURN — 2 rows, 1 conversations (grouped by session_id)",
        "columns: session_id → session_id, Question → question, Answer → answer",
        "warning: 2 merged ranges (A2:A3, C2:C3): every cell a range covers reads as its "
        "top-left cell, as the spreadsheet shows it (unmerge the cells and fill each one in if "
        "that is not what you meant)",
        "warning: no turn_id column: each conversation's turns run in the order of the rows in "
        "the file; sorting or editing a spreadsheet reorders them silently, so add a turn_id "
        "column",
    ]
    as_json = json.loads(runner.invoke(app, ["validate", str(path), "--json"]).stdout)
    assert as_json["warnings"][0].startswith("2 merged ranges (A2:A3, C2:C3): ")
