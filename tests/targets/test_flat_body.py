"""The http target's flat body (an object of ``{{ input }}``, ``{{ session_id }}`` and
``{{ turn_id }}`` values, the default's, with a constant URL and headers), written at once,
against rendering it and ``dumps``: the same arguments to ``send_request`` (so the same
request), the same bytes on the wire, the same errors; on ordinary and hostile inputs."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from assay.net import RetryPolicy
from assay.target_config import HttpTarget as HttpConfig
from assay.targets import http as http_module
from assay.targets.base import TurnRequest
from assay.targets.http import HttpTarget
from tests.targets.agent_server import free_port

FLAT_BODIES: list[Any] = [
    None,  # the default
    {},
    {"q": "{{ input }}"},
    {"a": "{{turn_id}}", "b": " {{ session_id }} \n", "c": "{{ input }}", "d": "{{ input }}"},
    {'k"\\\u00e9\U0001f600\x00': "{{ input }}", "": "{{ session_id }}"},
]
OTHER_BODIES: list[Any] = [
    {"n": "{{ turn_index }}"},
    {"q": "say {{ input }}"},
    {"q": "{{ input | upper }}"},
    {"q": {"nested": "{{ input }}"}},
    {"q": "{{ input }}", "k": 1},
    "{{ input }}",
    {"q": "{{ history }}"},
]
INPUTS: list[Any] = [
    "hello",
    "",
    "\x00",
    "é😀\u2028\u2029",
    '"\\/\b\f\n\r\t\x1f\x7f',
    "\ud800",
    "x" * 10_000,
    7,  # not a string (a caller's bug): the general path's error
    None,
]


def _target(body: Any, **options: Any) -> HttpTarget:
    config: dict[str, Any] = {"url": "http://127.0.0.1:9/chat", **options}
    if body is not None:
        config["body"] = body
    return HttpTarget(HttpConfig.model_validate(config), RetryPolicy(retries=0))


def _sent(target: HttpTarget, request: TurnRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    seen: list[Any] = []

    def fake_send_request(client: Any, method: str, url: str, **kwargs: Any) -> Any:
        kwargs.pop("read")
        seen.append((method, url, kwargs))
        return None

    monkeypatch.setattr(http_module, "send_request", fake_send_request)
    monkeypatch.setattr(HttpTarget, "client", None)
    try:
        target._send(request, request.session_id)
    except Exception as exc:  # compared, not handled
        return ("raised", type(exc), str(exc))
    return seen


def _requests() -> list[TurnRequest]:
    requests = []
    for text in INPUTS:
        requests.append(TurnRequest(input=text, session_id="s-1", turn_id="1", turn_index=0))
        requests.append(TurnRequest(input="q", session_id=text, turn_id="2", turn_index=1))
        requests.append(TurnRequest(input="q", session_id="s", turn_id=text, turn_index=2))
    return requests


@pytest.mark.parametrize("body", FLAT_BODIES)
@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer t"}, {"X-A": "1", "x-a": "2"}])
def test_a_flat_body_is_sent_as_rendered(
    body: Any, headers: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    flat, general = _target(body, headers=headers), _target(body, headers=headers)
    assert flat._flat_body is not None
    general._flat_body = None
    for request in _requests():
        assert repr(_sent(flat, request, monkeypatch)) == repr(
            _sent(general, request, monkeypatch)
        ), request


@pytest.mark.parametrize("body", OTHER_BODIES)
def test_other_bodies_are_rendered(body: Any) -> None:
    assert _target(body)._flat_body is None


@pytest.mark.parametrize(
    "options",
    [
        {"method": "GET"},
        {"headers": {"X-Turn": "{{ turn_id }}"}},
        {"url": "http://127.0.0.1:9/{{ session_id }}"},
    ],
)
def test_a_request_that_renders_more_than_its_body_is_rendered(options: dict[str, Any]) -> None:
    assert _target(None, **options)._flat_body is None


class _Recorder:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def handle(self, request: web.Request) -> web.Response:
        raw = [(k, v) for k, v in request.raw_headers if k.lower() != b"host"]
        self.seen.append((request.method, request.raw_path, raw, await request.read()))
        return web.json_response({"response": "ok"})


@pytest.fixture
async def recorder() -> AsyncIterator[tuple[_Recorder, str]]:
    server = _Recorder()
    app = web.Application()
    app.router.add_route("*", "/chat", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    yield server, f"http://127.0.0.1:{port}/chat"
    await runner.cleanup()


@pytest.mark.parametrize("body", FLAT_BODIES)
async def test_the_same_bytes_reach_the_wire(body: Any, recorder: tuple[_Recorder, str]) -> None:
    server, url = recorder
    sent = []
    for flat in (True, False):
        target = _target(body, url=url, headers={"Authorization": "Bearer t"})
        assert target._flat_body is not None
        if not flat:
            target._flat_body = None
        await target.start()
        try:
            for text in ("hello", 'é😀\x00"\\', ""):
                request = TurnRequest(input=text, session_id="s-9", turn_id="3", turn_index=2)
                assert (await target.session("s-9").send(request)).text == "ok"
        finally:
            await target.aclose()
        sent.append(server.seen[-3:])
    assert sent[0] == sent[1]
    if body is None:
        assert json.loads(sent[0][0][3]) == {"query": "hello", "session_id": "s-9", "turn_id": "3"}
