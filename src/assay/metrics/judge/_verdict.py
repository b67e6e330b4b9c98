"""Asking a judge for a verdict: the JSON it must return, the re-asks when it does not,
and the samples.

A ``Verdict`` is the JSON Schema a judge replies with and how to read a conforming reply
into a ``Judgement`` (a 0–1 score, the raw verdict, the reasoning). ``ask`` sends the
prompt through ``assay.models.structured.ask_structured``: an invalid reply is shown back
to the judge with what was wrong, at most ``MAX_REASKS`` times, after which the sample
fails: a score is never guessed.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.models.structured import MAX_REASKS as MAX_REASKS
from assay.models.structured import REASK_PROMPT as REASK_PROMPT
from assay.models.structured import Call, ask_structured
from assay.results.models import TokenUsage

if TYPE_CHECKING:
    from assay.models.protocol import JudgeModel


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


# Up to this many points, an integer scale is sent as an enum: grammar-constrained local
# servers enforce an enum but not minimum/maximum (10, 100 and 10.5 came back on 1–5).
MAX_ENUM_POINTS = 101


def integer_scale(low: int, high: int) -> dict[str, Any]:
    if high - low < MAX_ENUM_POINTS:
        return {"type": "integer", "enum": list(range(low, high + 1))}
    return {"type": "integer", "minimum": low, "maximum": high}


def scale_verdict(low: int, high: int) -> Verdict:
    """``{"reasoning": str, "score": an integer from low to high}``, mapped to 0–1."""

    def read(parsed: dict[str, Any]) -> Judgement:
        raw = parsed["score"]
        score = (raw - low) / (high - low)
        return Judgement(score, raw, parsed["reasoning"], {"scale": [low, high]})

    schema = object_schema({"score": integer_scale(low, high)})
    return Verdict(schema, read)


def choice_verdict(key: str, scores: Mapping[str, float]) -> Verdict:
    """``{"reasoning": str, key: one of the labels}``; each label has its 0–1 score."""

    def read(parsed: dict[str, Any]) -> Judgement:
        label = parsed[key]
        return Judgement(scores[label], label, parsed["reasoning"], {key: label})

    return Verdict(object_schema({key: {"type": "string", "enum": list(scores)}}), read)


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
    """One sample of a verdict, re-asking on an invalid reply (``ask_structured``). Never
    raises JudgeError: a failed call or a last invalid reply becomes ``Sample.error``."""
    asked = await ask_structured(
        judge,
        messages,
        verdict.schema,
        verdict.read,
        schema_name="verdict",
        temperature=temperature,
        max_tokens=max_tokens,
        sample=sample,
        who="the judge",
        what="verdict",
    )
    return Sample(asked.value, asked.error, asked.reasks, asked.calls)


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
    details: dict[str, Any] = {
        "usage": total.model_dump(),
        "cost_usd": round(sum(c or 0.0 for c in costs), 8) if known else None,
        "calls": [c.to_dict() for c in calls],
    }
    modes = [c.structured_output for c in calls if c.structured_output]
    if modes:  # how the server was asked for JSON (json_schema, json_object, prompt)
        details["structured_output"] = modes[-1]
    return details
