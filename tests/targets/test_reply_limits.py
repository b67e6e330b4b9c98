"""A reply's size is bounded (``max_reply_mb``, 10 MB by default), counted after
decompression and over a whole event stream: an oversized body, a gzip bomb or an endless
stream fails its own turn, and the run goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.errors import TargetError
from assay.target_config import HttpTarget as HttpConfig
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from assay.targets.openai import OpenAITarget
from tests.fakes.hostile import (
    endless_events,
    gzip_bomb_bytes,
    gzipped,
    keepalive_comments,
    oversized_json,
    split,
)
from tests.fakes.llm_server import Fault, ScriptedLLM, scripted_llm
from tests.targets.agent_server import FAST_RETRY, AgentServer, Step

ASSAY = Path(sys.executable).parent / "assay"
MB = 1_000_000


def turn(text: str = "hi") -> TurnRequest:
    return TurnRequest(input=text, session_id="s-1", turn_id="1", turn_index=0)


def http(url: str, **options: object) -> HttpTarget:
    return HttpTarget(HttpConfig.model_validate({"url": url, **options}), FAST_RETRY)


async def error_of(target: HttpTarget | OpenAITarget) -> str:
    try:
        with pytest.raises(TargetError) as info:
            await target.session("s-1").send(turn())
    finally:
        await target.aclose()
    return str(info.value)


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


async def test_an_oversized_json_body_fails_the_turn_at_the_default_10_mb(
    server: AgentServer,
) -> None:
    server.queue(Step(chunks=oversized_json()))  # hundreds of MB if read to the end
    error = await error_of(http(server.chat_url))
    assert error == (
        f"reply larger than 10 MB from {server.chat_url} (max_reply_mb sets the limit)"
    )
    assert len(server.requests) == 1  # not retried


async def test_the_limit_is_set_per_target(server: AgentServer) -> None:
    server.queue(Step(chunks=oversized_json(2 * MB)), Step(chunks=oversized_json(2 * MB)))
    error = await error_of(http(server.chat_url, max_reply_mb=1.5))
    assert error.startswith("reply larger than 1.5 MB from ")
    target = http(server.chat_url, max_reply_mb=3)
    reply = await target.session("s-1").send(turn())
    await target.aclose()
    assert reply.text is not None and len(reply.text) == 2 * MB  # under the limit: whole


async def test_a_declared_length_over_the_limit_is_refused_before_reading(
    server: AgentServer,
) -> None:
    body = json.dumps({"response": "a" * 3 * MB}).encode()
    server.queue(Step(chunks=split(body), headers={"Content-Length": str(len(body))}))
    error = await error_of(http(server.chat_url, max_reply_mb=1))
    assert error.startswith("reply larger than 1 MB from ")


async def test_a_gzip_bomb_is_counted_after_decompression(server: AgentServer) -> None:
    bomb = gzip_bomb_bytes(200 * MB)
    assert len(bomb) < MB  # under the limit on the wire: only decompressed is it over
    server.queue(Step(chunks=split(bomb), headers={"Content-Encoding": "gzip"}))
    error = await error_of(http(server.chat_url))
    assert error.startswith("reply larger than 10 MB from ")


async def test_a_gzipped_reply_under_the_limit_is_read_whole(server: AgentServer) -> None:
    packed = gzipped({"response": "b" * 900_000})
    server.queue(Step(chunks=split(packed, 1000), headers={"Content-Encoding": "gzip"}))
    target = http(server.chat_url, max_reply_mb=1)
    reply = await target.session("s-1").send(turn())
    await target.aclose()
    assert reply.text == "b" * 900_000


@pytest.mark.parametrize("stream", [endless_events, keepalive_comments])
async def test_an_endless_event_stream_fails_at_the_limit(
    server: AgentServer, stream: object
) -> None:
    assert callable(stream)
    server.queue(Step(chunks=stream(), content_type="text/event-stream"))
    error = await error_of(http(server.chat_url, stream=True, max_reply_mb=2))
    assert error.startswith("reply larger than 2 MB from ")


async def test_an_event_stream_is_counted_as_a_whole_not_per_event(server: AgentServer) -> None:
    # 1,000 events of about 1 KB each: none is large, together they pass 0.5 MB
    events = [json.dumps({"choices": [{"delta": {"content": "x" * 1000}}]})] * 1000
    server.queue(Step(events=events + ["[DONE]"]))
    error = await error_of(http(server.chat_url, stream=True, max_reply_mb=0.5))
    assert error.startswith("reply larger than 0.5 MB from ")


async def test_the_openai_target_has_the_same_limit(llm: ScriptedLLM) -> None:
    llm.queue(Fault(chunks=oversized_json()))
    config = {"base_url": llm.base_url, "model": "m", "api_key_env": None}
    error = await error_of(OpenAITarget(OpenAIConfig.model_validate(config), FAST_RETRY))
    url = f"{llm.base_url}/chat/completions"
    assert error == f"reply larger than 10 MB from {url} (max_reply_mb sets the limit)"
    llm.queue(Fault(chunks=split(gzip_bomb_bytes(50 * MB)), headers={"Content-Encoding": "gzip"}))
    config["max_reply_mb"] = 5
    error = await error_of(OpenAITarget(OpenAIConfig.model_validate(config), FAST_RETRY))
    assert error.startswith("reply larger than 5 MB from ")


def test_a_run_with_hostile_replies_completes_with_each_turn_failed(
    server: AgentServer, tmp_path: Path
) -> None:
    server.by_query = {
        "huge": Step(chunks=oversized_json()),
        "bomb": Step(chunks=split(gzip_bomb_bytes(200 * MB)), headers={"Content-Encoding": "gzip"}),
        "endless": Step(chunks=endless_events(), content_type="text/event-stream"),
        "fine": Step(json={"response": "all good"}),
    }
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"""
name: hostile
target: {{http: {{url: "{server.chat_url}", timeout_s: 60}}}}
tests:
  - {{name: huge, input: huge}}
  - {{name: bomb, input: bomb}}
  - {{name: endless, input: endless}}
  - {{name: fine, input: fine, ground_truth: all good}}
"""
    )
    done = subprocess.run(
        [str(ASSAY), "run", str(suite), "--out", "r.json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert done.returncode == 1, done.stderr  # some tests failed; the run itself did not
    assert "Traceback" not in done.stderr
    results = {r["test_name"]: r for r in json.loads((tmp_path / "r.json").read_text())["results"]}
    for name in ("huge", "bomb", "endless"):
        assert results[name]["errors"] == [
            f"reply larger than 10 MB from {server.chat_url} (max_reply_mb sets the limit)"
        ], name
        assert results[name]["passed"] is False
    assert results["fine"]["passed"] is True
