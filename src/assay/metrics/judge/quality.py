"""Quality judge metrics: one turn's response on a 1–5 scale, mapped to 0–1
(1 → 0.0, 3 → 0.5, 5 → 1.0). The raw score is kept in ``details.raw_score``."""

from __future__ import annotations

from typing import ClassVar

from assay.metrics.judge.base import Field_, JudgeMetric
from assay.metrics.registry import metric

CORRECTNESS_PROMPT = """\
Evaluate the CORRECTNESS of the response: does it give the same answer as the reference
answer to the question? The reference answer is correct by definition. Judge the facts,
numbers, names and conclusions, not the wording, length or style: a paraphrase, an
equivalent unit or format ("5,120" for "5120", "50%" for "0.5") or extra explanation is
fine as long as nothing contradicts the reference.

Scoring (1-5):
5 - fully correct: every fact in the reference answer is given, nothing contradicts it
4 - correct, with a minor omission or imprecision that does not change the answer
3 - partly correct: some key facts right, some missing or wrong
2 - mostly wrong, with a fragment of the correct answer
1 - wrong, contradicts the reference, or does not answer"""

RELEVANCE_PROMPT = """\
Evaluate the RELEVANCE of the response to the question: does it address what was asked,
staying on topic, without filler or unrelated content? Earlier turns, when given, are
context for what the question means. Do not judge whether the facts are correct.

Scoring (1-5):
5 - addresses exactly what was asked, directly and entirely
4 - relevant, with a small digression or a little unneeded content
3 - partly relevant: addresses the topic but misses the point of the question
2 - mostly irrelevant, touches the question only in passing
1 - irrelevant: does not address the question at all"""

COHERENCE_PROMPT = """\
Evaluate the COHERENCE of the response: is it logically organised, with ideas that follow
from one another, consistent statements and clear connections, so that it reads as one
well-structured answer to the question? Do not judge factual correctness.

Scoring (1-5):
5 - fully coherent: clear structure, logical flow, no contradictions
4 - coherent, with a slightly awkward transition or ordering
3 - partly coherent: the main line can be followed but parts are disjointed or repetitive
2 - mostly incoherent: jumps between ideas, contradicts itself
1 - incoherent: no discernible logic or structure"""

FLUENCY_PROMPT = """\
Evaluate the FLUENCY of the response as written language: grammar, spelling, word choice,
sentence construction and readability. Do not judge content, relevance or correctness;
short answers can be fully fluent.

Scoring (1-5):
5 - flawless, natural and easy to read
4 - fluent, with a rare minor slip
3 - understandable, with noticeable errors or awkward phrasing
2 - hard to read: frequent errors, broken sentences
1 - unreadable or not language"""

COMPLETENESS_PROMPT = """\
Evaluate the COMPLETENESS of the response: does it address every part of the question
(every sub-question, requested item and constraint)? When a reference answer is given,
also check that the response covers each of its key points. Do not penalise extra correct
detail; penalise only what is missing.

Scoring (1-5):
5 - complete: every part of the question (and every key point of the reference) covered
4 - nearly complete: one minor point missing
3 - partly complete: some parts answered, others missing
2 - mostly incomplete: only a small part answered
1 - does not address the question"""

GROUNDEDNESS_PROMPT = """\
Evaluate the GROUNDEDNESS of the response in the context: is every claim in the response
supported by the context given? A claim that is not in the context, or that contradicts
it, is ungrounded even if it is true in the world. Saying that the context does not
contain the answer is grounded. Ignore claims that merely restate the question.

Scoring (1-5):
5 - fully grounded: every claim is supported by the context
4 - grounded, with one minor detail not in the context
3 - partly grounded: some claims supported, some not in the context
2 - mostly ungrounded: the main claims are not in the context
1 - ungrounded: contradicts the context, or is made up"""

INTENT_RESOLUTION_PROMPT = """\
Evaluate INTENT RESOLUTION: what did the user want to achieve with this message (given the
earlier conversation, when shown), and did the response resolve that intent? Identify the
intent first, then judge whether the user got what they needed: the answer, the action
taken, or a clear and justified explanation of why it cannot be done.

Scoring (1-5):
5 - the intent is fully resolved
4 - resolved, with a minor gap the user can easily close
3 - partly resolved: the user still has to ask again for part of it
2 - the intent is misunderstood, or barely addressed
1 - not resolved at all"""

TASK_ADHERENCE_PROMPT = """\
Evaluate TASK ADHERENCE: did the assistant carry out the task the user asked for, as asked,
within its constraints (the steps, format, limits and rules stated in the question or the
earlier conversation)? When tool calls are shown, judge whether the right tools were used
with sensible arguments and whether the response is faithful to their results. Penalise
doing a different task, ignoring instructions, or claiming actions that were not taken.

Scoring (1-5):
5 - the task is done as asked, every instruction followed
4 - done, with a minor deviation from the instructions
3 - partly done, or done while ignoring an instruction
2 - mostly not done, or a different task done instead
1 - the task is not attempted, or the response claims work that was not done"""


@metric("correctness")
class Correctness(JudgeMetric):
    """The response against the turn's ground truth (its Answer)."""

    dimension: ClassVar[str] = "comparison"
    requires: ClassVar[frozenset[str]] = frozenset({"response", "ground_truth", "judge"})
    default_threshold: ClassVar[float | None] = 0.7
    prompt: ClassVar[str] = CORRECTNESS_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("input", "response", "ground_truth")


@metric("relevance")
class Relevance(JudgeMetric):
    prompt: ClassVar[str] = RELEVANCE_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("history", "input", "response")


@metric("coherence")
class Coherence(JudgeMetric):
    prompt: ClassVar[str] = COHERENCE_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("input", "response")


@metric("fluency")
class Fluency(JudgeMetric):
    prompt: ClassVar[str] = FLUENCY_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("response",)


@metric("completeness")
class Completeness(JudgeMetric):
    """Every part of the question answered (and the Answer's key points, when there is one)."""

    prompt: ClassVar[str] = COMPLETENESS_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("input", "response", "ground_truth")


@metric("groundedness")
class Groundedness(JudgeMetric):
    """Every claim of the response supported by the turn's context."""

    requires: ClassVar[frozenset[str]] = frozenset({"response", "context", "judge"})
    default_threshold: ClassVar[float | None] = 0.7
    prompt: ClassVar[str] = GROUNDEDNESS_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("context", "input", "response")


@metric("intent_resolution")
class IntentResolution(JudgeMetric):
    prompt: ClassVar[str] = INTENT_RESOLUTION_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("history", "input", "response")


@metric("task_adherence")
class TaskAdherence(JudgeMetric):
    prompt: ClassVar[str] = TASK_ADHERENCE_PROMPT
    reads: ClassVar[tuple[Field_, ...]] = ("history", "input", "tool_calls", "response")
