"""``score_turn`` makes its MetricContext by position: each field gets the value the keyword
call gave it (every value distinct, so a swap of any two fails)."""

from __future__ import annotations

import dataclasses
from typing import Any

from assay.cases import parse_suite
from assay.metrics.base import Exchange, Metric, MetricContext, MetricOptions, Score
from assay.results.models import TokenUsage, ToolInvocation
from assay.runner.conversation import CaseSettings, score_turn
from assay.targets.base import Reply


class _Seen(Metric[MetricOptions]):
    name = "seen"
    requires = frozenset()

    def __init__(self, options: MetricOptions) -> None:
        super().__init__(options)
        self.seen: list[MetricContext] = []

    def measure(self, ctx: MetricContext) -> Score:
        self.seen.append(ctx)
        return Score(1.0)


class _Judge:  # stands for a JudgeModel: only its identity is compared
    pass


async def test_each_field_gets_the_value_the_keyword_call_gave_it() -> None:
    spec = {"name": "t", "input": "question?", "ground_truth": "42", "context": "ctx"}
    case = parse_suite({"name": "s", "tests": [spec]}, "suite.yaml").cases[0]
    metric = _Seen(MetricOptions())
    turn = dataclasses.replace(case.turns[0], metrics=(metric,))
    calls = [ToolInvocation(name="lookup")]
    usage = TokenUsage(prompt_tokens=3)
    history = (Exchange("earlier", "reply"),)
    judge: Any = _Judge()
    settings = CaseSettings(judge=judge)
    for text, response in (("the reply", "the reply"), (None, "")):
        reply = Reply(text, calls, usage, 1.5)
        metric.seen.clear()
        await score_turn(case, 7, turn, reply, history, 12.25, settings)
        expected = MetricContext(
            input="question?",
            response=response,
            ground_truth="42",
            context="ctx",
            tool_invocations=calls,
            history=history,
            latency_ms=12.25,
            token_usage=usage,
            turn_index=7,
            test_name="t",
            judge=judge,
            metadata={},
        )
        (seen,) = metric.seen
        assert list(vars(seen).items()) == list(vars(expected).items())
        for field in dataclasses.fields(MetricContext):  # the very objects, not equal ones
            if field.name != "metadata":
                assert getattr(seen, field.name) is getattr(expected, field.name), field.name
