"""The run process hands the writer a result's rows beside its JSON when it has proved them
(``proved_rows``, called by ``encode_result``): the writer then stores them without parsing
or validating the JSON, so they must be exactly what ``prepare_json`` of that JSON gives,
and the JSON must validate. Anything not proved goes the old way (no rows handed over)."""

from __future__ import annotations

import marshal
import random
from array import array
from typing import Any

import pytest

from assay.results.models import (
    MetricResult,
    ProcessedFile,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
    prevalidated,
)
from assay.results.rollup import sent_single_turn, single_turn_result
from assay.runner import storable as storable_module
from assay.runner.storable import proved_rows
from assay.runner.writer import ResultWriter, _frame, _unframe, encode_result
from assay.secrets import Redactor
from assay.store import open_store
from assay.store._rows import Prepared, prepare_json, prepared_of
from tests.runner.test_storable_fast_path import CLEAN, HOSTILE, PLACES
from tests.store.conftest import goal_result, multi_turn, run_info, single
from tests.store.test_prepared_rows import FIELDS, dump

STAMP = "2026-12-01T06:00:00.000+00:00"


def call(**fields: Any) -> ToolInvocation:
    """A tool call made as a target makes it (not validated): any types."""
    values = {"name": "lookup", "args": {}, "result": None, "bytes": None}
    values |= {"duration_ms": None, "error": None, **fields}
    return prevalidated(ToolInvocation, values, set(fields))


def measured(**fields: Any) -> MetricResult:
    """A metric result made as a metric makes it (not validated): any types."""
    values: dict[str, Any] = {
        "metric_name": "equality",
        "kind": "standard",
        "score": 1.0,
        "threshold": None,
        "passed": True,
        "scale": "0-1",
        "error": None,
        "retry_count": 0,
        "evaluation_time_ms": 0,
        "model_used": None,
        "reasoning": None,
        "dimension": None,
        "details": None,
    }
    values.update(fields)
    return prevalidated(MetricResult, values, set(fields))


def usage(**fields: Any) -> TokenUsage:
    values = {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}
    values |= {"cache_creation_tokens": 0, "cache_read_tokens": 0, **fields}
    return prevalidated(TokenUsage, values, set(fields))


class _Reply:
    def __init__(self, **fields: Any) -> None:
        self.text = fields.get("text", "42")
        self.token_usage = fields.get("token_usage", usage())
        self.time_to_first_token_ms = fields.get("ttft", 12.4)
        self.tool_invocations = fields.get("tool_invocations", [call(args={"q": "x"})])


def sent(**fields: Any) -> TestResult:
    """A sent single-turn result as a run makes it (``sent_single_turn``); ``fields``
    then set on it as they are, unchecked, as user code could leave them."""
    made = sent_single_turn(
        "t",
        "question?",
        "42",
        _Reply(),
        [measured()],
        7,
        STAMP,
        0,
        [],
    )
    assert made is not None
    values = {**made.__dict__, **fields}
    return prevalidated(TestResult, values, set(made.__pydantic_fields_set__))


def assert_proved_right(result: TestResult) -> bool:
    """The rows ``encode_result`` hands over, if any, are ``prepare_json``'s of its JSON,
    also after ``marshal`` (the hand-over); whether there were any."""
    _, payload, rows = encode_result(result)
    if rows is None:
        return False
    assert storable_module._plain_free_form(result)  # what the JSON's search relies on
    slow = prepare_json(payload)
    assert slow is not None, payload  # the JSON validates: the run stays readable
    TestResult.model_validate_json(payload)
    for handed in (rows, marshal.loads(marshal.dumps(rows))):
        fast = prepared_of(payload.decode(), handed)
        for name in FIELDS:  # repr: 1 and 1.0, True and 1, -0.0 and 0.0 differ
            assert repr(getattr(fast, name)) == repr(getattr(slow, name)), name
        assert fast.payload == slow.payload
    return True


def test_the_usual_result_is_proved_and_its_rows_are_the_validated_ones() -> None:
    assert assert_proved_right(sent())
    assert assert_proved_right(single("plain"))  # validated models: exact types too


