"""The limits every input file is held to: nesting, integer length, control characters in
names and ids (and none in free text)."""

from __future__ import annotations

import json

import pytest

from assay._json import load_bounded as load_json
from assay._json import nesting
from assay.datasets.tool_calls import ToolCallsError, parse_expected_tools
from assay.limits import MAX_NESTING, ValueLimitError, control_character


def test_nesting_counts_arrays_and_objects() -> None:
    assert [nesting(v) for v in ("x", 1, [], {"a": [1, {"b": None}]}, [[[]]])] == [0, 0, 1, 3, 3]


def test_a_hundred_levels_load_and_a_hundred_and_one_do_not() -> None:
    assert MAX_NESTING == 100
    assert nesting(load_json("[" * 100 + "]" * 100)) == 100
    with pytest.raises(ValueLimitError, match="^nested more than 100 levels deep: flatten it$"):
        load_json("[" * 101 + "]" * 101)
    with pytest.raises(ValueLimitError, match="nested more than 100"):
        load_json('{"a": ' * 50_000 + "1" + "}" * 50_000)  # past the parser's recursion


def test_integers_up_to_python_s_digit_limit_load() -> None:
    assert load_json("9" * 4300) == int("9" * 4300)
    with pytest.raises(ValueLimitError, match="more than 4,300 digits: write it as text"):
        load_json("9" * 4301)
    with pytest.raises(json.JSONDecodeError):
        load_json("[1,")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("plain", None),
        ("a\x00b", "NUL (U+0000) at character 2"),
        ("\tx", "a tab (U+0009) at character 1"),
        ("ab\x1b[2J", "ESC (U+001B) at character 3"),
        ("x\x9b", "a control character (U+009B) at character 2"),
        ("x\ud800", "a lone surrogate (U+D800) at character 2"),
        ("caf\u00e9 \u2014 \U0001f600", None),
    ],
)
def test_control_characters_are_named(text: str, found: str | None) -> None:
    assert control_character(text) == found


def test_tool_and_argument_names_are_names_and_argument_values_are_data() -> None:
    cell = '[{"name": "search", "arguments": {"q": "a\\u0000b\\nc"}}]'
    assert parse_expected_tools(cell) == [{"name": "search", "args": {"q": "a\x00b\nc"}}]
    with pytest.raises(ToolCallsError) as info:
        parse_expected_tools('[{"name": "search", "arguments": {"q\\u0000": 1}}]')
    assert str(info.value) == (
        "tool call 1 (search): the argument name contains NUL (U+0000) at character 2: names "
        "and ids are plain text, so remove it"
    )
