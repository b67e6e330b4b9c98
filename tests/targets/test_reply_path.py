"""The http target's per-turn shortcuts give what the general code gives: the request body
(``json.dumps``), the reply's JSON (``json.loads``), the reply mapping (``JsonPath``), the
token usage, the headers on the wire, the request's timeout (on the loop's shared deadlines)
and the endpoint's slots (taken without waiting when none is needed)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web

from assay._json import MISSING, JsonPath
from assay.errors import TargetError
from assay.net import RetryPolicy, limiter_for
from assay.net import request as request_module
from assay.net.deadlines import Deadlines, TurnDeadline, turn_deadline
from assay.net.reply_fields import MalformedReply
from assay.net.request import loads
from assay.net.session import endpoint_key
from assay.net.usage import read_usage
from assay.target_config import HttpTarget as HttpConfig
from assay.target_config import ResponseMapping
from assay.targets.base import TurnRequest, token_usage
from assay.targets.http import HttpTarget, ReplyMapping, _finder, dumps
from tests.targets.agent_server import AgentServer, Step, free_port


class Text(str):
    pass


BODIES: list[Any] = [
    {},
    {"query": "hello", "session_id": "s-1", "turn_id": "1"},
    {"query": 'quotes " and \\ backslash, \n newline, \t tab, \x00 NUL, \x1f, \x7f'},
    {"query": "non-ASCII: é ü 中文 🙂, U+2028 \u2028 and U+2029 \u2029"},
    {"query": "a lone surrogate \ud800"},
    {"query": Text("a str subclass"), Text("key"): "value"},
    {"query": "x", "turn_index": 3, "flag": True, "none": None, "ratio": 0.5},
    {"query": "x", "history": [{"role": "user", "content": "hi"}], "files": []},
    {1: "an int key", "query": "x"},
    {"nan": float("nan"), "big": 10**30},
    ["a", "list"],
    "a string",
    42,
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_the_request_body_is_json_dumps_text(body: Any) -> None:
    assert dumps(body) == json.dumps(body, ensure_ascii=False)


def test_a_body_that_json_dumps_refuses_is_refused_alike() -> None:
    cyclic: dict[str, Any] = {"query": "x"}
    cyclic["self"] = cyclic
    for body in ({"query": object()}, cyclic, {("a", "tuple"): "key"}):
        with pytest.raises((TypeError, ValueError)) as ours:
            dumps(body)
        with pytest.raises((TypeError, ValueError)) as theirs:
            json.dumps(body, ensure_ascii=False)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


RAW: list[bytes] = [
    b'{"response": "42"}',
    b'  {"response": "42"}  \n',
    b'["a", 1]',
    b'"text"',
    b"1",
    b"7",
    b"{}",
    b'{"a": "\\ud800 escaped lone surrogate"}',
    '{"a": "\ud800 raw lone surrogate"}'.encode("utf-8", "surrogatepass"),
    '{"a": "é"}'.encode(),
    b"\xef\xbb\xbf" + b'{"bom": "utf-8"}',
    '{"a": "utf-16"}'.encode("utf-16"),
    '{"a": "utf-16-le"}'.encode("utf-16-le"),
    '{"a": "utf-16-be"}'.encode("utf-16-be"),
    '{"a": "utf-32"}'.encode("utf-32"),
    b"1\x00",
    b"{\x00}",
    b"",
    b" ",
    b'{"response": "unterminated',
    b'{"a": 1} trailing',
    b"\xff\xfe",
    b'{"a": "\xff not UTF-8"}',
    b"[" * 100_000 + b"]" * 100_000,
    b"[" + b"9" * 5_000 + b"]",
    b"NaN",
    b"[Infinity, -Infinity, -0, -0.0, 1e400, -1e400, 1e-400, 4.9e-324, 1.7976931348623159e308]",
    b"[0.1, 2.2250738585072011e-308, 1.00000000000000011102230246251565404236316680908203125]",
    b"[9007199254740993, -9223372036854775809, 123456789012345678901234567890, 1E5, 12e3]",
    b"[" + b"9" * 4_300 + b"]",
    b"[" + b"9" * 4_301 + b"]",
    b'{"b": 1, "a": 2, "b": 3}',
    b'"\\ud83d\\ude00 \\u00e9 \\/ \\u0000"',
    b'"\\ud800\\udc00"',
    b'"\\udfff"',
    b'"tab\\tok"',
    b'"raw\ttab"',
    b'"raw\x00nul"',
    b"01",
    b"1.",
    b".5",
    b"+1",
    b"nan",
    b"True",
    b"[1,]",
    b'{"a": 1,}',
    b"\x0c[1]",
    b"[1]\x0c",
    b"[1]\n\r\t ",
    b"[" * 300 + b"]" * 300,
]


def outcome(parse: Any, raw: bytes) -> Any:
    try:
        return ("value", repr(parse(raw)))
    except (ValueError, RecursionError) as exc:
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("raw", RAW, ids=range(len(RAW)))
def test_the_reply_is_decoded_as_json_loads_decodes_it(raw: bytes) -> None:
    assert outcome(loads, raw) == outcome(json.loads, raw)


def test_an_unchecked_pydantic_core_leaves_the_reply_to_json(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The reply parser was compared with json's on pydantic-core 2.50: an older one (which
    pyproject admits) is not trusted with replies."""
    assert request_module._FROM_JSON_CHECKED  # what make install installs
    assert [request_module.from_json_checked(v) for v in ("2.50.5", "2.51.0b1", "3.0.0")] == [
        True,
        True,
        True,
    ]
    assert not any(request_module.from_json_checked(v) for v in ("2.49.9", "2.14.6", "x", "2"))
    used: list[bytes] = []
    monkeypatch.setattr(request_module, "_from_json", lambda raw: used.append(raw))
    monkeypatch.setattr(request_module, "_FROM_JSON_CHECKED", False)
    for raw in RAW:
        assert outcome(loads, raw) == outcome(json.loads, raw)
    assert used == []


