"""The openai target (SPEC §4): an OpenAI-compatible ``POST {base_url}/chat/completions``,
spoken through ``assay.net.openai_wire`` like the judges' ``openai`` provider.

The model is stateless, so each turn replays the conversation: the system prompt (when
set), then the earlier turns, then this turn's input. With ``tools:`` the target runs the
tool loop: the model's tool calls are answered (``assay.targets._tools``) and sent back,
up to ``max_tool_rounds`` rounds, and every call is recorded as a ToolInvocation; on later
turns the calls and their results are replayed before that turn's answer (an assistant
message with ``tool_calls``, then one ``tool`` message per call). The turn's token usage
sums its rounds. Without ``tools:``, tool calls in a reply are recorded as the model made
them (no result) and end the turn; a reply of tool calls only is the text "". Later turns
replay such a turn as an assistant message with that text and without its ``tool_calls``:
an assistant message with ``tool_calls`` must be followed by a ``tool`` message for each
call, which OpenAI checks, and calls nothing ran have no result to send.

The key, read from ``api_key_env`` when that variable is set, goes in ``Authorization:
Bearer`` (and ``api-key`` for Azure) and is registered with ``REDACTOR``; the default
``OPENAI_API_KEY`` goes only to OpenAI's own API, another ``base_url`` gets a key only when
the suite names ``api_key_env``. Retries, timeouts, limits and the reply size limit are the
http target's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from assay._surrogates import utf8
from assay.errors import ConfigError, Problem, TargetError
from assay.net import ReplyBody, RequestFailed, RetryPolicy, decode_json, host_port
from assay.net.openai_wire import (
    OPENAI_BASE_URL,
    ChatCompletion,
    ToolCallRequest,
    assistant_message,
    completions_url,
    read_completion,
    request_body,
    request_headers,
    tool_message,
    user_message,
)
from assay.net.reply_fields import MalformedReply
from assay.results.models import TokenUsage, ToolInvocation
from assay.secrets import REDACTOR, is_own_host, key_from_env, url_secrets
from assay.target_config import OpenAITarget as OpenAITargetConfig
from assay.targets._tools import Toolbox, recorded_arguments
from assay.targets.base import (
    AgentSession,
    Message,
    Reply,
    TurnCutShort,
    TurnRequest,
    result_bytes,
)
from assay.targets.http import ClientTarget

Chat = list[dict[str, Any]]
_NAMES_SHOWN = 8  # of the calls named when a turn runs out of tool rounds


@dataclass(frozen=True)
class ToolRounds:
    """A turn's tool rounds (assistant messages with ``tool_calls`` and the ``tool``
    results), replayed before that turn's answer on the conversation's later turns."""

    input: str
    messages: tuple[dict[str, Any], ...]


def _api_key(config: OpenAITargetConfig, where: str) -> str | None:
    """The key from ``api_key_env`` when the suite names it; without it, the default
    ``OPENAI_API_KEY`` only for OpenAI's own API, never for another ``base_url``. Either
    is required then: a missing one is a ConfigError at ``where``.api_key_env, as a
    judge's is (``assay.models.factory.api_key_for``)."""
    named = "api_key_env" in config.model_fields_set
    if not config.api_key_env or not (named or is_own_host(config.base_url, OPENAI_BASE_URL)):
        return None
    hint = "" if named else ", or set api_key_env to another name"
    return key_from_env(
        config.api_key_env, "suite", f"{where}.api_key_env", "the endpoint's API key", hint
    )


