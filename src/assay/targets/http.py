"""The http target (SPEC §4): one request per turn to an agent that keeps its own state.

The request is built from templates (``assay.targets._templates``); the reply is read with
the JSONPath expressions of ``ResponseMapping``, or, for a ``text/event-stream`` (or
``stream: true``), folded from its events with the time to first token. Earlier turns are
not replayed. When ``response.session_id`` is set, the id the agent returns is the one
sent on the conversation's later turns.

Failures: connection errors before a reply and 429/5xx are retried (``execution.retries``,
``Retry-After`` honoured), then fail the turn; 404/410 mean the agent lost the session
(``SessionLost``); other 4xx, timeouts, a reply cut short and malformed replies fail the
turn at once. Messages name the URL
and a short excerpt of the body, never the request headers, and pass through ``REDACTOR``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Coroutine, Mapping
from json.encoder import encode_basestring
from typing import Any, TypeVar

import aiohttp
from yarl import URL

from assay._env_vars import given_pieces
from assay._json import MISSING, JsonPath
from assay._surrogates import utf8
from assay.errors import ConfigError, Problem, SessionLost, TargetError
from assay.net import (
    EndpointLimiter,
    ReplyBody,
    RequestFailed,
    RetryPolicy,
    Unreachable,
    check_reachable,
    collect_stream,
    decode_json,
    endpoint_key,
    host_port,
    limiter_for,
    open_client_session,
    reply_limit_bytes,
    send_request,
)
from assay.net.reply_fields import MalformedReply
from assay.net.request import Reader
from assay.net.sse import EVENT_STREAM
from assay.results.models import ToolInvocation
from assay.secrets import REDACTOR, url_secrets
from assay.target_config import HttpTarget as HttpTargetConfig
from assay.target_config import ResponseMapping
from assay.targets._plain import body_within_limits
from assay.targets._templates import (
    Compiled,
    compile_text,
    compile_value,
    register_header_secrets,
    substitute_env,
    whole_lookup,
)
from assay.targets.base import (
    AgentSession,
    Reply,
    Target,
    TurnRequest,
    reported_usage,
    usage_warning,
)
from assay.targets.base import tool_invocations as normalise_tools

T = TypeVar("T")

DEFAULT_BODY: dict[str, Any] = {
    "query": "{{ input }}",
    "session_id": "{{ session_id }}",
    "turn_id": "{{ turn_id }}",
}
SESSION_GONE_STATUSES = frozenset({404, 410})


class ClientTarget(Target):
    """What the http and openai targets share: one aiohttp session (opened in ``start``,
    closed in ``aclose``), a reachability check, retries, limits and error mapping."""

    def __init__(
        self,
        url: str,
        retry: RetryPolicy | None,
        timeout_s: float,
        max_in_flight: int | None,
        requests_per_minute: float | None,
        max_reply_mb: float | None = None,
        session_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.probe_url = url
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self.max_reply_bytes = reply_limit_bytes(max_reply_mb)
        self.limiter: EndpointLimiter | None = limiter_for(
            endpoint_key(url), max_in_flight, requests_per_minute
        )
        self._client: aiohttp.ClientSession | None = None
        self._session_headers = session_headers  # sent on every request

    @property
    def client(self) -> aiohttp.ClientSession:
        if self._client is None or self._client.closed:
            self._client = open_client_session(self._session_headers)
        return self._client

    async def start(self) -> None:
        _ = self.client
        try:
            await check_reachable(self.probe_url)
        except Unreachable as exc:
            await self.aclose()
            raise TargetError(str(exc)) from None

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def call(
        self,
        method: str,
        url: str,
        read: Reader[T],
        *,
        headers: Mapping[str, str],
        data: bytes | None = None,
        params: Mapping[str, str] | None = None,
        stream: bool = False,
        turn_index: int = 0,
    ) -> T:
        try:
            return await self.request(
                method, url, read, headers=headers, data=data, params=params, stream=stream
            )
        except RequestFailed as exc:
            raise self.failure(exc, turn_index) from None

    def request(
        self,
        method: str,
        url: str,
        read: Reader[T],
        *,
        headers: Mapping[str, str] | None,
        data: bytes | None,
        params: Mapping[str, str] | None,
        stream: bool,
        request_url: URL | None = None,
    ) -> Coroutine[Any, Any, T]:
        """``send_request`` with this target's client, retries, limits and timeout: the
        coroutine, for a caller that awaits it directly (one coroutine fewer per turn)."""
        return send_request(
            self.client,
            method,
            url,
            read=read,
            policy=self.retry,
            limiter=self.limiter,
            timeout_s=self.timeout_s,
            max_reply_bytes=self.max_reply_bytes,
            idle_timeout=stream,
            headers=headers,
            data=data,
            params=params,
            request_url=request_url,
        )

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        if exc.kind == "cut":  # (send_request does not retry it)
            return TargetError(REDACTOR(f"{exc}; not sent again: the agent may have acted on it"))
        return TargetError(REDACTOR(str(exc)))


def dumps(body: Any) -> str:
    """``json.dumps(body, ensure_ascii=False)``, the same text; a flat object of strings (the
    usual body) is written directly, the rest by a JSON encoder made once."""
    if type(body) is dict:
        try:
            return "{" + ", ".join([_string(k) + ": " + _string(v) for k, v in body.items()]) + "}"
        except TypeError:  # a key or a value that is not a string
            pass
    return _dumps(body)


_string = encode_basestring  # a JSON string, non-ASCII kept (as ensure_ascii=False writes it)
_dumps = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(..., ensure_ascii=False)


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)


def _finder(path: JsonPath | None) -> Callable[[Any], Any]:
    """``path.find``; for ``$.name``, the lookup it amounts to on an object, made directly."""
    if path is None:
        return _nothing
    match = _ONE_KEY.match(path.expression)
    if match is None:
        return path.find
    key, find = match[1], path.find

    def one_key(document: Any) -> Any:
        return document.get(key, MISSING) if type(document) is dict else find(document)

    return one_key


def _nothing(document: Any) -> Any:
    return MISSING


def _field_name(path: JsonPath | None) -> str:
    """A JSONPath as a message names the field it finds: ``$.token_usage`` as ``token_usage``."""
    if path is None:
        return ""
    expression = path.expression
    return expression[2:] if expression.startswith("$.") else expression


_ONE_KEY = re.compile(r"^\$\.([A-Za-z_][\w-]*)$")


class ReplyMapping:
    """``ResponseMapping`` compiled: picks text, tools, usage and session id from a reply."""

    def __init__(self, mapping: ResponseMapping, where: str) -> None:
        def compiled(name: str, expression: str) -> JsonPath:
            try:
                return JsonPath(expression)
            except ValueError as exc:
                raise ConfigError([Problem("suite", f"{where}.{name}", str(exc))]) from None

        def path(name: str) -> JsonPath | None:
            expression = getattr(mapping, name)
            return compiled(name, expression) if expression else None

        self.text = compiled("text", mapping.text)
        self.tools = path("tool_invocations")
        self.usage = path("token_usage")
        self.session_id = path("session_id")
        self._find_text = _finder(self.text)
        self._find_tools = _finder(self.tools)
        self._find_usage = _finder(self.usage)
        self._find_session_id = _finder(self.session_id)
        # the usage's place in a reply, as a warning about it names it: "token_usage"
        self.usage_field = _field_name(self.usage)
        # a one-key path finds a part of the document as it is; any other may wrap several
        # matches in a new list, a level deeper than the body's brackets say
        self._tools_is_part = self.tools is not None and bool(_ONE_KEY.match(self.tools.expression))

    def reply(
        self, document: Any, url: str, within_limits: bool = False
    ) -> tuple[Reply, str | None]:
        """The reply in ``document`` (JSON assay decoded) and the session id it returns;
        ``within_limits``: its body keeps to ``plain_json``'s limits (``body_within_limits``)."""
        if isinstance(document, str):  # a bare JSON string is the text
            return Reply(text=document), None
        text = self._find_text(document)
        if text is MISSING:
            keys = ", ".join(list(document)[:10]) if isinstance(document, dict) else ""
            raise TargetError(
                REDACTOR(
                    f"the reply from {url} has nothing at {self.text.expression} "
                    + (f"(its keys: {keys}); " if keys else "")
                    + "set target.http.response.text to the JSONPath of the answer"
                )
            )
        tools = self._find_tools(document)
        calls: list[ToolInvocation] = []
        if tools is not MISSING and tools is not None:  # (none: nothing to normalise)
            try:
                within = within_limits and self._tools_is_part and type(document) is dict
                calls = normalise_tools(tools, decoded=True, within_limits=within)
            except TargetError as exc:
                raise TargetError(REDACTOR(f"the reply from {url}: {exc}")) from None
        usage = self._find_usage(document)
        try:  # by position (text, tool_invocations, token_usage): no keyword dict
            reply = Reply(
                text if type(text) is str else _as_text(text),
                calls,
                None if usage is MISSING else reported_usage(usage, self.usage_field),
            )
        except MalformedReply as problem:  # no usage, said (the mapped field); the turn goes on
            reply = Reply(_as_text(text), calls, None, None, (usage_warning(problem),))
        new_id = self._find_session_id(document)
        if new_id is MISSING:
            return reply, None
        if isinstance(new_id, str | int) and not isinstance(new_id, bool) and str(new_id):
            return reply, str(new_id)
        return reply, None


