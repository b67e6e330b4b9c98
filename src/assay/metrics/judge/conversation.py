"""Conversation judge metrics: scored once per multi-turn test, over the whole transcript
(``scope = "test"``). Single-turn tests report them as not run."""

from __future__ import annotations

from typing import Any, ClassVar

from assay.metrics.base import ConversationContext
from assay.metrics.judge._verdict import Judgement, Verdict, object_schema
from assay.metrics.judge.base import (
    ConversationJudgeMetric,
    JudgeOptions,
    JudgeOptionsT,
    material,
    render_history,
)
from assay.metrics.registry import metric

CONTEXT_RETENTION_PROMPT = """\
Evaluate CONTEXT RETENTION over this conversation: does the assistant remember and
correctly use what was established in earlier turns (facts the user gave, names, numbers,
preferences, constraints, decisions, its own earlier answers)? Asking again for
information already given, contradicting it, or forgetting a constraint counts against it.
Turns that do not depend on earlier ones count neither for nor against.

Scoring (1-5):
5 - everything earlier is remembered and used correctly
4 - one minor lapse that did not affect the outcome
3 - some information forgotten or re-asked, affecting a turn
2 - frequently loses track of what was said
1 - treats every turn as if the conversation had just started"""

CONVERSATION_COMPLETENESS_PROMPT = """\
Evaluate CONVERSATION COMPLETENESS: list what the user asked for or wanted over the whole
conversation, then check whether the assistant satisfied each by the end (answered it, did
it, or clearly and justifiably explained why it cannot).

Scoring (1-5):
5 - every request of the user is satisfied
4 - all but a minor one
3 - about half of the requests satisfied
2 - most requests left unsatisfied
1 - none satisfied"""

ROLE_ADHERENCE_PROMPT = """\
Evaluate ROLE ADHERENCE: does the assistant stay in its role throughout the conversation,
keeping the persona, tone, scope and rules of that role, even when the user pushes it to
step outside them? The role is described in <assistant_role> when given; otherwise judge
against the role the assistant establishes in its first replies.

Scoring (1-5):
5 - in role in every turn
4 - in role, with one slight slip in tone or scope
3 - breaks role in a turn, then recovers
2 - breaks role repeatedly
1 - ignores its role"""

TURN_RELEVANCY_PROMPT = """\
Evaluate TURN RELEVANCY: for each assistant reply in the conversation, decide whether it is
relevant to the user's message in that turn, in the light of the turns before it. A reply
is relevant when it addresses what the user said or asked (a clarifying question counts);
it is not when it ignores the message, answers something else, or repeats itself without
purpose. Give one verdict per turn, numbered as in the transcript, in "turns"."""


class _ScaleConversationMetric(ConversationJudgeMetric[JudgeOptionsT]):
    default_threshold: ClassVar[float | None] = 0.5


@metric("context_retention")
class ContextRetention(_ScaleConversationMetric):
    prompt: ClassVar[str] = CONTEXT_RETENTION_PROMPT


@metric("conversation_completeness")
class ConversationCompleteness(_ScaleConversationMetric):
    prompt: ClassVar[str] = CONVERSATION_COMPLETENESS_PROMPT


class RoleAdherenceOptions(JudgeOptions):
    role: str | None = None  # the assistant's role, e.g. "a travel agent for ACME Air"


@metric("role_adherence")
class RoleAdherence(_ScaleConversationMetric[RoleAdherenceOptions]):
    prompt: ClassVar[str] = ROLE_ADHERENCE_PROMPT

    def conversation_material(self, conv: ConversationContext) -> str:
        opts = self.options
        fields = {"assistant_role": opts.role, "conversation": render_history(conv.turns)}
        return material(fields, ["assistant_role", "conversation"])


def turn_verdict(turn_count: int) -> Verdict:
    """One ``{turn, relevant, reason}`` per turn, numbered 1..turn_count; the score is the
    share of relevant turns."""
    item = {
        "type": "object",
        "properties": {
            "turn": {"type": "integer", "minimum": 1, "maximum": turn_count},
            "relevant": {"type": "boolean"},
            "reason": {"type": "string"},
        },
        "required": ["turn", "relevant", "reason"],
        "additionalProperties": False,
    }
    schema = object_schema(
        {"turns": {"type": "array", "items": item, "minItems": turn_count, "maxItems": turn_count}}
    )

    def read(parsed: dict[str, Any]) -> Judgement:
        verdicts = sorted(parsed["turns"], key=lambda v: v["turn"])
        numbers = [v["turn"] for v in verdicts]
        if numbers != list(range(1, turn_count + 1)):
            raise ValueError(f"give exactly one verdict for each turn 1..{turn_count}")
        irrelevant = [v["turn"] for v in verdicts if not v["relevant"]]
        share = (turn_count - len(irrelevant)) / turn_count
        details = {"turns": verdicts, "irrelevant_turns": irrelevant, "turn_count": turn_count}
        return Judgement(share, share, parsed["reasoning"], details)

    return Verdict(schema, read)


@metric("turn_relevancy")
class TurnRelevancy(ConversationJudgeMetric):
    """The share of assistant replies relevant to their turn; per-turn verdicts in details."""

    default_threshold: ClassVar[float | None] = 0.7
    prompt: ClassVar[str] = TURN_RELEVANCY_PROMPT

    def conversation_verdict(self, conv: ConversationContext) -> Verdict:
        return turn_verdict(len(conv.turns))
