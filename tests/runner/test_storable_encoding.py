"""``storable_payload``'s JSON and rows, compared over ordinary, random and hostile results
with the path they are made by for a proved result (``_clean_text`` through ``to_json``):
the same bytes, rows exactly when they were handed over before and then ``prepare_json``'s
of those bytes, and the walk for everything the search finds (a lone surrogate anywhere,
in a key too; NUL; a URL's user info; a secret), with its warnings."""

from __future__ import annotations

import random
from typing import Any

import pytest
from pydantic_core import to_json

from assay.results.models import TestResult, TurnResult
from assay.runner import storable as storable_module
from assay.runner.storable import _walked, proved_rows, storable_payload
from assay.secrets import Redactor
from assay.store._rows import prepare_json, prepared_of
from tests.runner.test_storable_fast_path import CLEAN, HOSTILE, PLACES
from tests.store.test_prepared_rows import FIELDS
from tests.store.test_proved_rows import call, measured, random_result, sent


def old_payload(result: TestResult) -> tuple[TestResult, bytes, bool]:
    """What ``storable_payload`` gave before: ``to_json``'s bytes of a proved result when its
    search passes, else the walk's; and whether rows went with them."""
    proved = proved_rows(result) is not None
    text = (
        storable_module._clean_text(result)  # (its default: to_json)
        if proved
        else storable_module._clean_json(result)
    )
    if text is not None:
        return result, text, proved
    fixed = _walked(result)
    return fixed, fixed.__pydantic_serializer__.to_json(fixed), False


def assert_as_before(result: TestResult) -> bool:
    """``storable_payload`` gives what the old path gives: the same model (the same object
    when kept), the same bytes, rows exactly when it did, and those rows are
    ``prepare_json``'s of the bytes; whether rows were handed over."""
    expected, expected_payload, had_rows = old_payload(result)
    stored, payload, rows = storable_payload(result)
    assert payload == expected_payload
    assert (stored is result) == (expected is result)
    assert stored == expected and stored.warnings == expected.warnings
    assert (rows is not None) == had_rows
    if rows is None:
        return False
    assert TestResult.model_validate_json(payload) == TestResult.model_validate_json(
        to_json(result)
    )
    slow = prepare_json(payload)
    assert slow is not None
    fast = prepared_of(payload.decode(), rows)
    for name in FIELDS:  # repr: 1 and 1.0, True and 1, -0.0 and 0.0 differ
        assert repr(getattr(fast, name)) == repr(getattr(slow, name)), name
    return True


def test_the_usual_result_is_serialised_as_to_json_serialises_it() -> None:
    result = sent()
    assert assert_as_before(result)
    assert storable_payload(result)[1] == to_json(result) == result.model_dump_json().encode()


def test_random_results_are_serialised_as_before() -> None:
    rng = random.Random(1515)
    proved = sum(assert_as_before(random_result(rng)) for _ in range(400))
    assert proved > 300


@pytest.mark.parametrize("value", list(CLEAN.values()) + list(HOSTILE.values()))
@pytest.mark.parametrize("place", list(PLACES.values()), ids=list(PLACES))
def test_clean_and_hostile_values_anywhere_go_the_same_way(place: Any, value: Any) -> None:
    assert_as_before(place(value))


@pytest.mark.parametrize(
    "text",
    ["a\ud800b", "\udfff", "\ud83d\ude00"],  # lone ones, and a pair held as two code points
    ids=["lone high", "lone low", "split pair"],
)
@pytest.mark.parametrize(
    "fields",
    [
        lambda text: {"agent_response": text},
        lambda text: {"tags": [text]},
        lambda text: {"metrics_not_run": {"m": text}},
        lambda text: {"tool_invocations": [call(name=text)]},
        lambda text: {"tool_invocations": [call(args={"q": text})]},
        lambda text: {"tool_invocations": [call(args={"q": {text: 1}})]},
        lambda text: {"metric_results": [measured(reasoning=text)]},
        # a key of a typed dict field: pydantic writes U+FFFD for each of its bytes
        lambda text: {"metrics_not_run": {text: "why"}},
        lambda text: {"tool_invocations": [call(args={text: 1})]},
        lambda text: {"metric_results": [measured(details={text: 1})]},
        lambda text: {"trace": {text: 1}},
    ],
    ids=[
        *("response", "tag", "not run", "tool name", "args", "args nested key"),
        *("reasoning", "not run key", "args key", "details key", "trace key"),
    ],
)
def test_a_surrogate_in_a_proved_result_is_walked(text: str, fields: Any) -> None:
    """Found here: in a key of a typed dict field a surrogate did not fail the JSON, and the
    result was stored with U+FFFD three times for it, without a warning, beside proved rows
    (a tool call's args column) that held the surrogate."""
    result = sent(**fields(text))
    assert proved_rows(result) is not None  # the proof takes any str: the JSON refuses it
    stored, payload, rows = storable_payload(result)
    assert rows is None and stored is not result
    assert any("surrogate" in warning for warning in stored.warnings)
    assert b"\xef\xbf\xbd\xef\xbf\xbd" not in payload  # one U+FFFD for one surrogate
    assert_as_before(result)
    assert prepare_json(payload) is not None


def test_a_result_holding_u_fffd_itself_is_stored_as_it_is() -> None:
    """U+FFFD is also what the search finds for a surrogate in a key: such a result goes to
    the walk, which changes nothing; the same JSON is stored (without proved rows)."""
    result = sent(agent_response="bad byte \ufffd", metrics_not_run={"\ufffd": "why"})
    stored, payload, rows = storable_payload(result)
    assert stored is result and not stored.warnings and rows is None
    assert payload == to_json(result)


@pytest.mark.parametrize(
    "text",
    ["NUL \x00 here", "see https://user:pw@example.com/x", 'the key is s3cr3t"tok\n !'],
)
def test_what_the_search_finds_in_a_proved_result_is_walked(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storable_module, "REDACTOR", Redactor(['s3cr3t"tok\n']))
    result = sent(agent_response=text, tool_invocations=[call(args={"q": text})])
    assert proved_rows(result) is not None
    stored, payload, rows = storable_payload(result)
    assert rows is None and stored is not result
    assert b"\\u0000" not in payload and b"pw@" not in payload and b"s3cr3t" not in payload
    assert_as_before(result)


def test_a_surrogate_key_in_a_turn_is_walked() -> None:
    """The same search for a result the proof leaves to ``_clean_json`` (a multi-turn one)."""
    turn = TurnResult(turn_index=0, input="hi", passed=True, execution_time_ms=1)
    turn.metrics_not_run = {"a\ud800b": "why"}
    result = sent(test_type="multi_turn", turns=[turn])
    stored, payload, rows = storable_payload(result)
    assert rows is None and stored is not result
    assert stored.warnings == [
        "turns[0].metrics_not_run.a\ufffdb: unpaired surrogate characters replaced with U+FFFD"
    ]
    assert b'{"a\xef\xbf\xbdb":"why"}' in payload