def test_a_lowered_integer_digit_limit_is_kept() -> None:
    # int_max_str_digits is the process's: a reply's long integer fails as json.loads fails
    limit = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(640)
        for raw in (b"[" + b"9" * 640 + b"]", b"[" + b"9" * 641 + b"]", b"-" + b"1" * 700):
            assert outcome(loads, raw) == outcome(json.loads, raw)
    finally:
        sys.set_int_max_str_digits(limit)


DOCUMENTS: list[Any] = [
    {"response": "x"},
    {"response": None},
    {"response": {"nested": [1, 2]}},
    {"other": 1},
    ["response"],
    "response",
    7,
    None,
]


@pytest.mark.parametrize("expression", ["$.response", "$.a-b", "$.data.text", "$[0]", "$"])
def test_a_one_key_path_finds_what_jsonpath_finds(expression: str) -> None:
    path = JsonPath(expression)
    find = _finder(path)
    for document in [*DOCUMENTS, {"a-b": 1}, {"data": {"text": "t"}}]:
        assert find(document) == path.find(document)
    assert _finder(None)({"response": "x"}) is MISSING


def test_the_reply_mapping_reads_every_field() -> None:
    mapping = ReplyMapping(
        ResponseMapping(
            text="$.out.text",
            tool_invocations="$.calls",
            token_usage="$.usage",
            session_id="$.sid",
        ),
        "target.http.response",
    )
    reply, session_id = mapping.reply(
        {
            "out": {"text": {"an": "object"}},
            "calls": [{"name": "t", "args": {"q": 1}, "result": [1, 2]}],
            "usage": {"input_tokens": 5, "output_tokens": 2},
            "sid": 12,
        },
        "http://agent",
    )
    assert reply.text == '{"an": "object"}'
    assert [(c.name, c.args, c.result, c.bytes) for c in reply.tool_invocations] == [
        ("t", {"q": 1}, [1, 2], 6)
    ]
    assert reply.token_usage is not None
    assert reply.token_usage.total_tokens == 7
    assert session_id == "12"
    bare, none = mapping.reply({"out": {"text": "t"}, "calls": None, "sid": True}, "u")
    assert (bare.text, bare.tool_invocations, bare.token_usage, none) == ("t", [], None, None)
    with pytest.raises(TargetError, match=r"tool_invocations must be a list, got str"):
        mapping.reply({"out": {"text": "t"}, "calls": "x"}, "u")