class HttpTarget(ClientTarget):
    def __init__(
        self,
        config: HttpTargetConfig,
        retry: RetryPolicy | None = None,
        variables: Mapping[str, Any] | None = None,
        where: str = "target.http",
    ) -> None:
        self.config = config
        self.variables = dict(variables or {})
        # a string's pieces: as written, and what each ${VAR} gave, which is text, never
        # template; substituted once (by the loader, or here for a config built in code's
        # headers): a value from ${VAR} may hold "${" itself
        url_pieces = given_pieces(config.pieces("url"), config.url)
        self.url = compile_text(config.url, f"{where}.url", url=True, pieces=url_pieces)
        if self.url.constant:
            try:
                host_port(config.url)
            except ValueError as exc:
                raise ConfigError([Problem("suite", f"{where}.url", str(exc))]) from None
        if config.env_substituted:
            written = config.pieces("headers")
            written = written if isinstance(written, dict) else {}
            pieces = {
                name: given_pieces(written.get(name), value) or ((value, False),)
                for name, value in config.headers.items()
            }
        else:
            pieces = {
                name: substitute_env(value, f"{where}.headers.{name}").pieces
                for name, value in config.headers.items()
            }
        headers = {name: "".join(p for p, _ in parts) for name, parts in pieces.items()}
        for name, value in headers.items():
            register_header_secrets(name, value)
        REDACTOR.add(*url_secrets(config.url))
        if config.method != "GET" and not any(h.lower() == "content-type" for h in headers):
            headers["Content-Type"] = "application/json"
        self.headers = {
            n: compile_text(v, f"{where}.headers.{n}", pieces=pieces.get(n))
            for n, v in headers.items()
        }
        self._constant_headers = (
            {n: str(c.render({})) for n, c in self.headers.items()}
            if all(c.constant for c in self.headers.values())
            else None
        )
        # Constant headers, named once each, are the client session's own: aiohttp merges
        # them into every request as it would merge them from the request (names differing
        # only in case are left to the request, where the later one wins).
        distinct = len({n.lower() for n in headers}) == len(headers)
        session_headers = self._constant_headers if distinct else None
        self._request_headers = None if session_headers is not None else self._constant_headers
        self._url_text = config.url if self.url.constant else None
        self._request_url = _parsed(config.url) if self.url.constant else None
        body_pieces = config.pieces("body")
        self.body: Compiled = compile_value(
            DEFAULT_BODY if config.body is None else config.body, f"{where}.body", body_pieces
        )
        self.mapping = ReplyMapping(config.response, f"{where}.response")
        # a body of "{{ input }}", "{{ session_id }}" and "{{ turn_id }}" values (the
        # default's), sent with a constant URL and headers: written without rendering
        self._flat_body = (
            _flat_body(DEFAULT_BODY if config.body is None else config.body, body_pieces)
            if config.method != "GET" and self.url.constant and self._constant_headers is not None
            else None
        )
        uses = self.url.uses.union(self.body.uses, *(c.uses for c in self.headers.values()))
        self.uses_history = "history" in uses
        self.uses_files = "files" in uses
        super().__init__(
            config.url,
            retry,
            config.timeout_s,
            config.max_in_flight,
            config.requests_per_minute,
            config.max_reply_mb,
            session_headers,
        )
        self.description = REDACTOR(f"http:{config.method} {config.url}")
        self._method = config.method
        self._stream = config.stream
        self._read = _reader(config.stream, self.mapping, self._url_text or "")

    async def start(self) -> None:
        if not self.url.constant:  # render the URL with sample values to find its host
            try:
                self.probe_url = str(self.url.render(self._context(_PROBE, _PROBE.session_id)))
            except TargetError:
                return  # the URL needs values only a turn has: checked on the first turn
        await super().start()

    def session(self, session_id: str) -> AgentSession:
        return _HttpSession(self)

    def _context(self, request: TurnRequest, session_id: str) -> dict[str, Any]:
        return {
            "input": request.input,
            "session_id": session_id,
            "turn_id": request.turn_id,
            "turn_index": request.turn_index,
            "history": [{"role": m.role, "content": m.content} for m in request.history]
            if self.uses_history
            else [],
            "files": [a.for_template() for a in request.files] if self.uses_files else [],
            "vars": self.variables,
        }

    async def exchange(self, request: TurnRequest, session_id: str) -> tuple[Reply, str | None]:
        """One turn: render, send (with retries), read the reply."""
        try:
            return await self._send(request, session_id)
        except RequestFailed as exc:
            raise self.failure(exc, request.turn_index) from None

    def _send(
        self, request: TurnRequest, session_id: str
    ) -> Coroutine[Any, Any, tuple[Reply, str | None]]:
        """The request rendered, and the coroutine that sends it (``send_request``'s): the
        caller awaits it, without a coroutine of this method's between (``RequestFailed``
        is the caller's to map, by ``failure``)."""
        if request.files and not self.uses_files:
            raise TargetError(
                f"this turn attaches {len(request.files)} file(s) but the http target's "
                'request does not send them: add "files": "{{ files }}" to target.http.body'
            )
        data: bytes | None = None
        params: dict[str, str] | None = None
        flat, url_text = self._flat_body, self._url_text
        if flat is not None and url_text is not None:
            # the body's text written at once: what rendering it and ``dumps`` write
            values = (request.input, session_id, request.turn_id)
            try:
                data = ("{" + ", ".join([k + _string(values[i]) for k, i in flat]) + "}").encode()
            except TypeError:  # a value that is not a string: rendered as below
                data = None
            except UnicodeEncodeError as exc:  # a lone surrogate: sent as U+FFFD, as below
                data = utf8(exc.object)
        if data is not None and url_text is not None:
            url, headers = url_text, self._request_headers
        else:
            ctx = self._context(request, session_id)
            url = self._url_text or str(self.url.render(ctx))
            headers = (
                self._request_headers
                if self._constant_headers is not None
                else {n: str(c.render(ctx)) for n, c in self.headers.items()}
            )
            body = self.body.render(ctx)
            if self._method == "GET":
                if isinstance(body, dict):
                    params = {
                        k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()
                    }
            # (a lone surrogate, in an earlier reply the history replays, say: sent as U+FFFD)
            elif isinstance(body, str):
                data = utf8(body)
            else:
                data = utf8(dumps(body))
        # a constant URL's reader is made once (``__init__``), another's per request
        read = self._read if url_text is not None else _reader(self._stream, self.mapping, url)
        return self.request(
            self._method,
            url,
            read,
            headers=headers,
            data=data,
            params=params,
            stream=self._stream,
            request_url=self._request_url,
        )

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        if exc.kind == "status" and exc.status in SESSION_GONE_STATUSES:
            hint = " (on the first turn: is the URL right?)" if turn_index == 0 else ""
            return SessionLost(REDACTOR(f"{exc}{hint}"))
        return super().failure(exc, turn_index)


