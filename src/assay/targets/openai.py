"""The openai target (SPEC §4): an OpenAI-compatible ``POST {base_url}/chat/completions``.

The model is stateless, so each turn replays the conversation: the system prompt (when
set), then the earlier turns, then this turn's input. Tool calls in the reply are recorded
as tool invocations (arguments parsed from their JSON string; no result); the usage is
recorded; the text is ``None`` when the model answered with tool calls only. The key, read
from ``api_key_env`` when that variable is set, goes in ``Authorization: Bearer`` and is
registered with ``REDACTOR``; the default ``OPENAI_API_KEY`` goes only to OpenAI's own API,
another ``base_url`` gets a key only when the suite names ``api_key_env``. Retries,
timeouts, limits and the reply size limit are the http target's.
"""

from __future__ import annotations

import json
import os
from typing import Any

from assay.config import OpenAITarget as OpenAITargetConfig
from assay.errors import ConfigError, Problem, TargetError
from assay.models.openai import OPENAI_BASE_URL
from assay.net import ReplyBody, RequestFailed, RetryPolicy, decode_json, host_port
from assay.secrets import REDACTOR, is_own_host, url_secrets
from assay.targets.base import AgentSession, Reply, TurnRequest, token_usage, tool_invocations
from assay.targets.http import ClientTarget


def completion_reply(document: Any, url: str) -> Reply:
    """A chat completion (``choices[0].message``, ``usage``) as a Reply."""
    choices = document.get("choices") if isinstance(document, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise TargetError(
            REDACTOR(f"the reply from {url} is not a chat completion: it has no choices[0]")
        )
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise TargetError(REDACTOR(f"the reply from {url} has no choices[0].message"))
    calls = []
    for i, call in enumerate(message.get("tool_calls") or ()):
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise TargetError(
                REDACTOR(f"the reply from {url}: choices[0].message.tool_calls[{i}] has no name")
            )
        calls.append({"name": function["name"], "args": function.get("arguments") or {}})
    content = message.get("content")
    if content is not None and not isinstance(content, str):  # content parts
        content = (
            "".join(p.get("text", "") for p in content if isinstance(p, dict))
            if isinstance(content, list)
            else json.dumps(content)
        )
    return Reply(
        text=content if content or not calls else None,
        tool_invocations=tool_invocations(calls),
        token_usage=token_usage(document.get("usage")),
    )


def _api_key(config: OpenAITargetConfig) -> str | None:
    """The key from ``api_key_env`` when the suite names it; without it, the default
    ``OPENAI_API_KEY`` only for OpenAI's own API, never for another ``base_url``."""
    if "api_key_env" not in config.model_fields_set and not is_own_host(
        config.base_url, OPENAI_BASE_URL
    ):
        return None
    return os.environ.get(config.api_key_env) if config.api_key_env else None


class OpenAITarget(ClientTarget):
    def __init__(
        self,
        config: OpenAITargetConfig,
        retry: RetryPolicy | None = None,
        where: str = "target.openai",
    ) -> None:
        self.config = config
        self.url = config.base_url.rstrip("/") + "/chat/completions"
        try:
            host_port(self.url)
        except ValueError as exc:
            raise ConfigError([Problem("suite", f"{where}.base_url", str(exc))]) from None
        self.headers = {"Content-Type": "application/json"}
        REDACTOR.add(*url_secrets(config.base_url))
        key = _api_key(config)
        if key:
            REDACTOR.add(key)
            self.headers["Authorization"] = f"Bearer {key}"
        super().__init__(
            self.url,
            retry,
            config.timeout_s,
            config.max_in_flight,
            config.requests_per_minute,
            config.max_reply_mb,
        )
        self.description = REDACTOR(f"openai:{config.model} at {config.base_url}")

    def session(self, session_id: str) -> AgentSession:
        return _OpenAISession(self)

    def messages(self, request: TurnRequest) -> list[dict[str, str]]:
        messages = []
        if self.config.system_prompt:
            messages.append({"role": "system", "content": self.config.system_prompt})
        messages.extend({"role": m.role, "content": m.content} for m in request.history)
        messages.append({"role": "user", "content": request.input})
        return messages

    async def complete(self, request: TurnRequest) -> Reply:
        body: dict[str, Any] = {"model": self.config.model, "messages": self.messages(request)}
        if self.config.temperature is not None:
            body["temperature"] = self.config.temperature

        async def read(body: ReplyBody, sent: float) -> Reply:
            return completion_reply(decode_json(await body.read(), self.url), self.url)

        return await self.call(
            "POST",
            self.url,
            read,
            headers=self.headers,
            data=json.dumps(body, ensure_ascii=False).encode(),
            turn_index=request.turn_index,
        )

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        if exc.kind == "status" and exc.status == 404:
            return TargetError(
                REDACTOR(f"{exc} (is base_url right? it usually ends in /v1; is the model served?)")
            )
        return super().failure(exc, turn_index)


class _OpenAISession(AgentSession):
    def __init__(self, target: OpenAITarget) -> None:
        self.target = target

    async def send(self, request: TurnRequest) -> Reply:
        return await self.target.complete(request)
