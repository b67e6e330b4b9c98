"""Run one goal-driven test: contract, conversation, judgement, result and trace.

1. The evaluation contract is resolved (``ContractBook``); an unusable one is an Error
   with the reason, and the agent is not contacted.
2. The conversation: the test's scripted opening turns, then the simulated user's messages,
   each sent through ``AgentConversation`` (the code scripted tests use), until the
   simulated user stops (never before ``min_turns``), ``max_turns`` is reached, or the
   session is lost. A failed agent turn is recorded on its turn and shown to the simulated
   user and the judge.
3. Fewer than two successful agent replies is an Error: there is nothing to judge.
4. The goal judge gives a verdict per behaviour; "Goal Achievement" is the share met and
   passes when all are. The test's other test-scoped metrics are scored as usual.
5. The result is settled (``assay.results.rollup.settle``) and the trace built from it, so
   status, ``goal_achieved`` and the metric always agree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay._words import counted
from assay.cases.models import TestCase, Turn
from assay.config import goal_floor, replies_needed
from assay.models.structured import Call, usage_of
from assay.results.models import MetricResult, TestResult, TokenUsage, TurnResult
from assay.results.rollup import rolled_tools_matched, rollup_metrics, settle
from assay.results.trace import (
    GOAL_METRIC,
    ExecutionStats,
    GoalEvaluation,
    TraceContract,
)
from assay.runner.conversation import (
    AgentConversation,
    CaseSettings,
    now_iso,
    score_conversation,
)
from assay.secrets import REDACTOR
from assay.simulation.contract import Contract
from assay.simulation.contracts import ContractBook, Resolved
from assay.simulation.judge import JudgedTurn, goal_score, judge_conversation
from assay.simulation.trace import (
    TraceTurnRecord,
    agent_stats,
    build_trace,
    role_stats,
    trace_contract,
    turn_failure,
    turn_timings,
    unmet_line,
)
from assay.simulation.user import SeenTurn, next_action
from assay.targets.base import Target


@dataclass
class GoalRuntime:
    """What goal tests need in a run: the simulated user's model, the judge's (which
    also derives contracts) and where contracts are kept."""

    simulator: Any
    judge: Any
    contracts: ContractBook

    NOT_CONFIGURED: ClassVar[str] = (
        "goal-driven tests need a judge model, to derive the evaluation contract and judge "
        "the conversation: set judge: in the suite (or pass --judge); the simulated user "
        "uses it too unless simulator: names another model"
    )

    @property
    def missing(self) -> str | None:
        """Why goal tests cannot run, or None."""
        return self.NOT_CONFIGURED if self.judge is None or self.simulator is None else None


@dataclass
class _Run:
    """A goal test in progress."""

    case: TestCase
    runtime: GoalRuntime
    started: str = field(default_factory=now_iso)
    t0: float = field(default_factory=time.perf_counter)
    records: list[TraceTurnRecord] = field(default_factory=list)
    simulator_calls: list[Call] = field(default_factory=list)
    judge_calls: list[Call] = field(default_factory=list)
    stopped_by: str = "max_turns"
    stop_reason: str | None = None


def _seen(turn: TurnResult) -> SeenTurn:
    return SeenTurn(turn.input, turn.response, turn_failure(turn))


def _judged(turn: TurnResult) -> JudgedTurn:
    error = turn_failure(turn)
    return JudgedTurn(
        turn.turn_index + 1, turn.input, turn.response, error, tuple(turn.tool_invocations)
    )


async def _converse(run: _Run, conversation: AgentConversation, contract: Contract) -> str | None:
    """The conversation; returns why it could not go on (a failed simulated user)."""
    spec = run.case.goal
    assert spec is not None
    for turn in run.case.turns:  # the scripted opening
        await conversation.send(turn)
        run.records.append(TraceTurnRecord(reasoning=None))
        if conversation.lost:
            run.stopped_by = "session_lost"
            return None
    min_turns = goal_floor(spec.min_turns, spec.max_turns)
    while len(conversation.turns) < spec.max_turns:
        seen = [_seen(t) for t in conversation.turns]
        asked = await next_action(run.runtime.simulator, spec, contract, seen, min_turns)
        run.simulator_calls += asked.calls
        if asked.value is None:
            failure = f"the simulated user failed at turn {len(seen) + 1}: {asked.error}"
            run.stopped_by, run.stop_reason = "simulated_user_failed", failure
            return failure
        action = asked.value
        if action.stop:
            run.stopped_by, run.stop_reason = "simulated_user", action.reasoning
            return None
        await conversation.send(Turn(input=action.message))
        run.records.append(TraceTurnRecord(action.reasoning, list(asked.calls)))
        if conversation.lost:
            run.stopped_by = "session_lost"
            return None
    return None


def _goal_metric(
    run: _Run, evaluation: GoalEvaluation | None, error: str | None, retries: int
) -> MetricResult:
    judge = run.runtime.judge
    usage = usage_of(run.judge_calls)
    details: dict[str, Any] = {**usage, "calls": [c.to_dict() for c in run.judge_calls]}
    common: dict[str, Any] = {
        "metric_name": GOAL_METRIC,
        "kind": "conversation",
        "dimension": "goal",
        "threshold": 1.0,
        "retry_count": retries,
        "model_used": getattr(judge, "name", None),
        "evaluation_time_ms": round(sum(c.latency_ms for c in run.judge_calls)),
    }
    if evaluation is None:
        return MetricResult(score=None, passed=False, error=error, details=details, **common)
    criteria = evaluation.criteria_evaluations
    details |= {
        "behaviours": len(criteria),
        "met": sum(c.met for c in criteria),
        "confidence": evaluation.confidence,
        "unmet": [f"{c.kind}: {c.criterion}" for c in criteria if not c.met],
    }
    unmet = [unmet_line(c) for c in criteria if not c.met]
    reasoning = evaluation.reasoning or ""
    if unmet:  # what a reporter shows of a failed test: the breaches first
        reasoning = "; ".join(unmet) + (f". The judge: {reasoning}" if reasoning else "")
    return MetricResult(
        score=goal_score(evaluation),
        passed=evaluation.all_criteria_met,
        reasoning=reasoning,
        details=details,
        **common,
    )


def _result(
    run: _Run,
    turns: list[TurnResult],
    errors: list[str],
    metric: MetricResult | None,
    repeat_index: int,
    warnings: list[str] | None = None,
) -> TestResult:
    spec = run.case.goal
    assert spec is not None
    usages = [t.token_usage for t in turns if t.token_usage is not None]
    metrics = ([metric] if metric is not None else []) + rollup_metrics(turns)
    return TestResult(
        test_name=run.case.name,
        test_type="goal",
        test_input=spec.goal,
        agent_response=next((t.response for t in reversed(turns) if t.response), None),
        processed_files=[f for t in turns for f in t.processed_files],
        tool_calls=[c for t in turns for c in t.tool_calls],
        tool_invocations=[inv for t in turns for inv in t.tool_invocations],
        tools_matched=rolled_tools_matched(turns),
        metric_results=metrics,
        passed=metric is not None and bool(metric.passed) and not errors,
        status="passed",
        execution_time_ms=sum(t.execution_time_ms for t in turns),
        token_usage=sum(usages, TokenUsage()) if usages else None,
        errors=[REDACTOR(e) for e in errors],
        timestamp=run.started,
        warnings=warnings or [],
        turns=turns or None,
        repeat_index=repeat_index,
        tags=list(run.case.tags),
    )


def _finish(
    run: _Run,
    result: TestResult,
    resolved: Resolved,
    evaluation: GoalEvaluation | None,
) -> TestResult:
    settle(result)
    turns = result.turns or []
    contract: TraceContract | None = None
    if resolved.contract is not None:
        contract = trace_contract(
            resolved.digest, resolved.origin or "derived", resolved.file, resolved.contract
        )
    simulator = run.runtime.simulator
    stats = ExecutionStats(
        duration_ms=round((time.perf_counter() - run.t0) * 1000, 3),
        stopped_by=run.stopped_by,
        stop_reason=run.stop_reason,
        successful_replies=sum(1 for t in turns if turn_failure(t) is None and not t.skipped),
        failed_turns=sum(1 for t in turns if turn_failure(t) is not None),
        turn_timings=turn_timings(turns, run.records),
        agent=agent_stats(turns, None),
        simulated_user=role_stats(run.simulator_calls, getattr(simulator, "name", None)),
        judge=role_stats(run.judge_calls, getattr(run.runtime.judge, "name", None)),
        contract=role_stats(resolved.calls, resolved.model),
    )
    trace = build_trace(result, run.records, evaluation, stats, contract)
    result.trace = trace.model_dump(mode="json")
    return result


async def run_goal_case(
    case: TestCase, target: Target, settings: CaseSettings, repeat_index: int = 0
) -> TestResult:
    """Run a goal-driven test whose ``settings.goal`` can run it (see ``GoalRuntime``)."""
    runtime = settings.goal
    assert isinstance(runtime, GoalRuntime) and case.goal is not None
    run = _Run(case, runtime)
    resolved = await runtime.contracts.resolve(case.goal, case.name)
    problem = resolved.problem
    if problem is None and resolved.contract is not None:
        problem = resolved.contract.usability()
    if problem is not None or resolved.contract is None:
        run.stopped_by = "not_started"
        where = f" (see {resolved.file})" if resolved.file and resolved.problem is None else ""
        reason = (
            f"the evaluation contract is unusable: {problem}{where}; the agent was not contacted"
        )
        metric = _goal_metric(run, None, reason, 0)
        return _finish(run, _result(run, [], [reason], metric, repeat_index), resolved, None)
    contract = resolved.contract
    conversation = AgentConversation(case, target, settings)
    try:
        failure = await _converse(run, conversation, contract)
    finally:
        await conversation.close()
    turns = conversation.turns
    replies = sum(1 for t in turns if turn_failure(t) is None and not t.skipped)
    needed = replies_needed(case.goal.min_turns, case.goal.max_turns)
    if failure is None and replies < needed:
        failure = (
            f"the agent gave {replies} successful {'reply' if replies == 1 else 'replies'} in "
            f"{counted(len(turns), 'turn')}; this goal test needs at least {needed} to be judged"
        )
    if failure is not None:
        metric = _goal_metric(run, None, failure, 0)
        result = _result(run, turns, [failure], metric, repeat_index, conversation.warnings(True))
        return _finish(run, result, resolved, None)
    asked = await judge_conversation(runtime.judge, contract, [_judged(t) for t in turns])
    run.judge_calls += asked.calls
    evaluation = asked.value
    errors = [] if evaluation is not None else [f"the goal judge failed: {asked.error}"]
    metric = _goal_metric(run, evaluation, errors[0] if errors else None, asked.reasks)
    result = _result(run, turns, errors, metric, repeat_index, conversation.warnings(True))
    if case.test_metrics:
        await score_conversation(case, conversation.exchanges, result, settings)
    return _finish(run, result, resolved, evaluation)
