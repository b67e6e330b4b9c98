"""The response cache: identical requests make no second HTTP call, anything that changes
the request does, invalid replies are not kept, and concurrent callers are safe."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from assay.models import ResponseCache, default_cache_path
from tests.fakes.llm_server import Completion, ScriptedLLM, ToolCall
from tests.models.conftest import anthropic_model, openai_model

SCHEMA = {
    "type": "object",
    "properties": {"reasoning": {"type": "string"}, "score": {"type": "number"}},
    "required": ["reasoning", "score"],
    "additionalProperties": False,
}
ASK = [{"role": "user", "content": "rate this"}]
GOOD = json.dumps({"reasoning": "ok", "score": 3})


async def test_second_identical_call_is_served_from_the_file(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.responder = lambda api, body: GOOD
    cache = ResponseCache(tmp_path / "cache.db")
    async with openai_model(llm, cache) as model:
        first = await model.complete(ASK, schema=SCHEMA)
    assert llm.calls() == 1 and not first.cached
    # a new cache object on the same file, a new model: still no HTTP call
    async with openai_model(llm, ResponseCache(tmp_path / "cache.db")) as model:
        second = await model.complete(ASK, schema=SCHEMA)
    assert llm.calls() == 1
    assert second.cached and second.parsed == first.parsed and second.usage == first.usage


async def test_what_changes_the_request_changes_the_key(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = lambda api, body: GOOD
    cache = ResponseCache(tmp_path / "cache.db")
    async with openai_model(llm, cache) as model:
        await model.complete(ASK, schema=SCHEMA)
        await model.complete(ASK, schema=SCHEMA, sample=1)
        await model.complete(ASK, schema=SCHEMA, temperature=0.5)
        await model.complete(ASK, schema=SCHEMA, max_tokens=99)
        await model.complete(ASK)
        await model.complete([{"role": "user", "content": "rate that"}], schema=SCHEMA)
    async with openai_model(llm, cache, model="gpt-4o") as other:
        await other.complete(ASK, schema=SCHEMA)
    assert llm.calls() == 7 and len(cache) == 7


async def test_invalid_replies_are_not_cached(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.queue("not json", GOOD)
    cache = ResponseCache(tmp_path / "cache.db")
    async with openai_model(llm, cache) as model:
        bad = await model.complete(ASK, schema=SCHEMA)
        good = await model.complete(ASK, schema=SCHEMA)
        again = await model.complete(ASK, schema=SCHEMA)
    assert bad.parse_error and good.parse_error is None and again.cached
    assert llm.calls() == 2


async def test_anthropic_replies_are_cached_too(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = lambda api, body: Completion(None, [ToolCall("verdict", json.loads(GOOD))])
    cache = ResponseCache(tmp_path / "cache.db")
    async with anthropic_model(llm, cache) as model:
        await model.complete(ASK, schema=SCHEMA)
        reply = await model.complete(ASK, schema=SCHEMA)
    assert reply.cached and reply.parsed == json.loads(GOOD) and llm.calls() == 1


async def test_concurrent_identical_callers_share_one_call(
    llm: ScriptedLLM, tmp_path: Path
) -> None:
    llm.responder = lambda api, body: GOOD
    cache = ResponseCache(tmp_path / "cache.db")
    async with openai_model(llm, cache) as model:
        same = await asyncio.gather(*(model.complete(ASK, schema=SCHEMA) for _ in range(8)))
        distinct = await asyncio.gather(
            *(model.complete(ASK, schema=SCHEMA, sample=i) for i in range(1, 9))
        )
    assert all(r.parsed == json.loads(GOOD) for r in [*same, *distinct])
    assert llm.calls() == 9 and len(cache) == 9


async def test_no_cache_always_calls(llm: ScriptedLLM) -> None:
    llm.responder = lambda api, body: GOOD
    async with openai_model(llm, None) as model:
        await model.complete(ASK, schema=SCHEMA)
        await model.complete(ASK, schema=SCHEMA)
    assert llm.calls() == 2


def test_the_cache_lives_beside_the_store() -> None:
    assert default_cache_path() == Path(".assay/cache.db")
    assert default_cache_path("sqlite:///.assay/assay.db") == Path(".assay/cache.db")
    assert default_cache_path("sqlite:////data/runs/assay.db") == Path("/data/runs/cache.db")
    assert default_cache_path("postgresql+psycopg://u@h/db") == Path(".assay/cache.db")