def test_usage_is_read_field_by_field_in_order() -> None:
    usage = read_usage(
        {
            "prompt_tokens": 10,
            "completion_tokens": 2,
            "prompt_tokens_details": {"cached_tokens": 4},
            "cache_creation_tokens": 1,
        }
    )
    assert usage.model_dump() == {
        "prompt_tokens": 10,
        "completion_tokens": 2,
        "total_tokens": 12,
        "cache_creation_tokens": 1,
        "cache_read_tokens": 4,
    }
    assert usage.model_fields_set == set(usage.model_dump())
    # the first field at fault is the one named, in the order the fields are read
    for raw, named in [
        ({"prompt_tokens": "x", "completion_tokens": "y"}, "usage.prompt_tokens"),
        ({"completion_tokens": "y", "prompt_tokens_details": 3}, "usage.completion_tokens"),
        ({"prompt_tokens_details": 3, "total_tokens": "z"}, "usage.prompt_tokens_details"),
        ({"prompt_tokens_details": {"cached_tokens": "c"}}, "prompt_tokens_details.cached"),
        ({"prompt_tokens_details": None, "cache_read_tokens": -1}, "usage.cache_read_tokens"),
    ]:
        with pytest.raises(MalformedReply, match=named):
            read_usage(raw)
    # an agent's own report is read leniently: digits and whole floats count; anything
    # else (a fraction, a negative count) is no usage (tests/targets/test_usage_warnings.py)
    assert token_usage({"prompt_tokens": "3", "completion_tokens": 1.0}) == read_usage(
        {"prompt_tokens": 3, "completion_tokens": 1}
    )
    assert token_usage({"prompt_tokens": [1]}) is None
    assert token_usage({"prompt_tokens": 3, "completion_tokens": 1.9}) is None
    assert token_usage({"prompt_tokens": -1}) is None


def test_a_deadline_is_also_a_plain_context_manager() -> None:
    now = [0.0]
    deadlines = Deadlines(lambda: now[0])

    async def hang() -> str:
        try:
            with TurnDeadline(1.0, deadlines):
                await asyncio.sleep(3600)
        except TimeoutError:
            return "timed out"
        return "answered"

    async def main() -> str:
        task = asyncio.create_task(hang())
        await asyncio.sleep(0)
        now[0] = 2.0
        deadlines.expire_due()
        return await task

    assert asyncio.run(main()) == "timed out"


async def test_a_request_deadline_inside_a_turn_deadline() -> None:
    async def hang(outer: float, inner: float) -> str:
        try:
            async with turn_deadline(outer):
                try:
                    with turn_deadline(inner):
                        await asyncio.sleep(3600)
                except TimeoutError:
                    return "inner"
        except TimeoutError:
            return "outer"
        return "answered"

    assert await hang(30, 0.01) == "inner"
    assert await hang(0.01, 30) == "outer"


def http(url: str, **options: Any) -> HttpTarget:
    return HttpTarget(HttpConfig.model_validate({"url": url, **options}), RetryPolicy(retries=0))


def turn(text: str = "hello", session_id: str = "s-1") -> TurnRequest:
    return TurnRequest(input=text, session_id=session_id, turn_id="1", turn_index=0)


class RawServer:
    """Records each request's headers as they came on the wire."""

    def __init__(self) -> None:
        self.headers: list[list[tuple[bytes, bytes]]] = []
        self.url = ""

    async def handle(self, request: web.Request) -> web.Response:
        await request.read()
        self.headers.append([(k, v) for k, v in request.raw_headers if k.lower() != b"host"])
        return web.json_response({"response": "ok"})