@pytest.mark.parametrize("value", list(CLEAN.values()), ids=list(CLEAN))
@pytest.mark.parametrize("place", list(PLACES.values()), ids=list(PLACES))
def test_clean_values_anywhere_are_proved_alike(place: Any, value: Any) -> None:
    assert_proved_right(place(value))  # proved or not; if proved, right


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("place", list(PLACES.values()), ids=list(PLACES))
def test_what_the_walk_changes_is_never_proved(place: Any, value: Any) -> None:
    result = place(value)
    if storable_module.storable(result) is result:  # (text fields: the repr of most)
        assert_proved_right(result)
    else:
        assert encode_result(result)[2] is None


def test_a_masked_secret_is_never_proved(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storable_module, "REDACTOR", Redactor(["s3cr3t-token"]))
    stored, payload, rows = encode_result(sent(agent_response="the key is s3cr3t-token"))
    assert rows is None and b"s3cr3t" not in payload and stored.agent_response is not None


@pytest.mark.parametrize(
    "fields",
    [
        {"test_name": type("Name", (str,), {})("t")},  # a str subclass
        {"execution_time_ms": 7.0},  # a float for an int
        {"execution_time_ms": True},  # a bool for an int
        {"repeat_index": "0"},
        {"passed": 1},
        {"tools_matched": 0},
        {"status": "fine"},  # not one of the literal's values
        {"test_type": "vibes"},
        {"agent_response": 42},
        {"tool_calls": ["lookup", 3]},
        {"errors": [None]},
        {"warnings": [b"x"]},
        {"tags": [1]},
        {"metrics_not_run": {"m": 1}},
        {"trace": ["not", "a", "dict"]},
        {"token_usage": {"total_tokens": 3}},  # a dict, not the model
        {"token_usage": usage(total_tokens=3.0)},
        {"token_usage": usage(prompt_tokens=None)},
        {"tool_invocations": [call(args=["a", "list"])]},
        {"tool_invocations": [call(name=None)]},
        {"tool_invocations": [call(duration_ms=5.0)]},  # validation makes it 5
        {"tool_invocations": [call(duration_ms=2**63)]},  # clamped by the walk
        {"tool_invocations": [call(bytes=2.0)]},
        {"tool_invocations": [{"name": "lookup"}]},
        {"metric_results": [measured(score=1)]},  # an int score: 1.0 once validated
        {"metric_results": [measured(score=True)]},
        {"metric_results": [measured(kind="vibes")]},
        {"metric_results": [measured(scale="1-5")]},
        {"metric_results": [measured(details=[1, 2])]},
        {"metric_results": [measured(retry_count=None)]},
        {"metric_results": [measured(evaluation_time_ms=1.5)]},  # whole milliseconds
        {"metric_results": [measured(evaluation_time_ms=2.0)]},  # validation makes it 2
        {"metric_results": [measured(passed="yes")]},
        {"metric_results": [measured(reasoning=3)]},
        {"metric_results": ["not a metric"]},
        {"processed_files": [ProcessedFile.model_construct(name="f")]},
        {"expected_tools": ["lookup"]},  # asserted tools: the old way
        {"tool_mismatches": ["no call to 'x' found"]},  # (an assertion's): the old way too
        {"tool_mismatches": None},
        {"turns": []},
    ],
    ids=repr,
)
def test_a_wrong_type_from_user_code_is_not_proved(fields: dict[str, Any]) -> None:
    assert encode_result(sent(**fields))[2] is None


def test_a_model_missing_a_field_or_of_a_subclass_is_not_proved() -> None:
    values = dict(sent().__dict__)
    del values["tags"]
    assert proved_rows(prevalidated(TestResult, values, set())) is None
    values["surprise"] = []  # as many fields, one of them unknown
    assert len(values) == len(TestResult.model_fields)
    assert proved_rows(prevalidated(TestResult, values, set())) is None
    reordered = dict(reversed(list(sent().__dict__.items())))  # read by name: the same
    assert assert_proved_right(prevalidated(TestResult, reordered, set()))

    class Own(ToolInvocation):
        pass

    own = prevalidated(Own, dict(call().__dict__), set())
    assert encode_result(sent(tool_invocations=[own]))[2] is None


class _Lying(dict):  # type: ignore[type-arg]
    """A model's ``__dict__`` whose lookups say otherwise than its items (which pydantic's
    serializer writes): a plugin's instrumented mapping, or worse."""

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        return True if key == "passed" else value


