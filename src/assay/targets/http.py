"""The http target (SPEC §4): one request per turn to an agent that keeps its own state.

The request is built from templates (``assay.targets._templates``); the reply is read with
the JSONPath expressions of ``ResponseMapping``, or, for a ``text/event-stream`` (or
``stream: true``), folded from its events with the time to first token. Earlier turns are
not replayed. When ``response.session_id`` is set, the id the agent returns is the one
sent on the conversation's later turns.

Failures: connection errors and 429/5xx are retried (``execution.retries``, ``Retry-After``
honoured), then fail the turn; 404/410 mean the agent lost the session (``SessionLost``);
other 4xx, timeouts and malformed replies fail the turn at once. Messages name the URL
and a short excerpt of the body, never the request headers, and pass through ``REDACTOR``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

import aiohttp

from assay._json import MISSING, JsonPath
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
    is_event_stream,
    limiter_for,
    open_client_session,
    reply_limit_bytes,
    send_request,
)
from assay.net.request import Reader
from assay.secrets import REDACTOR, url_secrets
from assay.target_config import HttpTarget as HttpTargetConfig
from assay.target_config import ResponseMapping
from assay.targets._templates import (
    Compiled,
    compile_text,
    compile_value,
    register_header_secrets,
    substitute_env,
)
from assay.targets.base import AgentSession, Reply, Target, TurnRequest, token_usage
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
    ) -> None:
        self.probe_url = url
        self.retry = retry or RetryPolicy()
        self.timeout_s = timeout_s
        self.max_reply_bytes = reply_limit_bytes(max_reply_mb)
        self.limiter: EndpointLimiter | None = limiter_for(
            endpoint_key(url), max_in_flight, requests_per_minute
        )
        self._client: aiohttp.ClientSession | None = None

    @property
    def client(self) -> aiohttp.ClientSession:
        if self._client is None or self._client.closed:
            self._client = open_client_session()
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
            return await send_request(
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
            )
        except RequestFailed as exc:
            raise self.failure(exc, turn_index) from None

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        return TargetError(REDACTOR(str(exc)))


def _as_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict | list) else str(value)


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

    def reply(self, document: Any, url: str) -> tuple[Reply, str | None]:
        if isinstance(document, str):  # a bare JSON string is the text
            return Reply(text=document), None
        text = self.text.find(document)
        if text is MISSING:
            keys = ", ".join(list(document)[:10]) if isinstance(document, dict) else ""
            raise TargetError(
                REDACTOR(
                    f"the reply from {url} has nothing at {self.text.expression} "
                    + (f"(its keys: {keys}); " if keys else "")
                    + "set target.http.response.text to the JSONPath of the answer"
                )
            )
        tools = self.tools.find(document) if self.tools else MISSING
        usage = self.usage.find(document) if self.usage else MISSING
        try:
            calls = normalise_tools(None if tools is MISSING else tools, decoded=True)
        except TargetError as exc:
            raise TargetError(REDACTOR(f"the reply from {url}: {exc}")) from None
        reply = Reply(text=_as_text(text), tool_invocations=calls, token_usage=token_usage(usage))
        new_id = self.session_id.find(document) if self.session_id else MISSING
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
        self.url = compile_text(config.url, f"{where}.url")
        if self.url.constant:
            try:
                host_port(config.url)
            except ValueError as exc:
                raise ConfigError([Problem("suite", f"{where}.url", str(exc))]) from None
        headers = {
            name: substitute_env(value, f"{where}.headers.{name}")
            for name, value in config.headers.items()
        }
        for name, value in headers.items():
            register_header_secrets(name, value)
        REDACTOR.add(*url_secrets(config.url))
        if config.method != "GET" and not any(h.lower() == "content-type" for h in headers):
            headers["Content-Type"] = "application/json"
        self.headers = {n: compile_text(v, f"{where}.headers.{n}") for n, v in headers.items()}
        self._constant_headers = (
            {n: str(c.render({})) for n, c in self.headers.items()}
            if all(c.constant for c in self.headers.values())
            else None
        )
        self.body: Compiled = compile_value(
            DEFAULT_BODY if config.body is None else config.body, f"{where}.body"
        )
        self.mapping = ReplyMapping(config.response, f"{where}.response")
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
        )
        self.description = REDACTOR(f"http:{config.method} {config.url}")

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
        if request.files and not self.uses_files:
            raise TargetError(
                f"this turn attaches {len(request.files)} file(s) but the http target's "
                'request does not send them: add "files": "{{ files }}" to target.http.body'
            )
        ctx = self._context(request, session_id)
        url = str(self.url.render(ctx))
        headers = self._constant_headers or {n: str(c.render(ctx)) for n, c in self.headers.items()}
        body = self.body.render(ctx)
        data: bytes | None = None
        params: dict[str, str] | None = None
        if self.config.method == "GET":
            if isinstance(body, dict):
                params = {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = json.dumps(body, ensure_ascii=False).encode()

        async def read(body: ReplyBody, sent: float) -> tuple[Reply, str | None]:
            if is_event_stream(body) or (
                self.config.stream and body.content_type != "application/json"
            ):
                streamed = await collect_stream(body, sent)
                reply = Reply(
                    text=streamed.text,
                    tool_invocations=normalise_tools(
                        streamed.tool_invocations or None, decoded=True
                    ),
                    token_usage=token_usage(streamed.usage),
                    time_to_first_token_ms=streamed.time_to_first_token_ms,
                )
                return reply, None
            raw = await body.read()
            if body.content_type == "text/plain":
                return Reply(text=raw.decode("utf-8", "replace")), None
            return self.mapping.reply(decode_json(raw, url), url)

        return await self.call(
            self.config.method,
            url,
            read,
            headers=headers,
            data=data,
            params=params,
            stream=self.config.stream,
            turn_index=request.turn_index,
        )

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        if exc.kind == "status" and exc.status in SESSION_GONE_STATUSES:
            hint = " (on the first turn: is the URL right?)" if turn_index == 0 else ""
            return SessionLost(REDACTOR(f"{exc}{hint}"))
        return super().failure(exc, turn_index)


_PROBE = TurnRequest(input="", session_id="assay-probe", turn_id="1", turn_index=0)


class _HttpSession(AgentSession):
    def __init__(self, target: HttpTarget) -> None:
        self.target = target
        self.agent_session_id: str | None = None  # the id the agent returned, when mapped

    async def send(self, request: TurnRequest) -> Reply:
        session_id = self.agent_session_id or request.session_id
        reply, returned = await self.target.exchange(request, session_id)
        if returned is not None:
            self.agent_session_id = returned
        return reply