@pytest.fixture
async def raw_server() -> AsyncIterator[RawServer]:
    server = RawServer()
    app = web.Application()
    app.router.add_route("*", "/chat", server.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    port = free_port()
    site = web.TCPSite(runner, "127.0.0.1", port)
    await site.start()
    server.url = f"http://127.0.0.1:{port}/chat"
    yield server
    await runner.cleanup()


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer t0ken", "X-Api-Version": "2"},
        {"content-type": "application/json; charset=utf-8"},
        {"X-A": "1", "x-a": "2"},  # one name twice: the request's, the later wins
        {"X-Turn": "{{ turn_id }}"},
    ],
)
async def test_headers_reach_the_wire_as_from_the_request(
    raw_server: RawServer, headers: dict[str, str]
) -> None:
    import aiohttp

    target = http(raw_server.url, headers=headers)
    await target.start()
    try:
        assert (await target.session("s-1").send(turn())).text == "ok"
    finally:
        await target.aclose()
    # what assay sent before constant headers moved to the client session: each request's
    sent = {n: v.replace("{{ turn_id }}", "1") for n, v in headers.items()}
    if not any(n.lower() == "content-type" for n in headers):
        sent["Content-Type"] = "application/json"
    async with aiohttp.ClientSession() as client:
        body = json.dumps({"query": "hello", "session_id": "s-1", "turn_id": "1"}).encode()
        async with client.post(raw_server.url, data=body, headers=sent) as response:
            await response.read()
    ours, plain = raw_server.headers
    assert ours == plain


async def test_slots_are_given_back_whatever_ends_the_request(server: AgentServer) -> None:
    server.queue(
        Step(json={"response": "late"}, delay_s=30),
        Step(status=400, json={"error": "bad"}),
        Step(raw="not json"),
    )
    target = http(server.chat_url, timeout_s=0.2, max_in_flight=2)
    limiter = limiter_for(endpoint_key(server.chat_url))
    await target.start()
    try:
        session = target.session("s-1")
        for expected in ("no reply from", "HTTP 400", "not valid JSON"):
            with pytest.raises(TargetError, match=expected):
                await session.send(turn())
            assert limiter.in_flight() == 0
        replies = await asyncio.gather(
            *(target.session(f"s{i}").send(turn(f"q{i}", f"s{i}")) for i in range(6))
        )
        assert [r.text for r in replies] == [f"turn 1: q{i}" for i in range(6)]
        assert limiter.in_flight() == 0
        assert server.peak_in_flight <= 2
    finally:
        server.end_pauses()
        await target.aclose()


PLAIN_USAGE: list[dict[str, Any]] = [
    {},
    {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
    {"prompt_tokens": 12, "completion_tokens": 1},
    {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 0},
    {"total_tokens": 7},
    {"cache_read_tokens": 3, "cache_creation_tokens": 2, "prompt_tokens": 9},
    {"prompt_tokens": 4, "completion_tokens": 2**60},
    {"completion_tokens": 1, "prompt_tokens": 2},  # another order
    # not all exact ints, or other names: the general path
    {"prompt_tokens": "12", "completion_tokens": 1.0},
    {"prompt_tokens": 1.0, "completion_tokens": None},
    {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 4}},
    {"input_tokens": 5, "output_tokens": 2, "cache_read_input_tokens": 1},
    {"prompt_tokens": 1, "other": 3},
]


@pytest.mark.parametrize("raw", PLAIN_USAGE)
def test_a_plain_usage_report_reads_as_the_general_path_reads_it(raw: dict[str, Any]) -> None:
    from assay.targets.base import _loose_count

    made = token_usage(dict(raw))
    expected = read_usage(dict(raw), _loose_count)
    assert made is not None
    assert made.model_dump() == expected.model_dump()
    assert made.model_fields_set == expected.model_fields_set
    assert list(made.__dict__) == list(expected.__dict__)