def test_a_model_whose_dict_is_not_a_dict_is_not_proved() -> None:
    """Rows read through a dict subclass could differ from the JSON stored beside them
    (found by review: a metric's passed False in the JSON, True in its row)."""
    for make in (
        lambda: sent(passed=False, status="failed"),
        lambda: sent(metric_results=[measured(passed=False, score=0.1)]),
        lambda: sent(tool_invocations=[call()]),
        lambda: sent(token_usage=TokenUsage(prompt_tokens=1, completion_tokens=2)),
    ):
        result = make()
        assert assert_proved_right(result)  # proved with a real dict
        models: list[Any] = [result, *result.metric_results, *result.tool_invocations]
        models += [result.token_usage] if result.token_usage is not None else []
        for model in models:
            lying = make()
            same = [lying, *lying.metric_results, *lying.tool_invocations]
            same += [lying.token_usage] if lying.token_usage is not None else []
            target = same[models.index(model)]
            object.__setattr__(target, "__dict__", _Lying(target.__dict__))
            assert encode_result(lying)[2] is None, type(target).__name__


def test_a_result_with_turns_takes_the_old_way() -> None:
    assert encode_result(multi_turn())[2] is None
    assert assert_proved_right(goal_result())  # a goal test that ran no turn: none listed


def test_a_single_turn_result_with_tool_mismatches_is_stored_with_them(store_url: str) -> None:
    """A single-turn result whose tool assertion failed goes the old way (its JSON validated
    by the writer) and reads back from the store with its reasons."""
    reasons = ["'subtract' must not be called, found 1"]
    turn = TurnResult(
        turn_index=0,
        input="x",
        response="206588",
        expected_tools=[{"name": "subtract", "count": 0}],
        tool_calls=["subtract"],
        tool_invocations=[ToolInvocation(name="subtract", args={"a": 206588})],
        tools_matched=False,
        tool_mismatches=reasons,
        passed=False,
        execution_time_ms=5,
    )
    result = single_turn_result("cnt0", turn, STAMP)
    stored, payload, rows = encode_result(result)
    assert rows is None and stored.tool_mismatches == reasons
    store = open_store(store_url)
    store.create_run(run_info("mismatch"))
    writer = ResultWriter(store.reopen, "mismatch", in_process=True)
    writer.add(0, payload, rows)
    writer.close()
    [back] = store.iter_results("mismatch")
    store.close()
    assert back.tool_mismatches == reasons
    assert back == result


def _random_text(rng: random.Random) -> str:
    alphabet = 'ab "\\/\n\t\x07\x1f\x7fé€🙂\u2028{}[]:,0'
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))


def _random_float(rng: random.Random) -> float:
    return rng.choice(
        [
            rng.random(),
            -rng.random() * 10 ** rng.randrange(-320, 308),
            rng.uniform(-1e6, 1e6),
            float(rng.randrange(-(2**53), 2**53)),
            5e-324,
            1.7976931348623157e308,
            -0.0,
            0.1,
            1e16,
        ]
    )


