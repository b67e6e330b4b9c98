"""A judge server that sends malformed replies (usage ``"abc"``, ``message`` as a string, a
100,000-deep body, ...) makes a one-line JudgeError naming what was wrong, which the judge
metric records as its error: never a traceback, never a crashed run."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from assay.errors import JudgeError
from assay.metrics.registry import build_metric
from assay.models import ChatModel
from tests.fakes.hostile import oversized_json
from tests.fakes.llm_server import Fault, ScriptedLLM
from tests.judge.conftest import turn
from tests.models.conftest import OPENAI_SECRET, anthropic_model, openai_model

HI = [{"role": "user", "content": "hi"}]
VERDICT = json.dumps({"reasoning": "fine", "score": 4})
DEEP = "[" * 100_000 + "]" * 100_000


def _set(path: str, value: Any) -> Callable[[dict[str, Any]], Any]:
    """Break the real reply: put ``value`` at ``path`` (dots; ``-`` deletes the key)."""

    def mutate(body: dict[str, Any]) -> Any:
        *parents, last = path.split(".")
        node: Any = body
        for step in parents:
            node = node[int(step)] if step.isdigit() else node[step]
        if value == "-":
            del node[last]
        elif last.isdigit():
            node[int(last)] = value
        else:
            node[last] = value
        return body

    return mutate


OPENAI_FAULTS = [
    (Fault(mutate=_set("usage", "abc")), "has usage = 'abc', not an object"),
    (Fault(mutate=_set("usage", [1])), "has usage = an array, not an object"),
    (
        Fault(mutate=_set("usage.prompt_tokens", "abc")),
        "has usage.prompt_tokens = 'abc', not a token count",
    ),
    (
        Fault(mutate=_set("usage.completion_tokens", -5)),
        "has usage.completion_tokens = -5, not a token count",
    ),
    (
        Fault(mutate=_set("usage.total_tokens", 2**64)),
        "has usage.total_tokens = 18446744073709551616, not a token count",
    ),
    (
        Fault(mutate=_set("usage.prompt_tokens", True)),
        "has usage.prompt_tokens = true, not a token count",
    ),
    (
        Fault(mutate=_set("usage.prompt_tokens_details", "x")),
        "has usage.prompt_tokens_details = 'x', not an object",
    ),
    (Fault(mutate=_set("choices.0.message", "hello")), "has choices[0].message = 'hello', not"),
    (Fault(mutate=_set("choices", "-")), "has no choices[0]"),
    (Fault(mutate=_set("choices", [])), "has no choices[0]"),
    (Fault(mutate=_set("choices", {"0": 1})), "has choices = an object, not an array"),
    (Fault(mutate=_set("choices.0", "x")), "has choices[0] = 'x', not an object"),
    (Fault(mutate=_set("choices.0.message.content", 5)), "choices[0].message.content = 5, not"),
    (
        Fault(mutate=_set("choices.0.message.content", [{"type": "text", "text": 7}])),
        "has a content part's text = 7, not text",
    ),
    (
        Fault(mutate=_set("choices.0.message.refusal", {"why": 1})),
        "has choices[0].message.refusal = an object, not text",
    ),
    (Fault(raw='{"usage": {"prompt_tokens": 1e400}, "choices": []}'), "= inf, not a token count"),
    (Fault(raw=DEEP), "is not valid JSON (it is nested too deeply)"),
    (Fault(raw="[1, 2]"), "is an array, not a JSON object"),
    (Fault(raw='"just text"'), "is a string, not a JSON object"),
    (Fault(raw="null"), "is null, not a JSON object"),
    (Fault(raw=""), "is not valid JSON (Expecting value"),
    (Fault(raw='{"n": ' + "9" * 5000 + "}"), "is not valid JSON (a number in it has over 4300"),
]

ANTHROPIC_FAULTS = [
    (Fault(mutate=_set("usage", "abc")), "has usage = 'abc', not an object"),
    (Fault(mutate=_set("usage.input_tokens", [1])), "has usage.input_tokens = an array, not"),
    (Fault(mutate=_set("content", "hello")), "has content = 'hello', not an array"),
    (Fault(mutate=_set("content", [5])), "has content[0] = 5, not an object"),
    (Fault(mutate=_set("content.0.text", {"a": 1})), "has content[0].text = an object, not text"),
    (Fault(raw=DEEP), "is not valid JSON (it is nested too deeply)"),
]


async def _error(model: ChatModel) -> str:
    async with model:
        with pytest.raises(JudgeError) as info:
            await model.complete(HI, schema={"type": "object"})
    return str(info.value)


@pytest.mark.parametrize(("fault", "reason"), OPENAI_FAULTS, ids=[r for _, r in OPENAI_FAULTS])
async def test_a_malformed_openai_reply_is_a_one_line_judge_error(
    llm: ScriptedLLM, fault: Fault, reason: str
) -> None:
    fault.text = VERDICT
    llm.queue(fault)
    message = await _error(openai_model(llm))
    assert message.startswith(f"openai:gpt-4o-mini: the reply from {llm.base_url}/chat/completions")
    assert reason in message
    assert "\n" not in message and len(message) < 400
    assert llm.calls() == 1  # a malformed reply is not retried


async def test_an_oversized_judge_reply_is_a_judge_error(llm: ScriptedLLM) -> None:
    llm.queue(Fault(chunks=oversized_json()), Fault(chunks=oversized_json(3_000_000)))
    url = f"{llm.base_url}/chat/completions"
    assert await _error(openai_model(llm)) == (
        f"openai:gpt-4o-mini: reply larger than 10 MB from {url} (max_reply_mb sets the limit)"
    )
    message = await _error(openai_model(llm, max_reply_mb=2))  # set per judge
    assert message.startswith("openai:gpt-4o-mini: reply larger than 2 MB from ")
    assert llm.calls() == 2  # not retried


@pytest.mark.parametrize(
    ("fault", "reason"), ANTHROPIC_FAULTS, ids=[r for _, r in ANTHROPIC_FAULTS]
)
async def test_a_malformed_anthropic_reply_is_a_one_line_judge_error(
    llm: ScriptedLLM, fault: Fault, reason: str
) -> None:
    llm.queue(fault)
    message = await _error(anthropic_model(llm))
    assert message.startswith(f"anthropic:claude-3-5-haiku-latest: the reply from {llm.url}/v1")
    assert reason in message
    assert "\n" not in message


async def test_well_formed_edge_cases_are_read(llm: ScriptedLLM) -> None:
    # null usage, whole-number floats, content parts: odd but valid
    llm.queue(
        Fault(mutate=_set("usage", None), text=VERDICT),
        Fault(mutate=_set("usage.prompt_tokens", 12.0), text=VERDICT),
        Fault(mutate=_set("choices.0.message.content", [{"type": "text", "text": VERDICT}])),
    )
    async with openai_model(llm) as model:
        first = await model.complete(HI)
        second = await model.complete(HI, temperature=0.5)
        third = await model.complete(HI, temperature=0.7)
    assert first.usage.total_tokens == 0 and first.text == VERDICT
    assert second.usage.prompt_tokens == 12
    assert third.text == VERDICT


async def test_a_deeply_nested_verdict_text_is_an_invalid_verdict_not_a_crash(
    llm: ScriptedLLM,
) -> None:
    llm.queue(DEEP)  # the model's text, well inside a well-formed reply
    async with openai_model(llm) as model:
        reply = await model.complete(HI, schema={"type": "object"})
    assert reply.parsed is None
    assert reply.parse_error == "the reply's JSON is nested too deeply"


@pytest.mark.parametrize(
    "fault",
    [
        Fault(mutate=_set("usage", "abc")),
        Fault(mutate=_set("usage", [1])),
        Fault(mutate=_set("choices.0.message", "hello")),
        Fault(raw=DEEP),
        Fault(mutate=_set("choices", "-")),
    ],
    ids=["usage-abc", "usage-list", "message-string", "deep-body", "no-choices"],
)
async def test_a_judge_metric_records_the_malformed_reply_as_its_error(
    llm: ScriptedLLM, fault: Fault
) -> None:
    import assay.metrics.judge  # noqa: F401  (registers the judge metrics)

    llm.queue(fault)
    async with openai_model(llm) as judge:
        result = await build_metric("correctness", {}).evaluate(turn(judge, ground_truth="Paris"))
    assert result.score is None and result.passed is False
    assert result.error is not None and "\n" not in result.error
    assert result.error.startswith("openai:gpt-4o-mini: the reply from ")


# Errors some servers send with HTTP 200, each in its API's own format: OpenAI's (a quota
# proxy), Anthropic's (an overloaded API), vLLM's.
OPENAI_QUOTA = {
    "error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota",
        "param": None,
        "code": "insufficient_quota",
    }
}
ANTHROPIC_OVERLOADED = {
    "type": "error",
    "error": {"type": "overloaded_error", "message": "Overloaded"},
}
VLLM_ERROR = {
    "object": "error",
    "message": "The model `m` does not exist.",
    "type": "NotFoundError",
    "param": None,
    "code": 404,
}


async def test_an_error_sent_with_http_200_is_the_server_s_own_message_asked_once(
    llm: ScriptedLLM,
) -> None:
    import assay.metrics.judge  # noqa: F401  (registers the judge metrics)

    said = "is an error (sent with HTTP 200): "
    llm.queue(Fault(raw=json.dumps(OPENAI_QUOTA)), Fault(raw=json.dumps(VLLM_ERROR)))
    assert await _error(openai_model(llm)) == (
        f"openai:gpt-4o-mini: the reply from {llm.base_url}/chat/completions {said}"
        f"insufficient_quota: {OPENAI_QUOTA['error']['message']}"
    )
    assert (await _error(openai_model(llm))).endswith(
        f"{said}NotFoundError: The model `m` does not exist."
    )
    llm.queue(Fault(raw=json.dumps(ANTHROPIC_OVERLOADED)))
    async with anthropic_model(llm) as judge:
        result = await build_metric("correctness", {}).evaluate(turn(judge, ground_truth="Paris"))
    assert result.error == (
        f"anthropic:claude-3-5-haiku-latest: the reply from {llm.url}/v1/messages {said}"
        "overloaded_error: Overloaded"
    )
    assert result.retry_count == 0
    assert llm.calls() == 3  # not retried, not re-asked: the same request gets the same error


async def test_a_server_s_error_message_is_one_short_line_without_the_key(
    llm: ScriptedLLM,
) -> None:
    echoed = f"bad key {OPENAI_SECRET}\n\tfor org-1 " + "x" * 5000
    llm.queue(Fault(raw=json.dumps({"error": {"message": echoed, "type": "auth"}})))
    message = await _error(openai_model(llm))
    assert f"{OPENAI_SECRET}" not in message and "auth: bad key *** for org-1 xxx" in message
    assert "\n" not in message and "\t" not in message and len(message) < 500