def _reader(stream: bool, mapping: ReplyMapping, url: str) -> Reader[tuple[Reply, str | None]]:
    """The reader of a reply from ``url`` (``send_request``'s ``read``): an event stream's
    events folded, or the body read with ``mapping``, and the session id it returns."""

    async def read(body: ReplyBody, sent: float) -> tuple[Reply, str | None]:
        content_type = body.response.content_type  # (ReplyBody.content_type's)
        if content_type == EVENT_STREAM or (stream and content_type != "application/json"):
            streamed = await collect_stream(body, sent)
            reply = Reply(
                text=streamed.text,
                tool_invocations=normalise_tools(streamed.tool_invocations or None, decoded=True),
                time_to_first_token_ms=streamed.time_to_first_token_ms,
            )
            try:
                reply.token_usage = reported_usage(streamed.usage, "usage")
            except MalformedReply as problem:  # no usage, said; the turn goes on
                reply.warnings = (usage_warning(problem),)
            return reply, None
        raw = await body.read()
        if content_type == "text/plain":
            return Reply(text=raw.decode("utf-8", "replace")), None
        return mapping.reply(decode_json(raw, url), url, body_within_limits(raw))

    return read


_FLAT_NAMES = ("input", "session_id", "turn_id")  # in TurnRequest's order (see ``_send``)


