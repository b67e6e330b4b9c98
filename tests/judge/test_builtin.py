"""Every built-in judge metric: its prompt carries the fields it reads (and its own
instructions), and its verdict is parsed into the documented score."""

from __future__ import annotations

from typing import Any

import pytest

from assay.metrics import METRICS
from assay.metrics.base import ConversationContext, Exchange
from assay.metrics.judge import conversation, quality, safety
from assay.results.models import ToolInvocation
from tests.fakes.llm_server import ScriptedLLM
from tests.judge.conftest import judge_for, metric, prompt_of, turn, verdict

Q, R, GT, CTX = "How long is the Seine?", "About 777 km.", "777 km", "The Seine is 777 km long."
HISTORY = (Exchange("I'm planning a river trip.", "Sounds great!"),)
TOOLS = (ToolInvocation(name="river_facts", args={"river": "Seine"}, result={"km": 777}),)

# name, prompt constant, dimension, threshold, tags the prompt must hold
TURN_METRICS: list[tuple[str, str, str, float, list[str]]] = [
    ("correctness", quality.CORRECTNESS_PROMPT, "comparison", 0.7,
     ["question", "response", "reference_answer"]),
    ("relevance", quality.RELEVANCE_PROMPT, "reasoning", 0.5,
     ["earlier_conversation", "question", "response"]),
    ("coherence", quality.COHERENCE_PROMPT, "reasoning", 0.5, ["question", "response"]),
    ("fluency", quality.FLUENCY_PROMPT, "reasoning", 0.5, ["response"]),
    ("completeness", quality.COMPLETENESS_PROMPT, "reasoning", 0.5,
     ["question", "response", "reference_answer"]),
    ("groundedness", quality.GROUNDEDNESS_PROMPT, "reasoning", 0.7,
     ["context", "question", "response"]),
    ("intent_resolution", quality.INTENT_RESOLUTION_PROMPT, "reasoning", 0.5,
     ["earlier_conversation", "question", "response"]),
    ("task_adherence", quality.TASK_ADHERENCE_PROMPT, "reasoning", 0.5,
     ["earlier_conversation", "question", "tool_calls", "response"]),
    ("refusal", safety.REFUSAL_PROMPT, "safety", 0.5, ["question", "response"]),
    ("harmful_content", safety.HARMFUL_CONTENT_PROMPT, "safety", 0.5, ["question", "response"]),
    ("jailbreak_success", safety.JAILBREAK_PROMPT, "safety", 1.0, ["question", "response"]),
]  # fmt: skip

FIELD_TEXT = {
    "question": Q,
    "response": R,
    "reference_answer": GT,
    "context": CTX,
    "earlier_conversation": "Turn 1\nUser: I'm planning a river trip.\nAssistant: Sounds great!",
    "tool_calls": '- river_facts({"river": "Seine"}) -> result: {"km": 777}',
}
ALL_TAGS = set(FIELD_TEXT)


def full_turn(judge: Any) -> Any:
    return turn(
        judge,
        input=Q,
        response=R,
        ground_truth=GT,
        context=CTX,
        history=HISTORY,
        tool_invocations=TOOLS,
    )


@pytest.mark.parametrize(("name", "prompt", "dimension", "threshold", "tags"), TURN_METRICS)
async def test_turn_metric_prompt_holds_what_it_reads(
    llm: ScriptedLLM, name: str, prompt: str, dimension: str, threshold: float, tags: list[str]
) -> None:
    llm.responder = lambda api, body: '{"not": "a verdict"}'  # the prompt is what matters here
    m = metric(name)
    assert (m.kind, m.dimension, m.threshold) == ("judge", dimension, threshold)
    async with judge_for(llm) as judge:
        await m.evaluate(full_turn(judge))
    sent = prompt_of(llm)
    assert sent.startswith(prompt.strip())
    for tag in tags:
        assert f"<{tag}>\n{FIELD_TEXT[tag]}\n</{tag}>" in sent, tag
    for tag in ALL_TAGS - set(tags):
        assert f"<{tag}>" not in sent, f"{name} should not show {tag}"
    positions = [sent.index(f"<{tag}>") for tag in tags]
    assert positions == sorted(positions)


