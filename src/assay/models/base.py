"""The chat-model interface judges and simulated users call: one async ``complete``.

``ChatModel.complete`` does what every provider shares (the cache, per-endpoint limits,
retries, JSON checking, usage and cost); a provider subclass only says how to build its
request and read its reply. One aiohttp session per model (per event loop), opened on the
first call; ``await model.aclose()`` (or ``async with model``) closes it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from types import TracebackType
from typing import Any, ClassVar

import aiohttp

from assay._json import schema_problem
from assay.config import ModelConfig
from assay.errors import JudgeError
from assay.models._http import ModelCallFailed, post_json
from assay.models._structured import (
    MODES,
    Mode,
    learned_mode,
    next_mode,
    parse_structured,
    probe_lock,
    rejects_structured_output,
    remember_mode,
    with_format_instruction,
)
from assay.models.cache import ResponseCache, cache_key
from assay.net import (
    Clock,
    RetryPolicy,
    Unreachable,
    check_reachable,
    endpoint_key,
    limiter_for,
    open_client_session,
    reply_limit_bytes,
)
from assay.net.limits import LOOP_CLOCK
from assay.net.reply_fields import MalformedReply
from assay.pricing import cost_usd
from assay.results.models import TokenUsage
from assay.secrets import REDACTOR, url_secrets

Message = Mapping[str, str]  # {"role": "system" | "user" | "assistant", "content": "..."}
log = logging.getLogger("assay.models")


class ModelUnreachable(JudgeError):
    """A judge or simulated-user model that cannot be reached before the run starts."""

    exit_code = 3


@dataclass(frozen=True)
class ModelReply:
    """What a model said. With a schema, ``parsed`` is the conforming JSON value, or None
    with ``parse_error`` saying what was wrong (invalid replies are never cached)."""

    text: str
    parsed: Any = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    cost_usd: float | None = None
    latency_ms: float = 0.0
    model: str = ""
    cached: bool = False
    parse_error: str | None = None
    structured_output: str | None = None  # how JSON was asked for: json_schema, ...

    def to_cache(self) -> dict[str, Any]:
        data = asdict(self)
        data["usage"] = self.usage.model_dump()
        for volatile in ("cached", "parse_error"):
            data.pop(volatile)
        return data

    @classmethod
    def from_cache(cls, data: Mapping[str, Any]) -> ModelReply:
        return cls(
            text=str(data.get("text", "")),
            parsed=data.get("parsed"),
            usage=TokenUsage.model_validate(data.get("usage") or {}),
            cost_usd=data.get("cost_usd"),
            latency_ms=float(data.get("latency_ms") or 0.0),
            model=str(data.get("model", "")),
            cached=True,
            structured_output=data.get("structured_output"),
        )


@dataclass(frozen=True)
class Prompt:
    """One request with its defaults resolved: what a provider turns into HTTP and the
    cache into a key."""

    messages: list[dict[str, str]]
    schema: dict[str, Any] | None
    schema_name: str
    temperature: float
    max_tokens: int | None


@dataclass(frozen=True)
class Request:
    """An HTTP request a provider builds."""

    url: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass(frozen=True)
class RawReply:
    """What a provider reads out of a response body. ``structured`` is a value the API
    returned as JSON already (a tool's input); otherwise ``text`` is parsed. ``problem`` is
    set when the reply cannot hold a verdict (a refusal, a cut-off reply)."""

    text: str
    usage: TokenUsage
    model: str
    structured: Any = None
    problem: str | None = None


def _plain(messages: Sequence[Message]) -> list[dict[str, str]]:
    return [{"role": str(m["role"]), "content": str(m["content"])} for m in messages]


def _usable(hit: dict[str, Any] | None, schema: dict[str, Any] | None) -> ModelReply | None:
    """A cached reply, when it is readable and (with a schema) still conforms to it."""
    if hit is None:
        return None
    try:
        reply = ModelReply.from_cache(hit)
        if schema is None or schema_problem(reply.parsed, schema) is None:
            return reply
    except (ValueError, TypeError, RecursionError):  # an entry edited or from an old assay
        pass
    return None


class ChatModel(ABC):
    provider: ClassVar[str]
    default_base_url: ClassVar[str]
    # the ways this API can be asked for JSON, in the order they are tried
    structured_modes: ClassVar[tuple[Mode, ...]] = MODES
    clock: Clock = LOOP_CLOCK  # waits between retries (tests: one that does not wait)

    def __init__(
        self,
        config: ModelConfig,
        *,
        api_key: str | None = None,
        cache: ResponseCache | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.config = config
        self.base_url = (config.base_url or self.default_base_url).rstrip("/")
        REDACTOR.add(*url_secrets(self.base_url))
        self.cache = cache
        self.retry = retry or RetryPolicy()
        self._api_key = api_key
        self._limiter = limiter_for(
            endpoint_key(self.base_url), config.max_in_flight, config.requests_per_minute
        )
        self._session: aiohttp.ClientSession | None = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        self._inflight: dict[str, asyncio.Task[ModelReply]] = {}

    def __repr__(self) -> str:  # never shows the key
        return f"{type(self).__name__}({self.name!r}, base_url={self.base_url!r})"

    @property
    def name(self) -> str:
        """``provider:model``, as users write ``--judge``."""
        return f"{self.provider}:{self.config.model}"

    @property
    def model(self) -> str:
        return self.config.model

    # -- what a provider defines -------------------------------------------------------

    @abstractmethod
    def build_request(self, prompt: Prompt, mode: Mode = "json_schema") -> Request:
        """The HTTP request for ``prompt``; with a schema, ``mode`` says how JSON is asked
        for (the format instruction is already in the messages)."""

    @abstractmethod
    def read_reply(self, data: dict[str, Any], schema_name: str) -> RawReply: ...

    # -- the shared pipeline -----------------------------------------------------------

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: dict[str, Any] | None = None,
        schema_name: str = "verdict",
        temperature: float | None = None,
        max_tokens: int | None = None,
        sample: int = 0,
        cache_as: Sequence[Message] | None = None,
        cache_as_max_tokens: int | None = None,
    ) -> ModelReply:
        """One chat completion. ``schema`` asks for JSON conforming to it (structured
        output where the API has it). ``sample`` > 0 makes a distinct cache entry, for
        drawing several samples of one request. ``cache_as`` (the first request of a
        re-ask) caches a valid reply under that request too, so the next run asks nothing;
        ``cache_as_max_tokens`` is that request's own limit, when the re-ask raised it.
        Raises JudgeError when the call fails."""
        prompt = Prompt(
            messages=_plain(messages),
            schema=schema,
            schema_name=schema_name,
            temperature=self.config.temperature if temperature is None else temperature,
            max_tokens=max_tokens if max_tokens is not None else self.config.max_tokens,
        )
        if self.cache is None:
            return await self._call(prompt)
        key = self.cache_key(prompt, sample)
        also = None
        if cache_as is not None:
            first = replace(prompt, messages=_plain(cache_as))
            if cache_as_max_tokens is not None:
                first = replace(first, max_tokens=cache_as_max_tokens)
            also = self.cache_key(first, sample)
        task = self._inflight.get(key)
        if task is None:  # identical concurrent requests share one call
            task = asyncio.ensure_future(self._cached_call(key, prompt, also))
            self._inflight[key] = task
            task.add_done_callback(lambda t: self._settle(key, t))
        return await asyncio.shield(task)

    def cache_key(self, prompt: Prompt, sample: int = 0) -> str:
        return cache_key(
            {
                "provider": self.provider,
                "base_url": self.base_url,
                "model": self.config.model,
                "parameters": {
                    "temperature": prompt.temperature,
                    "max_tokens": prompt.max_tokens,
                },
                "schema": prompt.schema,
                "schema_name": prompt.schema_name if prompt.schema is not None else None,
                "messages": prompt.messages,
                "sample": sample,
            }
        )

    def _settle(self, key: str, task: asyncio.Task[ModelReply]) -> None:
        self._inflight.pop(key, None)
        if not task.cancelled():
            task.exception()  # retrieved here, so a failure nobody awaits is not logged

    async def _cached_call(self, key: str, prompt: Prompt, also: str | None) -> ModelReply:
        assert self.cache is not None
        reply = _usable(await self.cache.get(key), prompt.schema)
        if reply is None:
            reply = await self._call(prompt)
            if reply.parse_error is not None:
                return reply  # never cached: the next run asks again
            await self.cache.put(key, reply.to_cache())
        if also is not None and also != key:
            await self.cache.put(also, reply.to_cache())
        return reply

    @property
    def endpoint(self) -> str:
        return endpoint_key(self.base_url)

    def structured_mode(self) -> Mode:
        """How the next structured call asks for JSON: the configured mode, else what
        this endpoint accepted before, else the first this API has."""
        forced = self.config.structured_output
        if forced != "auto":
            return forced if forced in self.structured_modes else self.structured_modes[-1]
        known = learned_mode(self.endpoint, self.config.model)
        return known if known in self.structured_modes else self.structured_modes[0]

    def _fallback(self, mode: Mode) -> Mode | None:
        if self.config.structured_output != "auto":
            return None
        return next_mode(mode, self.structured_modes)

    async def check_reachable(self) -> None:
        """Raise ``ModelUnreachable`` (exit 3) when nothing answers at ``base_url``: said
        before a run starts, as for a target, not once per metric."""
        try:
            await check_reachable(self.base_url)
        except Unreachable as exc:
            raise ModelUnreachable(f"{self.name}: {exc} (check base_url)") from None

    async def _call(self, prompt: Prompt) -> ModelReply:
        probing = (
            prompt.schema is not None
            and self.config.structured_output == "auto"
            and learned_mode(self.endpoint, self.config.model) is None
        )
        if not probing:
            return await self._send(prompt)
        async with probe_lock(self.endpoint, self.config.model):
            return await self._send(prompt)  # later calls find the mode it settled on

    async def _send(self, prompt: Prompt) -> ModelReply:
        mode = self.structured_mode()
        schema = prompt.schema
        if schema is not None:  # told in every mode: some servers ignore the format
            prompt = replace(prompt, messages=with_format_instruction(prompt.messages, schema))

        def rejected(exc: Any) -> bool:  # asking again in the same format changes nothing
            return schema is not None and rejects_structured_output(exc.status, exc.message)

        while True:
            request = self.build_request(prompt, mode)
            following = self._fallback(mode) if schema is not None else None
            started = time.perf_counter()
            try:
                data = await post_json(
                    self._http(),
                    request.url,
                    request.headers,
                    request.body,
                    who=self.name,
                    timeout_s=self.config.timeout_s,
                    max_reply_bytes=reply_limit_bytes(self.config.max_reply_mb),
                    policy=self.retry,
                    limiter=self._limiter,
                    # the identical request at temperature 0 tends to run away again
                    timeout_retries=1 if prompt.temperature == 0 else None,
                    final=rejected,
                    clock=self.clock,
                )
            except ModelCallFailed as exc:
                refused = schema is not None and rejects_structured_output(exc.status, exc.detail)
                if refused and following is None and self.config.structured_output != "auto":
                    raise JudgeError(
                        f"{exc} (the server does not take structured_output: {mode}; set "
                        "structured_output: auto, or another of json_schema, json_object, prompt)"
                    ) from None
                if following is None or not refused:
                    raise
                log.info("%s rejected %s output; trying %s", self.name, mode, following)
                mode = following
                continue
            break
        if prompt.schema is not None:
            remember_mode(self.endpoint, self.config.model, mode)
        latency_ms = round((time.perf_counter() - started) * 1000, 3)
        try:
            raw = self.read_reply(data, prompt.schema_name)
            parsed, problem = self._verdict(raw, prompt.schema)
        except MalformedReply as exc:
            raise JudgeError(REDACTOR(f"{self.name}: the reply from {request.url} {exc}")) from None
        except RecursionError:
            raise JudgeError(
                f"{self.name}: the reply from {request.url} is nested too deeply"
            ) from None
        return ModelReply(
            text=raw.text,
            parsed=parsed,
            usage=raw.usage,
            cost_usd=cost_usd(raw.model or self.config.model, raw.usage),
            latency_ms=latency_ms,
            model=raw.model or self.config.model,
            parse_error=problem if prompt.schema is not None else None,
            structured_output=mode if prompt.schema is not None else None,
        )

    @staticmethod
    def _verdict(raw: RawReply, schema: dict[str, Any] | None) -> tuple[Any, str | None]:
        """The reply's JSON value checked against ``schema``: ``(value, None)`` or
        ``(None, problem)``; ``(None, raw.problem)`` when there is no schema or a problem."""
        if schema is None or raw.problem is not None:
            return None, raw.problem
        if raw.structured is None:
            return parse_structured(raw.text, schema)
        mismatch = schema_problem(raw.structured, schema)
        if mismatch is not None:
            return None, f"the JSON does not match the schema: {mismatch}"
        return raw.structured, None

    def _http(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session_loop is not loop:
            self._session = open_client_session()
            self._session_loop = loop
        return self._session

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    async def __aenter__(self) -> ChatModel:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
