"""The expected_tool_calls cell: parsing, and errors that name file, row and column."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import load_dataset, validate_dataset
from assay.datasets.tool_calls import ToolCallsError, parse_expected_tools
from assay.errors import DatasetError

Writer = Callable[..., Path]
EXAMPLE = '[{"name": "get_weather", "arguments": {"location": "Seattle"}}]'


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ("", None),
        ("   ", None),
        ("[]", []),
        (EXAMPLE, [{"name": "get_weather", "args": {"location": "Seattle"}}]),
        ('[{"name": "a", "args": {"x": [1, 2]}}]', [{"name": "a", "args": {"x": [1, 2]}}]),
        ('[{"name": "a"}, {"name": "b", "arguments": null}]',
         [{"name": "a", "args": {}}, {"name": "b", "args": {}}]),
        (' [{"name": "a", "arguments": {}}] ', [{"name": "a", "args": {}}]),
        # the reference service's spelling: tool_name and parameters
        ('[{"tool_name": "book_hotel", "parameters": {"hotel_id": 8}}]',
         [{"name": "book_hotel", "args": {"hotel_id": 8}}]),
        ('[{"tool_name": "search", "arguments": {"q": "x"}}, {"name": "b", "parameters": {}}]',
         [{"name": "search", "args": {"q": "x"}}, {"name": "b", "args": {}}]),
    ],
)  # fmt: skip
def test_valid_cells(cell: str, expected: list[dict[str, object]] | None) -> None:
    assert parse_expected_tools(cell) == expected


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("[{name: 'a'}]", "not valid JSON (Expecting property name enclosed in double quotes at "
         f"character 3); expected a JSON array such as {EXAMPLE}"),
        ("get_weather", "not valid JSON (Expecting value at character 1); expected a JSON array "
         f"such as {EXAMPLE}"),
        ('{"name": "a"}', f"a single object, not an array: wrap it in [ ], as in {EXAMPLE}"),
        ('"a"', f"expected a JSON array of tool calls, found a string; write it as {EXAMPLE}"),
        ('["lookup"]', 'tool call 1 is a string; each tool call is an object such as '
         '{"name": "lookup"}'),
        ('[{"name": "a"}, {"arguments": {}}]',
         'tool call 2 needs a "name" with the tool\'s name as a string'),
        ('[{"name": 3}]', 'tool call 1 needs a "name" with the tool\'s name as a string'),
        ('[{"name": "a", "arguments": "{\\"x\\": 1}"}]',
         'tool call 1 (a): "arguments" must be a JSON object such as {"location": "Seattle"}, '
         "found a string"),
        ('[{"name": "a", "args": [1]}]',
         'tool call 1 (a): "args" must be a JSON object such as {"location": "Seattle"}, '
         "found an array"),
        ('[{"tool_name": "a", "parameters": 1}]',
         'tool call 1 (a): "parameters" must be a JSON object such as {"location": "Seattle"}, '
         "found a number"),
        ('[{"name": "a", "tool_name": "b"}]',
         'tool call 1 has both "name" and "tool_name": keep one'),
        ('[{"name": "a", "arguments": {}, "parameters": {}}]',
         'tool call 1 (a) has both "arguments" and "parameters": keep one'),
        ('[{"name": "a", "args": {}, "arguments": {}}]',
         'tool call 1 (a) has both "arguments" and "args": keep one'),
        ('[{"name": "a", "arguments": {"city": "Basel", "city": "Bern"}}]',
         "the key 'city' is given twice in one object, and only the last would count: remove "
         'one of them; expected a JSON array such as [{"name": "get_weather", "arguments": '
         '{"location": "Seattle"}}]'),
        ('[{"name": "a", "type": "function", "id": 1}]',
         "tool call 1 (a) has unknown key(s) 'id', 'type': only \"name\" (or \"tool_name\") and "
         '"arguments" (or "args", "parameters") are allowed'),
    ],
)  # fmt: skip
def test_invalid_cells(cell: str, message: str) -> None:
    with pytest.raises(ToolCallsError) as info:
        parse_expected_tools(cell)
    assert str(info.value) == message


def test_an_error_names_the_file_row_and_column_as_written(
    table: Writer, where: Callable[[int], str]
) -> None:
    rows = [["Q1", "[]"], ["Q2", None], ["Q3", '[{"name": "x"'], ["Q4", '{"name": "y"}']]
    path = table(["Question", "Tools"], rows)
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    assert [(p.source, p.path) for p in info.value.problems] == [
        (str(path), f"{where(2)}, column Tools"),
        (str(path), f"{where(3)}, column Tools"),
    ]
    assert info.value.problems[1].message == (
        f"a single object, not an array: wrap it in [ ], as in {EXAMPLE}"
    )
    assert str(info.value).splitlines()[0] == (
        f"{path}: {where(2)}, column Tools: not valid JSON (Expecting ',' delimiter at character "
        f"14); expected a JSON array such as {EXAMPLE}"
    )


def test_tools_are_per_row_even_within_a_conversation(table: Writer) -> None:
    rows = [
        ["s", 2, "Book it", '[{"name": "book_hotel", "arguments": {"hotel_id": 8}}]'],
        ["s", 1, "Cheap hotel?", '[{"name": "search_hotels", "arguments": {"location": "Basel"}}]'],
    ]
    dataset = load_dataset(
        table(["session_id", "turn_id", "Question", "expected_tool_calls"], rows)
    )
    assert [r.expected_tools for r in dataset.conversations[0].rows] == [
        [{"name": "search_hotels", "args": {"location": "Basel"}}],
        [{"name": "book_hotel", "args": {"hotel_id": 8}}],
    ]