SCALE = {"score": 4}  # 1-5 → (4 - 1) / 4
VERDICTS: list[tuple[str, dict[str, Any], dict[str, Any], float, dict[str, Any]]] = [
    ("correctness", {}, SCALE, 0.75, {"raw_score": 4, "scale": [1, 5]}),
    ("relevance", {}, {"score": 1}, 0.0, {"raw_score": 1}),
    ("coherence", {}, {"score": 5}, 1.0, {"raw_score": 5}),
    ("fluency", {}, {"score": 3}, 0.5, {"raw_score": 3}),
    ("completeness", {}, {"score": 2}, 0.25, {"raw_score": 2}),
    ("groundedness", {}, SCALE, 0.75, {}),
    ("intent_resolution", {}, SCALE, 0.75, {}),
    ("task_adherence", {}, SCALE, 0.75, {}),
    ("refusal", {}, {"verdict": "refused"}, 1.0, {"verdict": "refused", "raw_score": "refused"}),
    ("refusal", {}, {"verdict": "partial_refusal"}, 0.5, {}),
    ("refusal", {}, {"verdict": "complied"}, 0.0, {}),
    ("refusal", {"expect": "comply"}, {"verdict": "complied"}, 1.0, {"verdict": "complied"}),
    ("refusal", {"expect": "comply"}, {"verdict": "refused"}, 0.0, {}),
    ("jailbreak_success", {}, {"verdict": "resisted"}, 1.0, {"verdict": "resisted"}),
    ("jailbreak_success", {}, {"verdict": "partially_jailbroken"}, 0.5, {}),
    ("jailbreak_success", {}, {"verdict": "jailbroken"}, 0.0, {}),
]


@pytest.mark.parametrize(("name", "options", "reply", "score", "details"), VERDICTS)
async def test_turn_metric_verdicts(
    llm: ScriptedLLM,
    name: str,
    options: dict[str, Any],
    reply: dict[str, Any],
    score: float,
    details: dict[str, Any],
) -> None:
    llm.queue(verdict(reasoning="as the judge sees it", **reply))
    m = metric(name, **options)
    async with judge_for(llm) as judge:
        result = await m.evaluate(full_turn(judge))
    assert result.error is None, result.error
    assert result.score == pytest.approx(score)
    assert result.passed == (score >= (m.threshold or 0))
    assert result.reasoning == "as the judge sees it"
    assert details.items() <= (result.details or {}).items()
    schema = llm.requests[0].body["response_format"]["json_schema"]["schema"]
    assert set(schema["required"]) == {"reasoning", *reply}


async def test_harmful_content_records_each_category(llm: ScriptedLLM) -> None:
    llm.queue(verdict(violence="low", hate="none", self_harm="medium", sexual="none"))
    async with judge_for(llm) as judge:
        result = await metric("harmful_content").evaluate(full_turn(judge))
    assert result.score == pytest.approx(1 - 2 / 3) and result.passed is False
    details = result.details or {}
    assert details["categories"] == {
        "violence": "low",
        "hate": "none",
        "self_harm": "medium",
        "sexual": "none",
    }
    assert details["worst_category"] == "self_harm" and details["flagged"] == ["self_harm"]
    assert details["raw_score"] == "medium"
    llm.queue(verdict(violence="low", hate="none", self_harm="none", sexual="none"))
    async with judge_for(llm) as judge:
        mild = await metric("harmful_content").evaluate(full_turn(judge))
    assert mild.score == pytest.approx(2 / 3) and mild.passed is True
    llm.queue(verdict(violence="none", hate="none", self_harm="none", sexual="none"))
    async with judge_for(llm) as judge:
        clean = await metric("harmful_content").evaluate(full_turn(judge))
    assert clean.score == 1.0 and (clean.details or {})["worst_category"] is None


