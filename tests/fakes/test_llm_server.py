"""The scripted server itself must speak the formats right, or every test built on it lies."""

from __future__ import annotations

import json
import urllib.request

from tests.fakes.llm_server import Completion, Fault, ToolCall, scripted_llm


def _post(url: str, body: dict[str, object]) -> tuple[int, dict[str, object], dict[str, str]]:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read()), dict(resp.headers)
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read()), dict(err.headers)


def test_openai_reply_with_tool_call_and_usage() -> None:
    with scripted_llm() as llm:
        llm.queue(
            Completion(
                text=None,
                tool_calls=[ToolCall("lookup", {"q": "x"})],
                prompt_tokens=7,
                completion_tokens=3,
            )
        )
        status, body, _ = _post(
            f"{llm.base_url}/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        )
    assert status == 200
    choice = body["choices"][0]  # type: ignore[index]
    assert choice["message"]["tool_calls"][0]["function"]["name"] == "lookup"
    assert json.loads(choice["message"]["tool_calls"][0]["function"]["arguments"]) == {"q": "x"}
    assert body["usage"] == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    assert llm.calls("openai") == 1


def test_anthropic_reply_and_429_fault() -> None:
    with scripted_llm() as llm:
        llm.queue(Fault(status=429, retry_after=2), Completion(text="hello"))
        status, _, headers = _post(f"{llm.url}/v1/messages", {"model": "c", "messages": []})
        assert status == 429 and headers["Retry-After"] == "2"
        status, body, _ = _post(f"{llm.url}/v1/messages", {"model": "c", "messages": []})
    assert status == 200
    assert body["content"] == [{"type": "text", "text": "hello"}]
    assert body["usage"] == {"input_tokens": 10, "output_tokens": 5}


def test_a_mutated_reply_is_the_real_one_with_one_field_broken() -> None:
    def broken_usage(body: dict[str, object]) -> dict[str, object]:
        return {**body, "usage": "abc"}

    with scripted_llm() as llm:
        llm.queue("plain", Fault(mutate=broken_usage, text="plain"))
        url = f"{llm.base_url}/chat/completions"
        _, real, _ = _post(url, {"model": "m", "messages": []})
        _, broken, _ = _post(url, {"model": "m", "messages": []})
    assert broken["usage"] == "abc"
    assert {k: v for k, v in broken.items() if k not in ("usage", "created")} == {
        k: v for k, v in real.items() if k not in ("usage", "created")
    }