class OpenAITarget(ClientTarget):
    def __init__(
        self,
        config: OpenAITargetConfig,
        retry: RetryPolicy | None = None,
        where: str = "target.openai",
        search_dirs: tuple[Path, ...] = (),
    ) -> None:
        self.config = config
        self.url = completions_url(config.base_url)
        try:
            host_port(self.url)
        except ValueError as exc:
            raise ConfigError([Problem("suite", f"{where}.base_url", str(exc))]) from None
        self.toolbox = Toolbox(config.tools, search_dirs, where)
        REDACTOR.add(*url_secrets(config.base_url))
        key = _api_key(config, where)  # registered with REDACTOR
        self.headers = request_headers(config.base_url, key)
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

    def messages(
        self, request: TurnRequest, rounds: Mapping[int, ToolRounds] | None = None
    ) -> Chat:
        """The system prompt, the history with each turn's tool rounds (from ``rounds``, by
        turn index) before its answer, and this turn's input."""
        chat: Chat = []
        if self.config.system_prompt:
            chat.append({"role": "system", "content": self.config.system_prompt})
        chat.extend(_replayed(request.history, rounds or {}))
        chat.append(user_message(request.input, request.files))
        return chat

    async def complete(
        self, request: TurnRequest, rounds: Mapping[int, ToolRounds] | None = None
    ) -> tuple[Reply, ToolRounds | None]:
        """One turn: the model's reply after its tool rounds, and those rounds (None when
        there were none) for the history of later turns."""
        chat = self.messages(request, rounds)
        sent = len(chat)
        calls: list[ToolInvocation] = []
        usage: TokenUsage | None = None
        for round_index in range(self.config.max_tool_rounds + 1):
            completion = await self._post(chat, request.turn_index)
            if completion.usage is not None:
                usage = completion.usage if usage is None else usage + completion.usage
            if not completion.tool_calls:
                break
            if not self.toolbox:  # nothing to run them with: recorded as asked for
                calls.extend(_unanswered(completion.tool_calls))
                break
            if round_index == self.config.max_tool_rounds:
                done = Reply(text=None, tool_invocations=calls, token_usage=usage)
                raise TurnCutShort(self._out_of_rounds(calls, completion.tool_calls), done)
            asked = _with_ids(completion.tool_calls, request.turn_index, round_index)
            chat.append(assistant_message(completion.text, asked))
            for call in asked:
                assert call.id is not None
                outcome = await self.toolbox.call(call.name, call.arguments)
                calls.append(outcome.invocation)
                chat.append(tool_message(call.id, outcome.content))
        text = completion.text
        if not text and completion.refusal:
            text = completion.refusal  # what the model said, in the field it said it in
        if text is None and completion.tool_calls:
            # tool calls only: the model answered, with no text ("" in the turn's
            # ``response``; null is a turn that failed before producing one)
            text = ""
        reply = Reply(text=text, tool_invocations=calls, token_usage=usage)
        tool_rounds = tuple(chat[sent:])
        return reply, ToolRounds(request.input, tool_rounds) if tool_rounds else None

    async def _post(self, chat: Chat, turn_index: int) -> ChatCompletion:
        body = request_body(
            self.config.base_url,
            self.config.model,
            chat,
            temperature=self.config.temperature,
            tools=self.toolbox.declarations,
        )

        async def read(body: ReplyBody, sent: float) -> ChatCompletion:
            data = decode_json(await body.read(), self.url)
            try:
                return read_completion(data)
            except MalformedReply as exc:
                raise TargetError(REDACTOR(f"the reply from {self.url} {exc}")) from None

        return await self.call(
            "POST",
            self.url,
            read,
            headers=self.headers,
            # an earlier reply or a tool's result may hold a lone surrogate: sent as U+FFFD
            data=utf8(json.dumps(body, ensure_ascii=False)),
            turn_index=turn_index,
        )

    def _out_of_rounds(
        self, calls: Sequence[ToolInvocation], asked: Sequence[ToolCallRequest]
    ) -> str:
        limit = self.config.max_tool_rounds
        names = [c.name for c in calls]
        shown = ", ".join(names[:_NAMES_SHOWN]) + (", …" if len(names) > _NAMES_SHOWN else "")
        return (
            f"the model still asked for tools ({', '.join(c.name for c in asked)}) after "
            f"{limit} rounds of tool calls (max_tool_rounds: {limit}); "
            f"the {len(calls)} calls answered: {shown}"
        )

    def failure(self, exc: RequestFailed, turn_index: int) -> TargetError:
        if exc.kind == "status" and exc.status == 404:
            return TargetError(
                REDACTOR(f"{exc} (is base_url right? it usually ends in /v1; is the model served?)")
            )
        return super().failure(exc, turn_index)


def _replayed(history: Sequence[Message], rounds: Mapping[int, ToolRounds]) -> Chat:
    """The history as chat messages, each turn's tool rounds before its answer. A turn is
    the k-th user message (the runner adds one per turn, answered or not); its rounds are
    used only when they were recorded for that same input."""
    chat: Chat = []
    pending: tuple[dict[str, Any], ...] = ()
    users = 0
    for message in history:
        if message.role == "user":
            recorded = rounds.get(users)
            pending = recorded.messages if recorded and recorded.input == message.content else ()
            users += 1
        elif message.role == "assistant":
            chat.extend(pending)
            pending = ()
        if message.role == "user":
            chat.append(user_message(message.content, message.files))
        else:
            chat.append({"role": message.role, "content": message.content})
    return chat


def _with_ids(
    calls: Sequence[ToolCallRequest], turn_index: int, round_index: int
) -> list[ToolCallRequest]:
    """The calls, each with an id (a server that sends none gets one of assay's, unique in
    the conversation, for the ``tool`` message that answers it)."""
    return [
        call if call.id else replace(call, id=f"call_assay_{turn_index}_{round_index}_{i}")
        for i, call in enumerate(calls)
    ]


def _unanswered(calls: Sequence[ToolCallRequest]) -> list[ToolInvocation]:
    recorded = []
    for call in calls:
        args, problem = recorded_arguments(call.arguments)
        recorded.append(
            ToolInvocation(name=call.name, args=args, bytes=result_bytes(None), error=problem)
        )
    return recorded


class _OpenAISession(AgentSession):
    """One conversation: remembers each turn's tool rounds for the later turns' history."""

    def __init__(self, target: OpenAITarget) -> None:
        self.target = target
        self.rounds: dict[int, ToolRounds] = {}

    async def send(self, request: TurnRequest) -> Reply:
        reply, rounds = await self.target.complete(request, self.rounds)
        if rounds is not None:
            self.rounds[request.turn_index] = rounds
        return reply