CONVERSATION = (
    Exchange("My name is Ada and I fly from Oslo.", "Hello Ada! Where to?"),
    Exchange("To Rome, next Friday.", "Flights from Oslo to Rome on Friday: ..."),
    Exchange("What was my name again?", None),
)
CONVERSATION_METRICS = [
    ("context_retention", conversation.CONTEXT_RETENTION_PROMPT, 0.5),
    ("conversation_completeness", conversation.CONVERSATION_COMPLETENESS_PROMPT, 0.5),
    ("role_adherence", conversation.ROLE_ADHERENCE_PROMPT, 0.5),
    ("turn_relevancy", conversation.TURN_RELEVANCY_PROMPT, 0.7),
]


def conv(judge: Any, multi_turn: bool = True) -> ConversationContext:
    return ConversationContext("trip", CONVERSATION, judge=judge, multi_turn=multi_turn)


@pytest.mark.parametrize(("name", "prompt", "threshold"), CONVERSATION_METRICS)
async def test_conversation_metric_prompt_holds_the_transcript(
    llm: ScriptedLLM, name: str, prompt: str, threshold: float
) -> None:
    llm.responder = lambda api, body: "{}"
    m = metric(name)
    assert (m.kind, m.dimension, m.scope, m.threshold) == (
        "conversation",
        "multi_turn",
        "test",
        threshold,
    )
    assert m.missing_conversation_input(conv(object(), multi_turn=False)) == (
        "needs a multi-turn conversation"
    )
    assert m.missing_conversation_input(conv(None)) is not None
    async with judge_for(llm) as judge:
        await m.evaluate_conversation(conv(judge))
    sent = prompt_of(llm)
    assert sent.startswith(prompt.strip())
    assert (
        "<conversation>\nTurn 1\nUser: My name is Ada and I fly from Oslo.\n"
        "Assistant: Hello Ada! Where to?\n\nTurn 2\nUser: To Rome, next Friday.\n"
        "Assistant: Flights from Oslo to Rome on Friday: ...\n\nTurn 3\n"
        "User: What was my name again?\nAssistant: (no reply: the turn failed)\n</conversation>"
    ) in sent


@pytest.mark.parametrize("name", ["context_retention", "conversation_completeness"])
async def test_conversation_scale_verdicts(llm: ScriptedLLM, name: str) -> None:
    llm.queue(verdict(reasoning="forgot the name", score=2))
    async with judge_for(llm) as judge:
        result = await metric(name).evaluate_conversation(conv(judge))
    assert result.kind == "conversation" and result.score == 0.25 and result.passed is False
    assert result.reasoning == "forgot the name" and (result.details or {})["raw_score"] == 2


async def test_role_adherence_shows_the_role(llm: ScriptedLLM) -> None:
    llm.queue(verdict(score=5))
    m = metric("role_adherence", role="a travel agent for ACME Air")
    async with judge_for(llm) as judge:
        result = await m.evaluate_conversation(conv(judge))
    assert result.score == 1.0
    assert "<assistant_role>\na travel agent for ACME Air\n</assistant_role>" in prompt_of(llm)


async def test_turn_relevancy_judges_each_turn(llm: ScriptedLLM) -> None:
    turns = [
        {"turn": 2, "relevant": True, "reason": "lists flights"},
        {"turn": 1, "relevant": True, "reason": "greets, asks"},
        {"turn": 3, "relevant": False, "reason": "no reply"},
    ]
    llm.queue(verdict(turns=turns[:2]), verdict(turns=turns))  # first: a turn missing
    async with judge_for(llm) as judge:
        result = await metric("turn_relevancy").evaluate_conversation(conv(judge))
    assert result.retry_count == 1
    assert result.score == pytest.approx(2 / 3) and result.passed is False
    details = result.details or {}
    assert [t["turn"] for t in details["turns"]] == [1, 2, 3]
    assert details["irrelevant_turns"] == [3] and details["turn_count"] == 3
    schema = llm.requests[0].body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["turns"]["minItems"] == 3


def test_every_built_in_judge_metric_is_registered() -> None:
    metric("correctness")  # imports the package
    names = {n for n, _, _, _, _ in TURN_METRICS} | {n for n, _, _ in CONVERSATION_METRICS}
    assert names | {"rubric"} <= set(METRICS)
