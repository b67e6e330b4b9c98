"""``@assay.metric``: a function or a class of the user's becomes a metric a suite can
name; it is scored like a built-in, isolated like a code grader, and misuse is an error."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any, ClassVar

import pytest

import assay
from assay.cases.models import TestCase, Turn
from assay.metrics import MetricConfigError, build_metric
from assay.metrics.base import ConversationContext, Exchange, MetricOptions
from assay.metrics.comparison import Numeric, NumericOptions
from assay.metrics.judge.base import JudgeOptions
from assay.metrics.judge.quality import Correctness
from assay.metrics.judge.rubric import Rubric, RubricOptions
from assay.metrics.similarity import Levenshtein, TextOptions
from assay.metrics.tools.trajectory import TrajectoryRecall
from assay.registry import RegistrationError
from assay.results.models import MetricResult, TestResult, ToolInvocation
from assay.runner import CaseSettings, run_case
from assay.targets.base import AgentSession, Reply, Target, TurnRequest


def score(metric_name: str, response: str | None, **options: Any) -> MetricResult:
    ctx = assay.MetricContext(input="q", response=response)
    metric = build_metric(metric_name, options)
    missing = metric.missing_input(ctx)
    assert missing is None, missing
    return asyncio.run(metric.evaluate(ctx))


def test_a_function_is_a_metric_in_six_lines() -> None:
    @assay.metric("mentions_chf")
    def mentions_chf(ctx: assay.MetricContext) -> bool:
        return "CHF" in (ctx.response or "")

    passed = score("mentions_chf", "It costs CHF 120")
    assert (passed.score, passed.passed) == (1.0, True)
    failed = score("mentions_chf", "It costs EUR 120")
    assert (failed.score, failed.passed, failed.metric_name) == (0.0, False, "mentions_chf")
    assert mentions_chf(assay.MetricContext(input="q", response="CHF")) is True  # unchanged


def test_a_function_may_return_a_number_a_score_a_dict_or_be_async() -> None:
    @assay.metric("share_of_words")
    def share_of_words(ctx: assay.MetricContext) -> float:
        return 0.6

    @assay.metric("scored", dimension="safety")
    def scored(ctx: assay.MetricContext) -> assay.Score:
        return assay.Score(0.2, passed=True, reasoning="lenient")

    @assay.metric("as_dict")
    def as_dict(ctx: assay.MetricContext) -> dict[str, Any]:
        return {"passed": False, "reason": "no"}

    @assay.metric("awaits")
    async def awaits(ctx: assay.MetricContext) -> bool:
        await asyncio.sleep(0)
        return ctx.response == "yes"

    assert score("share_of_words", "x").passed is False  # no threshold: passes only at 1
    assert score("share_of_words", "x", threshold=0.5).passed is True
    lenient = score("scored", "x", name="lenient-check")
    assert (lenient.metric_name, lenient.dimension, lenient.passed) == (
        "lenient-check",
        "safety",
        True,
    )
    assert (score("as_dict", "x").passed, score("as_dict", "x").reasoning) == (False, "no")
    assert score("awaits", "yes").passed is True and score("awaits", "no").passed is False


def test_a_function_metric_sees_what_it_requires_and_cannot_change_the_record() -> None:
    @assay.metric("echoes_answer", requires=["response", "ground_truth"])
    def echoes_answer(ctx: assay.MetricContext) -> bool:
        ctx.tool_invocations[0].args["city"] = "Hacked"
        return ctx.response == ctx.ground_truth

    metric = build_metric("echoes_answer", {})
    call = ToolInvocation(name="weather", args={"city": "Basel"})
    no_answer = assay.MetricContext(input="q", response="Paris", tool_invocations=(call,))
    assert metric.missing_input(no_answer) == "no ground truth (Answer) for this turn"
    ctx = assay.MetricContext(
        input="q", response="Paris", ground_truth="Paris", tool_invocations=(call,)
    )
    assert asyncio.run(metric.evaluate(ctx)).passed is True
    assert call.args == {"city": "Basel"}


def test_a_test_scoped_function_scores_the_whole_conversation() -> None:
    @assay.metric("short_conversation", scope="test")
    def short_conversation(conv: ConversationContext) -> bool:
        return len(conv.turns) <= 2

    metric = build_metric("short_conversation", {})
    assert metric.scope == "test"
    turns = [Exchange(input="hi", response="hello")] * 3
    conv = ConversationContext(test_name="t", turns=turns, multi_turn=True)
    assert metric.missing_conversation_input(conv) is None
    result = asyncio.run(metric.evaluate_conversation(conv))
    assert (result.score, result.passed) == (0.0, False)


class WordOptions(MetricOptions):
    word: str
    case_insensitive: bool = False


def test_a_class_metric_has_typed_options_checked_when_built() -> None:
    @assay.metric("has_word")
    class HasWord(assay.Metric[WordOptions]):
        """The response contains ``word``."""

        threads: ClassVar[list[str]] = []

        def measure(self, ctx: assay.MetricContext) -> assay.Score:
            self.threads.append(threading.current_thread().name)
            text, word = ctx.response or "", self.options.word
            if self.options.case_insensitive:
                text, word = text.lower(), word.lower()
            return assay.Score(1.0 if word in text else 0.0)

    assert HasWord.Options is WordOptions and HasWord.name == "has_word"
    assert score("has_word", "Hotel in BASEL", word="basel", case_insensitive=True).passed
    assert not score("has_word", "Hotel in Bern", word="Basel").passed
    # a user's measure runs on a thread of its own, even on a short reply
    assert HasWord.threads and threading.current_thread().name not in HasWord.threads
    with pytest.raises(MetricConfigError) as bad:
        build_metric("has_word", {"wrod": "x"})
    assert bad.value.problems == [
        ("word", "Field required"),
        (
            "wrod",
            "unknown option for metric 'has_word' (options: case_insensitive, name, "
            "threshold, word)",
        ),
    ]


def test_every_builtin_metric_takes_its_options_from_its_type_parameter() -> None:
    assert Numeric.Options is NumericOptions
    assert Rubric.Options is RubricOptions
    assert Correctness.Options is JudgeOptions  # JudgeMetric's default
    assert Levenshtein.Options is TextOptions
    assert TrajectoryRecall.Options is MetricOptions
    numeric = build_metric("numeric", {"relative_tolerance": 0.01})
    assert isinstance(numeric.options, NumericOptions)


def test_misusing_the_decorator_says_how_to_use_it() -> None:
    def plain(ctx: assay.MetricContext) -> bool:
        return True

    with pytest.raises(RegistrationError, match=r'write @assay.metric\("my_metric"\)'):
        assay.metric(plain)  # type: ignore[arg-type]  # @assay.metric without a name
    with pytest.raises(RegistrationError, match="decorates a Metric subclass or a function"):
        assay.metric("not_a_metric")(WordOptions)
    with pytest.raises(RegistrationError, match=r"cannot require \['answer'\]; it can require"):
        assay.metric("needs_answer", requires=["answer"])(plain)
    with pytest.raises(RegistrationError, match="'equality' is already registered"):
        assay.metric("equality")(plain)


class Echo(Target):
    def session(self, session_id: str) -> AgentSession:
        class Session(AgentSession):
            async def send(self, request: TurnRequest) -> Reply:
                return Reply(text=request.input)

        return Session()


async def run_with(*names: str, limit_s: float = 60.0) -> TestResult:
    metrics = tuple(build_metric(n, {}) for n in names)
    case = TestCase(name="t", type="single_turn", turns=(Turn(input="Paris", metrics=metrics),))
    return await run_case(case, Echo(), CaseSettings(run_id="r" * 32, metric_timeout_s=limit_s))


async def test_a_function_metric_that_exits_or_blocks_costs_only_itself() -> None:
    release = threading.Event()

    @assay.metric("exits")
    def exits(ctx: assay.MetricContext) -> bool:
        sys.exit(0)

    @assay.metric("blocks")
    def blocks(ctx: assay.MetricContext) -> bool:
        release.wait(60)
        return True

    @assay.metric("fine")
    def fine(ctx: assay.MetricContext) -> bool:
        return True

    try:
        result = await run_with("exits", "blocks", "fine", limit_s=1.0)
    finally:
        release.set()
    found = {m.metric_name: m for m in result.metric_results}
    assert found["exits"].error == "SystemExit(0)"
    assert found["blocks"].error == (
        "took longer than 1 s (the limit is execution.metric_timeout_s)"
    )
    assert found["fine"].passed is True
    assert result.passed is False
