"""Asking a judge for a verdict: the JSON it must return, the re-asks when it does not,
and the samples.

A ``Verdict`` is the JSON Schema a judge replies with and how to read a conforming reply
into a ``Judgement`` (a 0–1 score, the raw verdict, the reasoning). ``ask`` sends the
prompt; an invalid reply is shown back to the judge with what was wrong, at most
``MAX_REASKS`` times, after which the sample fails: a score is never guessed.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.errors import JudgeError
from assay.results.models import TokenUsage
from assay.secrets import REDACTOR

if TYPE_CHECKING:
    from assay.models.protocol import JudgeModel

MAX_REASKS = 2
_MAX_ECHO_CHARS = 4000  # of an invalid reply, shown back to the judge

REASK_PROMPT = (
    "Your reply could not be used: {problem}.\n"
    "Reply again with only one JSON object that matches this JSON Schema, and nothing else:\n"
    "{schema}"
)


@dataclass(frozen=True)
class Judgement:
    score: float  # 0–1, higher is better
    raw: Any  # the judge's own verdict: a number on its scale, or a label
    reasoning: str
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    schema: dict[str, Any]
    read: Callable[[dict[str, Any]], Judgement]


def object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    """A strict object schema (every property required, nothing else allowed): what OpenAI's
    structured outputs demand. ``reasoning`` comes first, so the judge reasons, then rules."""
    return {
        "type": "object",
        "properties": {"reasoning": {"type": "string"}, **properties},
        "required": ["reasoning", *properties],
        "additionalProperties": False,
    }


def scale_verdict(low: int, high: int) -> Verdict:
    """``{"reasoning": str, "score": number in [low, high]}``, mapped to 0–1."""

    def read(parsed: dict[str, Any]) -> Judgement:
        raw = parsed["score"]
        score = (raw - low) / (high - low)
        return Judgement(score, raw, parsed["reasoning"], {"scale": [low, high]})

    schema = object_schema({"score": {"type": "number", "minimum": low, "maximum": high}})
    return Verdict(schema, read)


def choice_verdict(key: str, scores: Mapping[str, float]) -> Verdict:
    """``{"reasoning": str, key: one of the labels}``; each label has its 0–1 score."""

    def read(parsed: dict[str, Any]) -> Judgement:
        label = parsed[key]
        return Judgement(scores[label], label, parsed["reasoning"], {key: label})

    return Verdict(object_schema({key: {"type": "string", "enum": list(scores)}}), read)


@dataclass(frozen=True)
class Call:
    """One HTTP-level judge call, as recorded in a result's details."""

    usage: TokenUsage
    cost_usd: float | None
    latency_ms: float
    cached: bool

    @property
    def spent_usd(self) -> float | None:
        """What this call cost in this run: nothing when the cache answered."""
        return 0.0 if self.cached and self.cost_usd is not None else self.cost_usd

    def to_dict(self) -> dict[str, Any]:
        return {
            "usage": self.usage.model_dump(),
            "cost_usd": self.spent_usd,
            "latency_ms": self.latency_ms,
            "cached": self.cached,
        }


@dataclass
class Sample:
    judgement: Judgement | None = None
    error: str | None = None
    reasks: int = 0
    calls: list[Call] = field(default_factory=list)


async def ask(
    judge: JudgeModel,
    messages: Sequence[Mapping[str, str]],
    verdict: Verdict,
    *,
    temperature: float | None,
    max_tokens: int | None,
    sample: int = 0,
) -> Sample:
    """One sample of a verdict, re-asking on an invalid reply. Never raises JudgeError:
    a failed call or a last invalid reply becomes ``Sample.error``."""
    msgs = [dict(m) for m in messages]
    out = Sample()
    for attempt in range(MAX_REASKS + 1):
        try:
            reply = await judge.complete(
                msgs,
                schema=verdict.schema,
                schema_name="verdict",
                temperature=temperature,
                max_tokens=max_tokens,
                sample=sample,
                # a verdict that took re-asks is cached under the first request too
                cache_as=messages if attempt else None,
            )
        except JudgeError as exc:
            out.error = REDACTOR(str(exc))
            return out
        out.calls.append(Call(reply.usage, reply.cost_usd, reply.latency_ms, reply.cached))
        problem = reply.parse_error
        if problem is None:
            try:
                out.judgement = verdict.read(reply.parsed)
                return out
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                problem = f"the verdict cannot be read ({type(exc).__name__}: {exc})"
        if attempt == MAX_REASKS:
            out.error = REDACTOR(
                f"the judge gave no valid verdict after {MAX_REASKS} re-asks: {problem}"
            )
            return out
        out.reasks += 1
        shown = reply.text if len(reply.text) <= _MAX_ECHO_CHARS else reply.text[:_MAX_ECHO_CHARS]
        msgs.append({"role": "assistant", "content": shown or "(an empty reply)"})
        schema_text = json.dumps(verdict.schema, ensure_ascii=False)
        msgs.append(
            {"role": "user", "content": REASK_PROMPT.format(problem=problem, schema=schema_text)}
        )
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass(frozen=True)
class Aggregate:
    """The median of the samples' scores; the sample closest to it speaks for them."""

    score: float
    representative: Judgement
    details: dict[str, Any]


def aggregate(judgements: Sequence[Judgement]) -> Aggregate:
    scores = [j.score for j in judgements]
    median = statistics.median(scores)
    representative = min(judgements, key=lambda j: abs(j.score - median))
    details: dict[str, Any] = {}
    raws = [j.raw for j in judgements]
    numeric = all(isinstance(r, int | float) and not isinstance(r, bool) for r in raws)
    details["raw_score"] = statistics.median(raws) if numeric else representative.raw
    if len(judgements) > 1:
        details["samples"] = [{"score": j.score, "raw": j.raw} for j in judgements]
        details["spread"] = {
            "min": min(scores),
            "max": max(scores),
            "stdev": round(statistics.stdev(scores), 6),
        }
    return Aggregate(median, representative, details)


def usage_details(samples: Sequence[Sample]) -> dict[str, Any]:
    """Per-call usage and cost, and their totals, for a result's details."""
    calls = [c for s in samples for c in s.calls]
    total = sum((c.usage for c in calls), TokenUsage())
    costs = [c.spent_usd for c in calls]
    known = bool(calls) and all(c is not None for c in costs)
    return {
        "usage": total.model_dump(),
        "cost_usd": round(sum(c or 0.0 for c in costs), 8) if known else None,
        "calls": [c.to_dict() for c in calls],
    }