def _random_plain(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 3 else 5)
    if kind == 0:
        return _random_text(rng)
    if kind == 1:
        return rng.choice([0, -1, 2**63 - 1, -(2**63), rng.randrange(-(2**40), 2**40)])
    if kind == 2:
        return _random_float(rng)
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind == 5:
        return [_random_plain(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 6:
        return tuple(_random_plain(rng, depth + 1) for _ in range(rng.randrange(3)))
    return {_random_text(rng): _random_plain(rng, depth + 1) for _ in range(rng.randrange(4))}


def _maybe(rng: random.Random, value: Any) -> Any:
    return value if rng.random() < 0.6 else None


def random_result(rng: random.Random) -> TestResult:
    calls = [
        call(
            name=_random_text(rng),
            args={_random_text(rng): _random_plain(rng) for _ in range(rng.randrange(4))},
            result=_random_plain(rng),
            bytes=_maybe(rng, rng.randrange(0, 2**63)),
            duration_ms=_maybe(rng, rng.choice([0, 2**63 - 1, rng.randrange(10**6)])),
            error=_maybe(rng, _random_text(rng)),
        )
        for _ in range(rng.randrange(4))
    ]
    metrics = [
        measured(
            metric_name=_random_text(rng),
            kind=rng.choice(["standard", "tool", "code", "judge", "conversation"]),
            score=_maybe(rng, _random_float(rng)),
            threshold=_maybe(rng, _random_float(rng)),
            passed=rng.choice([True, False, None]),
            error=_maybe(rng, _random_text(rng)),
            retry_count=rng.randrange(5),
            evaluation_time_ms=rng.choice([0, 2**63 - 1, rng.randrange(10**6)]),
            model_used=_maybe(rng, _random_text(rng)),
            reasoning=_maybe(rng, _random_text(rng)),
            dimension=_maybe(rng, _random_text(rng)),
            details=_maybe(rng, {"k": _random_plain(rng)}),
        )
        for _ in range(rng.randrange(4))
    ]
    return sent(
        test_name=_random_text(rng),
        test_type=rng.choice(["single_turn", "multi_turn", "goal"]),
        test_input=_random_text(rng),
        agent_response=_maybe(rng, _random_text(rng)),
        tool_calls=[c.name for c in calls],
        tool_invocations=calls,
        tools_matched=rng.choice([True, False, None]),
        ground_truth=_maybe(rng, _random_text(rng)),
        metric_results=metrics,
        metrics_not_run={_random_text(rng): _random_text(rng) for _ in range(rng.randrange(2))},
        passed=rng.choice([True, False]),
        status=rng.choice(["passed", "failed", "error", "not_run"]),
        execution_time_ms=rng.choice([0, 2**63 - 1, rng.randrange(10**6)]),
        time_to_first_token_ms=_maybe(rng, rng.randrange(10**4)),
        token_usage=_maybe(rng, usage(total_tokens=rng.randrange(2**63))),
        errors=[_random_text(rng) for _ in range(rng.randrange(3))],
        warnings=[_random_text(rng) for _ in range(rng.randrange(2))],
        timestamp=_random_text(rng),
        trace=_maybe(rng, {"spans": _random_plain(rng)}),
        repeat_index=rng.randrange(5),
        tags=[_random_text(rng) for _ in range(rng.randrange(3))],
    )


def test_random_results_are_proved_right() -> None:
    rng = random.Random(15)
    proved = sum(assert_proved_right(random_result(rng)) for _ in range(600))
    assert proved > 500  # (a text with NUL-free random characters: nearly all proved)


def test_a_hand_over_carries_rows_and_json_of_any_kind() -> None:
    rng = random.Random(7)
    results = [random_result(rng) for _ in range(40)] + [multi_turn(), single("x")]
    pending = [(i, *encode_result(r)[1:]) for i, r in enumerate(results)]
    pending.append((2**40, single("from a test").model_dump_json().encode(), None))
    positions = array("q", [p for p, _, _ in pending])
    rowses = [rows for _, _, rows in pending]
    batch: list[Any] = []
    _unframe(_frame(positions, [payload for _, payload, _ in pending], rowses), batch)
    assert [position for position, _ in batch] == [p for p, _, _ in pending]
    for (_, payload, rows), (_, item) in zip(pending, batch, strict=True):
        assert isinstance(item, Prepared) or rows is None
        assert item.payload == payload.decode()
        if rows is not None:
            assert repr(item) == repr(prepared_of(payload.decode(), rows))


@pytest.mark.parametrize("in_process", [True, False])
def test_the_writer_stores_proved_rows_as_it_stores_validated_ones(
    store_url: str, in_process: bool
) -> None:
    rng = random.Random(3)
    results = [sent(test_name=f"s{i}") for i in range(3)]
    results += [random_result(rng).model_copy(update={"test_name": f"r{i}"}) for i in range(40)]
    results += [multi_turn(), single("plain")]
    encoded = [encode_result(r) for r in results]
    assert sum(rows is not None for _, _, rows in encoded) > 35
    store = open_store(store_url)
    store.create_run(run_info("proved"))
    store.create_run(run_info("validated"))
    writer = ResultWriter(store.reopen, "proved", in_process=in_process)
    for i, (_, payload, rows) in enumerate(encoded):
        writer.add(i, payload, rows)
    writer.close()
    assert writer.written == len(results) and not writer.replaced
    writer = ResultWriter(store.reopen, "validated", in_process=in_process)
    for i, (_, payload, _) in enumerate(encoded):
        writer.add(i, payload.decode())  # JSON only, as a str: the old way
    writer.close()
    assert dump(store, "proved") == dump(store, "validated")
    stored = {r.test_name: r for r in store.iter_results("proved")}  # every payload reads
    assert len(stored) == len(results)
    store.close()
