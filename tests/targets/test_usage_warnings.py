"""An agent's usage report that is not an object of token counts (whole numbers, 0 or more)
gives its test one warning naming the field, the value and what was expected; the turn's
token usage is null (not guessed) and the turn is still scored. A clean report is read as
before: digits and whole floats count, null is 0, a huge count is kept (and clamped, with its
own warning, where the result is stored)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.cases import parse_suite
from assay.net.reply_fields import MalformedReply
from assay.results.models import TestResult, TokenUsage
from assay.runner.conversation import CaseSettings, run_case
from assay.targets.base import reported_usage, token_usage
from assay.targets.python import PythonTarget
from tests.targets.agent_server import AgentServer, Step
from tests.targets.test_http_target import http

COUNT = "not a token count (a whole number, 0 or more)"
NOT_RECORDED = "token usage not recorded: the reply has "

# (the reply's token_usage, the test's warning after NOT_RECORDED)
MALFORMED: list[tuple[Any, str]] = [
    ("many", "token_usage = 'many', not an object of token counts"),
    (
        {"prompt_tokens": -5, "completion_tokens": 2},
        f"token_usage.prompt_tokens = -5, {COUNT}",
    ),
    ({"prompt_tokens": 1.5, "completion_tokens": 2}, f"token_usage.prompt_tokens = 1.5, {COUNT}"),
    (
        {"prompt_tokens": 3, "completion_tokens": True},
        f"token_usage.completion_tokens = true, {COUNT}",
    ),
    (
        {"prompt_tokens": "lots", "completion_tokens": 2},
        f"token_usage.prompt_tokens = 'lots', {COUNT}",
    ),
    (
        {"prompt_tokens": 3, "prompt_tokens_details": {"cached_tokens": "x" * 60}},
        "token_usage.prompt_tokens_details.cached_tokens = '"
        + "x" * 35
        + "...', "  # clipped
        + COUNT,
    ),
    ([1, 2], "token_usage = an array, not an object of token counts"),
]
IDS = ["many", "negative", "fraction", "bool", "text", "nested-text", "array"]

CLEAN = {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13}


@pytest.mark.parametrize(("raw", "said"), MALFORMED, ids=IDS)
def test_a_malformed_report_is_refused_naming_the_field_and_value(raw: Any, said: str) -> None:
    with pytest.raises(MalformedReply) as info:
        reported_usage(raw)
    assert str(info.value) == "has " + said
    assert token_usage(raw) is None  # the lenient public reader: no usage, never a failure


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (CLEAN, (12, 1, 13, 0, 0)),
        ({"prompt_tokens": "12", "completion_tokens": 1.0}, (12, 1, 13, 0, 0)),  # digits, 1.0
        ({"prompt_tokens": 12.0, "completion_tokens": None}, (12, 0, 12, 0, 0)),  # null is 0
        ({"prompt_tokens": 2**64, "completion_tokens": 0}, (2**64, 0, 2**64, 0, 0)),  # kept
        ({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 2}, (12, 5, 17, 0, 2)),
        ({}, (0, 0, 0, 0, 0)),
    ],
)
def test_a_clean_report_is_read_as_before(raw: dict[str, Any], expected: tuple[int, ...]) -> None:
    usage = reported_usage(raw)
    assert usage is not None
    assert tuple(usage.model_dump().values()) == expected
    assert all(type(v) is int for v in usage.__dict__.values())


def test_no_report_is_no_usage_and_no_warning() -> None:
    assert reported_usage(None) is None


def _suite(*inputs: str) -> Any:
    """One single-turn test per input (ground truth "ok", scored by equality) and one
    multi-turn test of them all."""
    tests: list[dict[str, Any]] = [
        {"name": f"t{i}", "input": text, "ground_truth": "ok", "metrics": ["equality"]}
        for i, text in enumerate(inputs)
    ]
    tests.append(
        {
            "name": "multi",
            "turns": [{"input": t, "ground_truth": "ok", "metrics": ["equality"]} for t in inputs],
        }
    )
    return parse_suite({"name": "s", "tests": tests}, "suite.yaml").cases


def _check(single: list[TestResult], multi: TestResult) -> None:
    """The results of ``_suite("clean", "bad 0", "bad 1", ...)`` (MALFORMED in order)."""
    clean, *bad = single
    assert clean.warnings == [] and clean.token_usage == TokenUsage(**CLEAN)
    assert clean.status == "passed"
    for result, (_, said) in zip(bad, MALFORMED, strict=True):
        assert result.warnings == [NOT_RECORDED + said]
        assert result.token_usage is None  # not guessed
        assert result.errors == [] and result.status == "passed"  # the answer is still scored
        assert [m.score for m in result.metric_results] == [1.0]
    assert multi.turns is not None
    assert [t.token_usage for t in multi.turns] == [TokenUsage(**CLEAN)] + [None] * len(MALFORMED)
    assert multi.token_usage == TokenUsage(**CLEAN)  # the sum of the turns that have one
    assert multi.warnings == [
        f"[turn {i}] {NOT_RECORDED}{said}" for i, (_, said) in enumerate(MALFORMED, 1)
    ]
    assert multi.errors == [] and multi.status == "passed"


INPUTS = ["clean", *(f"bad {i}" for i in range(len(MALFORMED)))]


def _usage_for(query: str) -> Any:
    return CLEAN if query == "clean" else MALFORMED[int(query.split()[1])][0]


async def test_http_replies_with_malformed_usage_warn_and_are_scored(server: AgentServer) -> None:
    for query in INPUTS:
        server.by_query[query] = Step(json={"response": "ok", "token_usage": _usage_for(query)})
    target = http(server.chat_url)
    await target.start()
    try:
        cases = _suite(*INPUTS)
        results = [await run_case(case, target, CaseSettings(turn_timeout_s=5)) for case in cases]
    finally:
        await target.aclose()
    _check(results[:-1], results[-1])


async def _single_turn(target: Any) -> TestResult:
    """The result of the suite's single-turn test against ``target``, started and closed."""
    await target.start()
    try:
        [case, _] = _suite("x")
        return await run_case(case, target, CaseSettings(turn_timeout_s=5))
    finally:
        await target.aclose()


