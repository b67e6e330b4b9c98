"""JSONL specifics, written by hand: keys are columns (collected over every line), line
numbers locate problems, values keep their JSON meaning."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.datasets import load_dataset, validate_dataset
from assay.errors import DatasetError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


def _problems(path: Path) -> list[str]:
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    return [str(p) for p in info.value.problems]


def test_keys_from_every_line_are_columns(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"question": "Q1"}\n'
        '{"question": "Q2", "answer": "A2", "session_id": "s", "turn_id": 2}\n'
        '{"question": "Q3", "session_id": "s", "turn_id": 1, "tools": [{"name": "t"}]}\n',
    )
    dataset = load_dataset(path)
    assert dataset.column_map == {
        "question": "question",
        "answer": "answer",
        "session_id": "session_id",
        "turn_id": "turn_id",
        "expected_tool_calls": "tools",
    }
    assert [
        (c.session_id, [(r.row_number, r.question) for r in c.rows]) for c in dataset.conversations
    ] == [
        (None, [(1, "Q1")]),
        ("s", [(3, "Q3"), (2, "Q2")]),
    ]
    assert dataset.conversations[1].rows[0].expected_tools == [{"name": "t", "args": {}}]
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    )


def test_tool_calls_may_be_a_json_array_or_a_string_of_one(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"Question": "a", "expected_tool_calls": [{"name": "x", "args": {"n": 1}}]}\n'
        '{"Question": "b", "expected_tool_calls": "[{\\"name\\": \\"y\\"}]"}\n'
        '{"Question": "c", "expected_tool_calls": []}\n'
        '{"Question": "d", "expected_tool_calls": null}\n',
    )
    assert [r.expected_tools for r in load_dataset(path).rows] == [
        [{"name": "x", "args": {"n": 1}}],
        [{"name": "y", "args": {}}],
        [],
        None,
    ]


def test_values_keep_their_json_meaning(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"Question": "Is it?", "Answer": true, "session_id": 1, "turn_id": 1.0}\n'
        '{"Question": "How many?", "Answer": 2.5, "session_id": "1", "turn_id": "2"}\n',
    )
    dataset = load_dataset(path)
    assert [
        (c.session_id, [(r.answer, r.turn_id) for r in c.rows]) for c in dataset.conversations
    ] == [("1", [("true", "1"), ("2.5", "2")])]


def test_blank_lines_are_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    path = _write(tmp_path, '\n{"Question": "a"}\n\n   \n{"Question": "b", "tools": "oops"}\n')
    assert _problems(path) == [
        f"{path}: line 5, column tools: not valid JSON (Expecting value at character 1); "
        'expected a JSON array such as [{"name": "get_weather", "arguments": {"location": '
        '"Seattle"}}]'
    ]


def test_invalid_lines_are_errors_with_their_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"Question": "a"}\n{"Question": "b",}\n["Question"]\n"text"\n')
    example = '{"Question": "Capital of France?", "Answer": "Paris"}'
    assert _problems(path) == [
        f"{path}: line 2: not valid JSON (Expecting property name enclosed in double quotes at "
        f"column 18): each line must be one JSON object, such as {example}",
        f"{path}: line 3: an array, not a JSON object: each line must be one JSON object, such "
        f"as {example}",
        f"{path}: line 4: a string, not a JSON object: each line must be one JSON object, such "
        f"as {example}",
    ]


def test_empty_file(tmp_path: Path) -> None:
    for text in ("", "\n  \n"):
        path = _write(tmp_path, text)
        assert _problems(path) == [f"{path}: the file is empty: expected one JSON object per line"]


def test_a_missing_key_is_a_blank_cell(tmp_path: Path) -> None:
    path = _write(
        tmp_path, '{"Question": "a", "Answer": "x"}\n{"Question": "b"}\n{"Answer": "y"}\n'
    )
    assert _problems(path) == [
        f"{path}: line 3, column Question: the question is blank: every row needs one (or "
        "delete the row)"
    ]


SURROGATE_FIX = (
    ": a \\ud800-\\udfff escape that is not half of a surrogate pair, which no UTF-8 text can "
    "hold, so it can be neither sent nor stored: write the character itself (or its whole "
    "pair, such as \\ud83d\\ude00), or remove the escape"
)


def test_a_lone_surrogate_anywhere_in_a_line_is_refused_where_it_is(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        '{"Question": "ok \\ud83d\\ude00"}\n'  # a whole pair: its character, accepted
        '{"Question": "two \\ud800", "Answer": "x \\udfff"}\n'
        '{"Question": "q", "expected_tool_calls": [{"name": "a", "args": {"q": "\\udc00"}}]}\n'
        '{"Question": "q", "Notes\\ud800": "y \\ud800"}\n'
        '{"Question": "q", "Notes\\ud800": "z"}\n',  # the same column: said once
    )
    expected = [
        f"{path}: line 2, column Question: the value holds a lone surrogate (U+D800) at "
        f"character 5{SURROGATE_FIX}",
        f"{path}: line 2, column Answer: the value holds a lone surrogate (U+DFFF) at "
        f"character 3{SURROGATE_FIX}",
        f"{path}: line 3, column expected_tool_calls: the value holds a lone surrogate "
        f"(U+DC00) at character 31{SURROGATE_FIX}",
        f"{path}: line 4: the column name 'Notes\\ud800' holds a lone surrogate (U+D800) at "
        f"character 6{SURROGATE_FIX}",
    ]
    assert _problems(path) == expected
    with pytest.raises(DatasetError) as info:  # a run's load says the same
        load_dataset(path)
    assert [str(p) for p in info.value.problems] == expected
    # the message can be printed: no lone surrogate of its own
    for line in expected:
        line.encode("utf-8")


def test_a_whole_surrogate_pair_is_its_character(tmp_path: Path) -> None:
    path = _write(tmp_path, '{"Question": "smile \\ud83d\\ude00", "Answer": "\\u00e9"}\n')
    [row] = load_dataset(path).rows
    assert (row.question, row.answer) == ("smile \U0001f600", "\u00e9")
