"""The target protocol: how assay talks to the agent under test.

A ``Target`` opens one ``AgentSession`` per conversation; ``send`` delivers one turn and
returns a ``Reply``. ``send`` raises ``TargetError`` when the turn failed (the conversation
goes on) and ``SessionLost`` when the agent no longer has the session (it does not).
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from assay._millis import whole_ms
from assay._words import clipped
from assay.errors import TargetError
from assay.files.model import Attachment
from assay.net.openai_wire import decode_arguments
from assay.net.reply_fields import MalformedReply, shown
from assay.net.usage import USAGE_FIELDS, counted_usage, read_usage
from assay.results.models import TokenUsage, ToolInvocation, one_step_init, prevalidated
from assay.secrets import REDACTOR
from assay.targets._plain import plain_json


@dataclass(frozen=True)
class Message:
    role: str  # "user" | "assistant"
    content: str
    files: tuple[Attachment, ...] = ()  # what a user message attached


@one_step_init
@dataclass(frozen=True)
class TurnRequest:
    input: str
    session_id: str
    turn_id: str
    turn_index: int
    history: Sequence[Message] = ()  # earlier turns, for stateless targets
    files: tuple[Attachment, ...] = ()  # the files this turn attaches (``files:``)


@dataclass
class Reply:
    text: str | None
    tool_invocations: list[ToolInvocation] = field(default_factory=list)
    token_usage: TokenUsage | None = None
    time_to_first_token_ms: float | None = None
    # what was wrong with the reply but did not fail the turn (a usage report that could not
    # be read): the test's ``warnings``
    warnings: tuple[str, ...] = ()


class TurnCutShort(TargetError):
    """A turn that failed after the agent had done part of it (tool calls made, tokens
    spent): the turn fails with this message, and what it did is still recorded."""

    def __init__(self, message: str, partial: Reply) -> None:
        super().__init__(message)
        self.partial = partial


class AgentRaised(TargetError):
    """A Python agent's own exception, failing its turn: ``str()`` is its description
    (``ValueError: Invalid API key``, ``SystemExit(0)``: ``assay._isolation.describe``) and
    ``message`` its message alone (``Invalid API key``; the description when it has none).
    The runner words the turn's error from them by the test's shape."""

    def __init__(self, description: str, message: str) -> None:
        super().__init__(description)
        self.message = message


class AgentSession(ABC):
    @abstractmethod
    async def send(self, request: TurnRequest) -> Reply: ...

    async def close(self) -> None:  # noqa: B027  (optional hook)
        """Release whatever the conversation holds."""


class Target(ABC):
    """One agent under test. ``start`` checks it can be reached (exit 3 when not)."""

    description: str = ""

    async def start(self) -> None:  # noqa: B027  (optional hook)
        """Open shared resources; raise TargetError when the agent cannot be reached."""

    @abstractmethod
    def session(self, session_id: str) -> AgentSession: ...

    async def aclose(self) -> None:  # noqa: B027  (optional hook)
        """Close shared resources."""


def result_bytes(result: Any) -> int:
    """Length of the JSON of a (plain, see ``plain_json``) tool result: the contract's
    ``bytes``, as HoloDeck measures it (``len(json.dumps(result, default=str))``: json's
    defaults, so a non-ASCII character is its ``\\uXXXX`` escape and each character of the
    text is one byte of it)."""
    if result is None:  # the usual results, measured without writing them out
        return 4
    if type(result) is int:
        return len(str(result))
    try:
        return len(json.dumps(result, default=str))
    except (TypeError, ValueError, RecursionError):
        return len(str(result))


def tool_invocations(
    raw: Any, decoded: bool = False, within_limits: bool = False
) -> list[ToolInvocation]:
    """Normalise a reply's tool invocations and fill ``bytes``; ``decoded``: ``raw`` is JSON
    assay just decoded, held by nothing else (``plain_json``'s ``fresh``); ``within_limits``:
    and its body was shown to keep to the limits (``body_within_limits``): not walked again."""
    if within_limits and decoded:
        return _read_tool_invocations(raw)
    return _read_tool_invocations(plain_json(raw, "tool_invocations", fresh=decoded))


def _read_tool_invocations(raw: Any) -> list[ToolInvocation]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise TargetError(f"tool_invocations must be a list, got {type(raw).__name__}")
    calls = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise TargetError(f"tool_invocations[{i}] must be an object with a string 'name'")
        args = item.get("args", item.get("arguments")) or {}
        if isinstance(args, str):  # OpenAI-style JSON-encoded arguments
            args = _decoded_arguments(args, f"tool_invocations[{i}].args")
        result = item.get("result")
        error = item.get("error")
        # the fields in the order they always were: name, args, bytes, duration, error
        name = item["name"]
        args = args if isinstance(args, dict) else {"_value": args}
        size = result_bytes(result)  # assay measures it, always
        duration = whole_ms(item.get("duration_ms"))  # whole milliseconds, as validation reads it
        error = None if error is None else str(error)
        fields = {
            "name": name,
            "args": args,
            "result": result,
            "bytes": size,
            "duration_ms": duration,
            "error": error,
        }
        # each field already of exactly the type validation makes (the usual call: text name
        # and keys, no duration or a whole one): made without validating; ``result`` is anything
        if (
            type(name) is str
            and type(args) is dict
            and (duration is None or type(duration) is int)
            and (error is None or type(error) is str)
        ):
            for key in args:
                if type(key) is not str:
                    break
            else:
                fields["args"] = dict(args)  # validation copies it too
                calls.append(prevalidated(ToolInvocation, fields, set(_TOOL_FIELDS)))
                continue
        try:
            call = _tool_invocation(fields)
        except ValidationError as exc:
            problem = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in problem["loc"])
            raise TargetError(
                f"tool_invocations[{i}].{field}: {problem['msg']} (got {problem.get('input')!r})"
            ) from None
        calls.append(call)
    return calls


# ToolInvocation(**fields), the same model, without the keyword-argument detour of __init__
_tool_invocation: Callable[[dict[str, Any]], ToolInvocation] = (
    ToolInvocation.__pydantic_validator__.validate_python
)
_TOOL_FIELDS = frozenset(ToolInvocation.model_fields)


def _decoded_arguments(text: str, where: str) -> Any:
    """JSON-encoded arguments, decoded (and held to the limits of ``plain_json``)."""
    value, problem = decode_arguments(text)
    return {"_raw": text} if problem is not None else plain_json(value, where, fresh=True)


def token_usage(raw: Any) -> TokenUsage | None:
    """An agent's own usage report, read as ``reported_usage`` reads it; a report that cannot
    be read is None (no usage), never a failed turn."""
    try:
        return reported_usage(raw)
    except MalformedReply:
        return None


def reported_usage(raw: Any, where: str = "token_usage") -> TokenUsage | None:
    """An agent's own usage report (``where`` in its reply), in OpenAI's, Anthropic's or
    assay's names (``assay.net.usage``); None for none (absent or null). A count may be a
    whole number (``12.0`` too), its digits, or null (0); anything else (a negative or
    fractional number, a boolean, other text), or a report that is not an object, raises
    ``MalformedReply`` naming the field: the caller records no usage, with a warning
    (``usage_warning`` of it), and the turn goes on. A count beyond the store's 64-bit range is
    kept, and clamped with a warning where the result is stored."""
    if type(raw) is dict:
        plain = _plain_usage(raw)
        if plain is not None:
            return plain
    elif raw is None:
        return None
    elif not isinstance(raw, dict):
        raise MalformedReply(f"has {where} = {shown(raw)}, not an object of token counts")
    try:
        return read_usage(raw, _loose_count, where)
    except (TypeError, ValueError, ValidationError):  # (not met: the counts are checked ints)
        raise MalformedReply(f"has {where}, which cannot be read as token counts") from None


def usage_warning(problem: MalformedReply) -> str:
    """The turn's warning for a usage report ``reported_usage`` refused with ``problem``."""
    return REDACTOR(f"token usage not recorded: the reply {problem}")


def _plain_usage(raw: dict[str, Any]) -> TokenUsage | None:
    """``read_usage(raw, _loose_count)`` for a report only in assay's own names (the http
    target's default shape, OpenAI's without details) whose counts are all exact ints, none
    negative, read without a call per counter; else None (the general path)."""
    for key, value in raw.items():  # one pass for the names and the counts
        if type(value) is not int or key not in USAGE_FIELDS or value < 0:
            return None
    get = raw.get
    prompt, completion = get("prompt_tokens", 0), get("completion_tokens", 0)
    return counted_usage(  # each an int checked above, 0, or a sum of two: exact ints
        {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": get("total_tokens", 0) or prompt + completion,
            "cache_creation_tokens": get("cache_creation_tokens", 0),
            "cache_read_tokens": get("cache_read_tokens", 0),
        },
        exact=True,
    )


_COUNT = "not a token count (a whole number, 0 or more)"


def _loose_count(usage: Mapping[str, Any], key: str, path: str) -> int:
    """``usage[key]`` as a count, read leniently (``reported_usage``): null or absent is 0."""
    value = usage.get(key)
    if value is None:
        return 0
    if isinstance(value, int):
        if value >= 0 and not isinstance(value, bool):
            return int(value)
    elif isinstance(value, float):
        if value.is_integer() and value >= 0:  # 12.0; not NaN, an infinity or 1.5
            return int(value)
    elif isinstance(value, str):
        try:
            count = int(value)  # its digits: "12"
        except ValueError:
            count = -1
        if count >= 0:
            return count
    raise MalformedReply(f"has {path}.{key} = {shown(value)}, {_COUNT}")


_REPLY_KEYS = frozenset(("response", "tool_invocations", "token_usage"))


def _shown_key(key: Any) -> str:
    """A key of an agent's reply as a message shows it: clipped, and never its own code."""
    return clipped(key if type(key) is str else f"<{type(key).__name__}>", 40)


def reply_from_payload(payload: Any) -> Reply:
    """A reply in the http default shape (``{"response", "tool_invocations", "token_usage"}``)
    or a bare string, read from a plain copy (``plain_json``): a cyclic, too deep or too
    large reply fails its turn with the path of the value at fault."""
    payload = plain_json(payload)
    if isinstance(payload, str):
        return Reply(text=payload)
    if not isinstance(payload, dict):
        raise TargetError(f"expected a string or an object reply, got {type(payload).__name__}")
    if _REPLY_KEYS.isdisjoint(payload):  # nothing of the shape: an answer under another key?
        keys = ", ".join(_shown_key(key) for key in list(payload)[:10])
        raise TargetError(
            REDACTOR(
                "the reply object has none of 'response', 'tool_invocations', 'token_usage' "
                + (f"(its keys: {keys}); " if keys else "(it is empty); ")
                + "return the answer as a str, or as 'response' (None for a tool-only turn)"
            )
        )
    text = payload.get("response")
    if text is not None and not isinstance(text, str):
        text = json.dumps(text, ensure_ascii=False) if isinstance(text, dict | list) else str(text)
    calls = _read_tool_invocations(payload.get("tool_invocations"))
    if text is None and calls:  # a tool-only turn answered, with no text (contract §2: its
        text = ""  # response is null only when the turn failed before producing one)
    try:
        usage = reported_usage(payload.get("token_usage"))
    except MalformedReply as problem:
        return Reply(text, calls, warnings=(usage_warning(problem),))
    return Reply(text=text, tool_invocations=calls, token_usage=usage)