async def test_a_mapped_usage_path_is_the_field_named(server: AgentServer) -> None:
    server.queue(Step(json={"answer": "ok", "meta": {"usage": {"prompt_tokens": -5}}}))
    target = http(server.chat_url, response={"text": "$.answer", "token_usage": "$.meta.usage"})
    result = await _single_turn(target)
    assert result.warnings == [f"{NOT_RECORDED}meta.usage.prompt_tokens = -5, {COUNT}"]
    assert result.token_usage is None and result.status == "passed"


async def test_a_streamed_usage_that_is_not_counts_warns(server: AgentServer) -> None:
    events = [{"response": "o"}, {"response": "k", "usage": "many"}]
    server.queue(Step(events=[json.dumps(e) for e in events] + ["[DONE]"]))
    target = http(server.chat_url, stream=True)
    result = await _single_turn(target)
    assert result.agent_response == "ok"
    assert result.warnings == [f"{NOT_RECORDED}usage = 'many', not an object of token counts"]
    assert result.token_usage is None and result.status == "passed"


def usage_agent(query: str, session_id: str) -> dict[str, Any]:
    """The python target's agent: answers "ok" with the usage its query names."""
    return {"response": "ok", "token_usage": _usage_for(query)}


async def test_python_dict_replies_with_malformed_usage_warn_and_are_scored() -> None:
    target = PythonTarget("tests.targets.test_usage_warnings:usage_agent")
    cases = _suite(*INPUTS)
    results = [await run_case(case, target, CaseSettings(turn_timeout_s=5)) for case in cases]
    _check(results[:-1], results[-1])
