"""Judge metrics inside a run: the runner hands the judge to turn and conversation metrics
through the context, and without one they are not run, with the reason."""

from __future__ import annotations

from typing import Any

import assay.metrics.judge  # noqa: F401  (registers the judge metrics)
from assay.cases import parse_suite
from assay.metrics.base import NO_JUDGE
from assay.runner import CaseSettings, run_case
from assay.targets.python import PythonTarget
from tests.fakes.llm_server import ScriptedLLM
from tests.judge.conftest import judge_for, verdict

SUITE: dict[str, Any] = {
    "name": "s",
    "metrics": ["correctness", "context_retention"],
    "tests": [
        {
            "name": "memory",
            "turns": [
                {"input": "apples"},
                {"input": "what did I say first?", "ground_truth": "apples"},
            ],
        }
    ],
}


async def _run(judge: Any) -> Any:
    case = parse_suite(SUITE, "suite.yaml").cases[0]
    target = PythonTarget("tests.runner.agents:remembering")
    return await run_case(case, target, CaseSettings(judge=judge, run_id="r" * 32))


async def test_turn_and_conversation_judges_in_a_run(llm: ScriptedLLM) -> None:
    llm.queue(verdict(score=5), verdict(reasoning="remembers", score=4))
    async with judge_for(llm) as judge:
        result = await _run(judge)
    first, second = result.turns
    assert first.metrics_not_run == {"correctness": "no ground truth (Answer) for this turn"}
    [correct] = second.metric_results
    assert (correct.metric_name, correct.score, correct.passed) == ("correctness", 1.0, True)
    [retention] = [m for m in result.metric_results if m.metric_name == "context_retention"]
    assert retention.metric_name == "context_retention" and retention.kind == "conversation"
    assert retention.score == 0.75 and retention.reasoning == "remembers"
    assert result.passed
    assert llm.calls() == 2


async def test_without_a_judge_nothing_is_scored(llm: ScriptedLLM) -> None:
    result = await _run(None)
    assert result.turns[1].metrics_not_run == {"correctness": NO_JUDGE}
    assert result.metrics_not_run == {"context_retention": NO_JUDGE}
    assert llm.calls() == 0
