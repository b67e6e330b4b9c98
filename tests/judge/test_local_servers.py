"""Structured calls against the servers people run locally, as the scripted server plays
them: llama-cpp-python's (``json_schema`` answered with HTTP 500, ``json_object`` taken) and
one that ignores ``response_format``. Also: the mode is remembered per endpoint, can be
forced, and is recorded; a reply cut at max_tokens is asked again only with a higher limit;
a default max_tokens is sent; a 404 hints at /v1; an unreachable model exits 3."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.config import ModelConfig
from assay.errors import JudgeError
from assay.models import make_model
from assay.models._structured import forget_modes
from assay.models.base import ModelUnreachable
from assay.models.structured import ask_structured
from assay.net import RetryPolicy
from tests.fakes.llm_server import Fault, ScriptedLLM
from tests.judge.conftest import judge_for, metric, turn, verdict
from tests.targets.agent_server import free_port

SCHEMA = {
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "score": {"type": "integer", "enum": [1, 2]}},
    "required": ["reasoning", "score"],
    "additionalProperties": False,
}
ASK = [{"role": "system", "content": "Rate."}, {"role": "user", "content": "this"}]


@pytest.fixture(autouse=True)
def _modes() -> Iterator[None]:
    forget_modes()
    yield
    forget_modes()


def formats(llm: ScriptedLLM) -> list[str | None]:
    return [(r.body.get("response_format") or {}).get("type") for r in llm.requests]


async def test_llama_cpp_python_rejects_json_schema_and_json_object_is_remembered(
    llm: ScriptedLLM,
) -> None:
    llm.structured = "llama-cpp-python"
    llm.responder = lambda api, body: verdict(score=4)
    correctness = metric("correctness")
    async with judge_for(llm) as judge:
        first = await correctness.evaluate(turn(judge, ground_truth="Paris"))
        second = await correctness.evaluate(turn(judge, ground_truth="Rome"))
    # one rejected json_schema (no retries of that 500), then json_object, remembered
    assert formats(llm) == ["json_schema", "json_object", "json_object"]
    assert first.error is None and first.score == 0.75 and second.score == 0.75
    sent = llm.requests[1].body["response_format"]
    assert sent == {"type": "json_object", "schema": correctness.make_verdict().schema}
    assert (first.details or {})["structured_output"] == "json_object"
    # the example of the form is in the prompt in every mode
    assert '"score": 1' in llm.requests[1].body["messages"][0]["content"]


async def test_a_server_that_ignores_response_format_still_gives_verdicts(
    llm: ScriptedLLM,
) -> None:
    llm.structured = "ignore"  # replies come wrapped in prose and a code fence
    llm.responder = lambda api, body: verdict(score=5)
    async with judge_for(llm) as judge:
        result = await metric("correctness").evaluate(turn(judge, ground_truth="Paris"))
    assert result.error is None and result.score == 1.0 and result.retry_count == 0


async def test_a_forced_mode_is_used_and_not_fallen_back_from(llm: ScriptedLLM) -> None:
    config = ModelConfig(
        provider="openai", model="m", base_url=llm.base_url, structured_output="prompt"
    )
    llm.queue(verdict(score=2))
    async with make_model(config, retry=RetryPolicy(0)) as model:
        reply = await model.complete(ASK, schema=SCHEMA)
    assert formats(llm) == [None] and reply.structured_output == "prompt"
    llm.structured = "llama-cpp-python"
    forced = config.model_copy(update={"structured_output": "json_schema"})
    async with make_model(forced, retry=RetryPolicy(2, 0.0)) as model:
        with pytest.raises(JudgeError, match="Input should be 'text' or 'json_object'"):
            await model.complete(ASK, schema=SCHEMA)
    assert formats(llm)[1:] == ["json_schema"]  # rejected at once: no fallback, no retries


async def test_a_server_rejecting_both_formats_gets_the_schema_in_the_prompt(
    llm: ScriptedLLM,
) -> None:
    rejection = json.dumps({"error": {"message": "response_format is not supported"}})
    llm.queue(Fault(status=400, raw=rejection), Fault(status=400, raw=rejection))
    llm.queue(verdict(score=1))
    async with judge_for(llm) as judge:
        reply = await judge.complete(ASK, schema=SCHEMA)
    assert formats(llm) == ["json_schema", "json_object", None]
    assert reply.parsed == {"reasoning": "because", "score": 1}


async def test_a_transient_500_is_retried_not_taken_for_a_rejection(llm: ScriptedLLM) -> None:
    llm.queue(Fault(status=500), verdict(score=2))
    async with judge_for(llm) as judge:
        reply = await judge.complete(ASK, schema=SCHEMA)
    assert formats(llm) == ["json_schema", "json_schema"]
    assert reply.structured_output == "json_schema"


async def test_a_default_max_tokens_is_sent(llm: ScriptedLLM) -> None:
    async with judge_for(llm) as judge:
        await judge.complete(ASK)
    assert llm.requests[0].body["max_tokens"] == 1024


def cut_off(body: dict[str, object]) -> dict[str, object]:
    body["choices"][0]["finish_reason"] = "length"  # type: ignore[index]
    return body


async def test_a_reply_cut_at_max_tokens_is_asked_again_only_with_a_higher_limit(
    llm: ScriptedLLM,
) -> None:
    llm.queue(Fault(mutate=cut_off, text='{"reasoning": "a long'), verdict(score=2))
    async with judge_for(llm) as judge:
        asked = await ask_structured(judge, ASK, SCHEMA, lambda v: v["score"], max_tokens=300)
    assert asked.value == 2 and asked.reasks == 1
    assert [r.body["max_tokens"] for r in llm.requests] == [300, 600]
    assert llm.requests[1].body["messages"] == llm.requests[0].body["messages"]
    # at the highest limit, it is not asked again the same way
    llm.queue(Fault(mutate=cut_off, text='{"reasoning": "a long'))
    async with judge_for(llm) as judge:
        asked = await ask_structured(judge, ASK, SCHEMA, lambda v: v, max_tokens=4096)
    assert asked.value is None and asked.error and "cut off at max_tokens" in asked.error
    assert len(llm.requests) == 3


async def test_a_404_hints_that_base_url_ends_in_v1(llm: ScriptedLLM) -> None:
    config = ModelConfig(provider="openai", model="m", base_url=llm.url)  # no /v1
    async with make_model(config, retry=RetryPolicy(0)) as model:
        with pytest.raises(JudgeError, match=r"HTTP 404 .*base_url usually ends in /v1"):
            await model.complete(ASK)


async def test_an_unreachable_model_is_found_before_anything_runs() -> None:
    config = ModelConfig(
        provider="openai", model="m", base_url=f"http://127.0.0.1:{free_port()}/v1"
    )
    async with make_model(config) as model:
        with pytest.raises(ModelUnreachable, match="connection refused") as caught:
            await model.check_reachable()
    assert caught.value.exit_code == 3


def test_judge_check_against_llama_cpp_python(
    llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import assay.cli.judge  # noqa: F401
    from assay.cli.app import app

    monkeypatch.chdir(tmp_path)
    llm.structured = "llama-cpp-python"
    llm.responder = lambda api, body: verdict(score=5)
    (tmp_path / "l.csv").write_text("question,response,reference,label\nq,a,a,pass\nq2,b,b,pass\n")
    args = ["judge", "check", "l.csv", "--metric", "correctness", "--judge", "openai:j"]
    result = CliRunner().invoke(app, [*args, "--judge-base-url", llm.base_url, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["scored"] == 2 and data["accuracy"] == 1.0
    assert formats(llm).count("json_schema") == 1  # rejected once, then remembered


def test_judge_check_with_nothing_scored_says_so(
    llm: ScriptedLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import assay.cli.judge  # noqa: F401
    from assay.cli.app import app

    monkeypatch.chdir(tmp_path)
    llm.responder = lambda api, body: "no JSON here"
    (tmp_path / "l.csv").write_text("question,response,reference,label\nq,a,a,pass\n")
    args = ["judge", "check", "l.csv", "--metric", "correctness", "--judge", "openai:j"]
    result = CliRunner().invoke(app, [*args, "--judge-base-url", llm.base_url])
    assert result.exit_code == 1
    assert "nothing was scored, so there is no agreement to report" in result.stdout
    assert "kappa undefined" not in result.stdout


def test_judge_check_with_an_unreachable_judge_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    import assay.cli.judge  # noqa: F401
    from assay.cli.app import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "l.csv").write_text("question,response,reference,label\nq,a,a,pass\n")
    args = ["judge", "check", "l.csv", "--metric", "correctness", "--judge", "openai:j"]
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = CliRunner().invoke(app, [*args, "--judge-base-url", url])
    assert result.exit_code == 3
    assert "connection refused" in result.output
