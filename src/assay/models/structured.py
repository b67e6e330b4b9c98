"""One structured answer from a model: asked, checked, re-asked only when something changes.

``ask_structured`` sends the messages with a JSON Schema and reads the conforming reply
with ``read``. An invalid reply is shown back to the model with what was wrong and the
form it should take (an example instance, not the raw schema), at most ``MAX_REASKS``
times. A reply cut off at ``max_tokens`` is asked again with twice the limit (never with
the same one, which would be cut off the same way), up to ``MAX_REASK_TOKENS``; a refusal
is not asked again. After that the answer fails with the reason: nothing is guessed.

Judge metrics, the evaluation contract, the simulated user and the goal judge all ask
through here, so every structured call behaves the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from assay.errors import JudgeError
from assay.models._reply import CUT_OFF
from assay.models._structured import format_instruction
from assay.results.models import TokenUsage
from assay.secrets import REDACTOR

MAX_REASKS = 2
MAX_REASK_TOKENS = 4096  # a cut-off reply is asked again with at most this limit
_MAX_ECHO_CHARS = 4000  # of an invalid reply, shown back to the model

REASK_PROMPT = "Your reply could not be used: {problem}.\n{form}"

T = TypeVar("T")


@dataclass(frozen=True)
class Call:
    """One HTTP-level model call, as recorded in a result's details."""

    usage: TokenUsage
    cost_usd: float | None
    latency_ms: float
    cached: bool
    structured_output: str | None = None

    @property
    def spent_usd(self) -> float | None:
        """What this call cost in this run: nothing when the cache answered."""
        return 0.0 if self.cached and self.cost_usd is not None else self.cost_usd

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "usage": self.usage.model_dump(),
            "cost_usd": self.spent_usd,
            "latency_ms": self.latency_ms,
            "cached": self.cached,
        }
        if self.structured_output is not None:
            data["structured_output"] = self.structured_output
        return data


@dataclass
class Asked(Generic[T]):
    """The outcome of ``ask_structured``: ``value`` or ``error``, and what it took."""

    value: T | None = None
    error: str | None = None
    reasks: int = 0
    calls: list[Call] = field(default_factory=list)

    @property
    def structured_output(self) -> str | None:
        """How JSON was asked for on the last call (json_schema, json_object, prompt)."""
        return self.calls[-1].structured_output if self.calls else None


def usage_of(calls: Sequence[Call]) -> dict[str, Any]:
    """Calls' token usage and cost summed, for a result's details or a trace."""
    total = sum((c.usage for c in calls), TokenUsage())
    costs = [c.spent_usd for c in calls]
    known = bool(calls) and all(c is not None for c in costs)
    return {
        "calls": len(calls),
        "usage": total.model_dump(),
        "cost_usd": round(sum(c or 0.0 for c in costs), 8) if known else None,
    }


def _default_limit(model: Any) -> int | None:
    config = getattr(model, "config", None)
    limit = getattr(config, "max_tokens", None)
    return limit if isinstance(limit, int) else None


async def ask_structured(
    model: Any,
    messages: Sequence[Mapping[str, str]],
    schema: dict[str, Any],
    read: Callable[[Any], T],
    *,
    schema_name: str = "verdict",
    temperature: float | None = None,
    max_tokens: int | None = None,
    sample: int = 0,
    who: str = "the model",
    what: str = "answer",
) -> Asked[T]:
    """Ask ``model`` (a ``ChatModel``) for JSON conforming to ``schema``; never raises
    ``JudgeError``: a failed call or a last invalid reply becomes ``Asked.error``, which
    reads "{who} gave no valid {what} after 2 re-asks: ...". ``read`` turns the parsed
    JSON into the value (raising KeyError, TypeError or ValueError when it cannot)."""
    first = [dict(m) for m in messages]
    msgs = list(first)
    limit = max_tokens if max_tokens is not None else _default_limit(model)
    first_limit = limit
    out: Asked[T] = Asked()
    for attempt in range(MAX_REASKS + 1):
        try:
            reply = await model.complete(
                msgs,
                schema=schema,
                schema_name=schema_name,
                temperature=temperature,
                max_tokens=limit,
                sample=sample,
                # an answer that took re-asks is cached under the first request too
                cache_as=first if attempt else None,
                cache_as_max_tokens=first_limit if attempt else None,
            )
        except JudgeError as exc:
            out.error = REDACTOR(str(exc))
            return out
        out.calls.append(
            Call(
                reply.usage,
                reply.cost_usd,
                reply.latency_ms,
                reply.cached,
                reply.structured_output,
            )
        )
        problem = reply.parse_error
        if problem is None:
            try:
                out.value = read(reply.parsed)
                return out
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                problem = f"the {what} cannot be read ({type(exc).__name__}: {exc})"
        if problem == CUT_OFF:
            if limit is None or limit >= MAX_REASK_TOKENS:
                out.error = REDACTOR(
                    f"{who} gave no complete {what}: {problem}; it is {limit or 'unset'}"
                )
                return out
            limit = min(limit * 2, MAX_REASK_TOKENS)  # the same request with room to finish
        elif problem.startswith("the model refused"):
            out.error = REDACTOR(f"{who} gave no {what}: {problem}")
            return out
        elif attempt < MAX_REASKS:
            text = reply.text
            shown = text if len(text) <= _MAX_ECHO_CHARS else text[:_MAX_ECHO_CHARS]
            msgs.append({"role": "assistant", "content": shown or "(an empty reply)"})
            form = format_instruction(schema)
            msgs.append(
                {"role": "user", "content": REASK_PROMPT.format(problem=problem, form=form)}
            )
        if attempt == MAX_REASKS:
            out.error = REDACTOR(
                f"{who} gave no valid {what} after {MAX_REASKS} re-asks: {problem}"
            )
            return out
        out.reasks += 1
    raise AssertionError("unreachable")  # pragma: no cover
