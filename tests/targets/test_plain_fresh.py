"""JSON that assay just decoded is checked against ``plain_json``'s limits without being
copied: the same value when it keeps to them, the same error as the copy when it does not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.errors import TargetError
from assay.target_config import ResponseMapping
from assay.targets._plain import MAX_DEPTH, MAX_VALUES, body_within_limits, plain_json
from assay.targets.base import tool_invocations
from assay.targets.http import ReplyMapping, decode_json


def nested(levels: int) -> str:
    """A JSON list with ``levels`` lists inside it, one in the other."""
    return "[" * (levels + 1) + "]" * (levels + 1)


WITHIN = {
    "tool calls": '[{"name": "t", "args": {"q": "x", "n": [1, 2.5, true, null]}, "result": 42}]',
    "deepest allowed": nested(MAX_DEPTH - 1),
    "largest integer": "[" + "9" * 4_200 + "]",
    "most values": "[" + ",".join(["0"] * MAX_VALUES) + "]",
    "nan": "[NaN, Infinity]",
}
BEYOND = {
    "too deep": nested(MAX_DEPTH),
    "integer too long": '{"a": [' + "9" * 4_250 + "]}",
    "too many values": "[" + ",".join(["0"] * (MAX_VALUES + 1)) + "]",
    "too many values below": '{"a": [' + ",".join(["0"] * MAX_VALUES) + "]}",
}


def refusal(value: Any, fresh: bool) -> str:
    with pytest.raises(TargetError) as caught:
        plain_json(value, "tool_invocations", fresh=fresh)
    return str(caught.value)


@pytest.mark.parametrize("name", WITHIN)
def test_decoded_json_within_the_limits_is_not_copied(name: str) -> None:
    decoded = json.loads(WITHIN[name])

    kept = plain_json(decoded, "tool_invocations", fresh=True)

    assert kept is decoded
    assert json.dumps(plain_json(decoded, "tool_invocations")) == json.dumps(decoded)


@pytest.mark.parametrize("name", BEYOND)
def test_decoded_json_beyond_the_limits_fails_as_the_copy_does(name: str) -> None:
    decoded = json.loads(BEYOND[name])

    assert refusal(decoded, fresh=True) == refusal(decoded, fresh=False)


def test_tool_calls_read_from_decoded_json_are_the_same_as_from_a_copy() -> None:
    raw = WITHIN["tool calls"]

    assert tool_invocations(json.loads(raw), decoded=True) == tool_invocations(json.loads(raw))


def test_a_body_shown_within_the_limits_holds_only_what_the_walk_keeps() -> None:
    # body_within_limits answers from the bytes; whenever it says yes, the walk agrees
    shown = [
        raw for raw in [*WITHIN.values(), *BEYOND.values()] if body_within_limits(raw.encode())
    ]
    assert shown == [WITHIN["tool calls"], WITHIN["deepest allowed"], WITHIN["nan"]]
    for raw in shown:
        decoded = json.loads(raw)
        assert plain_json(decoded, "tool_invocations", fresh=True) is decoded


def test_a_body_too_deep_or_too_long_is_left_to_the_walk() -> None:
    assert body_within_limits(nested(MAX_DEPTH - 1).encode())  # 64 brackets
    assert not body_within_limits(nested(MAX_DEPTH).encode())  # 65: the walk decides
    assert not body_within_limits(b'"' + b"x" * 4_000 + b'"')  # long: the walk decides
    assert body_within_limits(b'"' + b"x" * 3_998 + b'"')
    # brackets inside strings count too: the answer errs towards the walk
    assert not body_within_limits(json.dumps({"a": "[" * MAX_DEPTH}).encode())


@pytest.mark.parametrize("raw", [WITHIN["tool calls"], '"text"', "7", "null", "{}", '[{"a": 1}]'])
def test_tool_calls_from_a_body_within_the_limits_are_read_as_before(raw: str) -> None:
    def read(**flags: bool) -> Any:
        try:
            return tool_invocations(json.loads(raw), **flags)
        except TargetError as exc:
            return str(exc)

    assert body_within_limits(raw.encode())
    assert read(decoded=True, within_limits=True) == read(decoded=True) == read()


@pytest.mark.filterwarnings("ignore:The `|` .union. operator is deprecated")
@pytest.mark.parametrize("path", ["$.args", "$ | $", "$..args"])
def test_a_path_that_wraps_its_matches_is_walked_as_before(path: str) -> None:
    """A path with several matches hands over a new list, a level deeper than the body's
    brackets: 64 brackets in the body can make 65 levels, which the walk refuses."""
    inner: Any = 1
    for _ in range(MAX_DEPTH - 1):
        inner = {"a": inner}
    raw = json.dumps({"response": "hi", "args": {"name": "t", "args": inner}}).encode()
    assert raw.count(b"{") == MAX_DEPTH + 1 and not body_within_limits(raw)
    raw = raw.replace(b'{"response": "hi", "args": ', b"", 1)[:-1]  # the call itself
    assert raw.count(b"{") == MAX_DEPTH and body_within_limits(raw)
    mapping = ReplyMapping(ResponseMapping(text="$.name", tool_invocations=path), "t")

    def read(within: bool) -> str:
        try:
            reply, _ = mapping.reply(decode_json(raw, "u"), "u", within)
        except TargetError as exc:
            return str(exc)
        return repr(reply.tool_invocations)

    assert read(True) == read(False)