def _flat_body(body: Any, pieces: Any = None) -> tuple[tuple[str, int], ...] | None:
    """For an object whose values are each a whole ``{{ input }}``, ``{{ session_id }}`` or
    ``{{ turn_id }}`` (``whole_lookup``: plain lookups, no Jinja) as written, not given by a
    ``${VAR}`` (``pieces``): each key as JSON with its colon, and the index of its value in
    ``_FLAT_NAMES``; else None."""
    if type(body) is not dict:
        return None
    written = pieces if isinstance(pieces, dict) else {}
    plan = []
    for key, value in body.items():
        name = whole_lookup(value)
        if type(key) is not str or name not in _FLAT_NAMES:
            return None
        if given_pieces(written.get(key), value) is not None:
            return None
        plan.append((_string(key) + ": ", _FLAT_NAMES.index(name)))
    return tuple(plan)


def _parsed(url: str) -> URL | None:
    """The URL as aiohttp would parse it for each request, or None to leave that to aiohttp
    (whose error for a URL it cannot parse is the turn's)."""
    try:
        return URL(url)
    except (ValueError, TypeError):
        return None


_PROBE = TurnRequest(input="", session_id="assay-probe", turn_id="1", turn_index=0)


class _HttpSession(AgentSession):
    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.agent_session_id: str | None = None  # the id the agent returned, when mapped

    async def send(self, request: TurnRequest) -> Reply:
        target = self.target
        try:  # HttpTarget.exchange, one coroutine fewer
            session_id = self.agent_session_id or request.session_id
            reply, returned = await target._send(request, session_id)
        except RequestFailed as exc:
            raise target.failure(exc, request.turn_index) from None
        if returned is not None:
            self.agent_session_id = returned
        return reply
