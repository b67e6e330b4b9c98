"""Building a goal test's trace (``assay.results.trace``) from what happened in it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from assay.models.structured import Call, usage_of
from assay.results.models import TestResult, TokenUsage, TurnResult
from assay.results.rollup import errors_that_broke
from assay.results.trace import (
    GOAL_METRIC,
    AgentMessage,
    CriterionEvaluation,
    ExecutionStats,
    GoalEvaluation,
    GoalMetric,
    GoalTrace,
    RoleStats,
    SimulatedUserMessage,
    ToolCall,
    ToolCallFunction,
    TraceContract,
    TraceTurn,
    TurnTiming,
    unmet_behaviour,
)
from assay.simulation.contract import Contract

SEND_TOOL = "send_message_to_target"


@dataclass
class TraceTurnRecord:
    """What the trace keeps of one turn besides its TurnResult."""

    reasoning: str | None  # the simulated user's; None for a scripted opening turn
    simulator_calls: list[Call] = field(default_factory=list)


def role_stats(calls: Sequence[Call], model: str | None) -> RoleStats:
    summed = usage_of(calls)
    modes = [c.structured_output for c in calls if c.structured_output]
    return RoleStats(
        model=model,
        calls=summed["calls"],
        token_usage=TokenUsage.model_validate(summed["usage"]),
        cost_usd=summed["cost_usd"],
        structured_output=modes[-1] if modes else None,
    )


def agent_stats(turns: Sequence[TurnResult], model: str | None) -> RoleStats:
    sent = [t for t in turns if not t.skipped]
    usage = sum((t.token_usage for t in sent if t.token_usage), TokenUsage())
    return RoleStats(model=model, calls=len(sent), token_usage=usage)


def turn_failure(turn: TurnResult) -> str | None:
    """Why the agent's turn failed (its errors, joined), or None when it answered: a turn
    whose only errors are its tool-mismatch reasons was answered, wrong tools or not."""
    errors = errors_that_broke(turn.errors, turn.tool_mismatches)
    return "; ".join(errors) if errors else None


def history(turns: Sequence[TurnResult], records: Sequence[TraceTurnRecord]) -> list[TraceTurn]:
    out = []
    for turn, record in zip(turns, records, strict=True):
        number = turn.turn_index + 1
        call_id = f"turn-{number}"
        arguments = json.dumps({"message": turn.input}, ensure_ascii=False)
        error = turn_failure(turn)
        out.append(
            TraceTurn(
                turn_number=number,
                reasoning=record.reasoning,
                assistant_message=SimulatedUserMessage(
                    content=turn.input,
                    tool_calls=[
                        ToolCall(
                            id=call_id,
                            function=ToolCallFunction(name=SEND_TOOL, arguments=arguments),
                        )
                    ],
                ),
                tool_message=AgentMessage(
                    tool_call_id=call_id,
                    name=SEND_TOOL,
                    content=(turn.response or "") if error is None else f"(failed: {error})",
                    success=error is None,
                    error=error,
                    tool_invocations=turn.tool_invocations,
                    latency_ms=float(turn.execution_time_ms),
                ),
            )
        )
    return out


def trace_contract(digest: str, origin: str, file: str | None, contract: Contract) -> TraceContract:
    return TraceContract.model_validate(
        {
            "hash": digest,
            "origin": origin,
            "file": file,
            "simulated_user_objective": contract.simulated_user_objective,
            "adversarial": contract.adversarial,
            "confidence": contract.confidence,
            "required": [b.model_dump() for b in contract.required],
            "prohibited": [b.model_dump() for b in contract.prohibited],
        }
    )


def unmet_line(criterion: CriterionEvaluation) -> str:
    """``prohibited behaviour occurred: Promise a refund (turn 2)``."""
    turns = sorted({e.turn for e in criterion.evidence})
    where = f" (turn {', '.join(map(str, turns))})" if turns else ""
    return unmet_behaviour(criterion.kind, criterion.criterion) + where


def findings(
    result: TestResult, evaluation: GoalEvaluation | None, stats: ExecutionStats
) -> list[str]:
    """The trace's summary lines: the verdict, each unmet behaviour, the turns and the
    agent's tool calls that failed, and what stopped the conversation."""
    lines: list[str] = []
    if result.status == "error":
        lines += [f"✗ error: {e}" for e in result.errors]
    if evaluation is not None:
        unmet = [c for c in evaluation.criteria_evaluations if not c.met]
        if not unmet:
            lines.append("✓ All criteria met")  # the source trace's line, word for word
        lines += [f"✗ {unmet_line(c)}" for c in unmet]
    for turn in result.turns or ():
        for error in errors_that_broke(turn.errors, turn.tool_mismatches):
            lines.append(f"! turn {turn.turn_index + 1}: the agent's turn failed: {error}")
        # never hidden behind a pass: the judge weighed it, the reader sees it
        for call in turn.tool_invocations:
            if call.error:
                lines.append(
                    f"! turn {turn.turn_index + 1}: the agent's tool call {call.name} failed: "
                    f"{call.error}"
                )
    if stats.stopped_by == "simulated_user":
        why = f": {stats.stop_reason}" if stats.stop_reason else ""
        lines.append(f"the simulated user ended the conversation{why}")
    elif stats.stopped_by == "simulated_user_failed":
        lines.append(f"the conversation ended: {stats.stop_reason}")
    elif stats.stopped_by == "max_turns":
        lines.append(f"the conversation reached max_turns ({result_turns(result)} turns)")
    elif stats.stopped_by == "session_lost":
        lines.append("the conversation ended: the agent's session could not continue")
    return lines


def result_turns(result: TestResult) -> int:
    return len(result.turns or ())


def build_trace(
    result: TestResult,
    records: Sequence[TraceTurnRecord],
    evaluation: GoalEvaluation | None,
    stats: ExecutionStats,
    contract: TraceContract | None,
) -> GoalTrace:
    """The trace, decided from the settled result so that the two never disagree: its
    status is the test's, ``goal_achieved`` and ``metrics`` are the Goal Achievement
    metric's."""
    metric = next((m for m in result.metric_results if m.metric_name == GOAL_METRIC), None)
    achieved = bool(metric is not None and metric.passed and metric.error is None)
    status = {"passed": "success", "error": "error"}.get(result.status, "failure")
    confidence = evaluation.confidence if evaluation is not None else 0.0
    metrics = {}
    if metric is not None:
        metrics[GOAL_METRIC] = GoalMetric(
            score=metric.score, is_successful=achieved, confidence=confidence
        )
    turns = result.turns or []
    return GoalTrace(
        status=status,
        goal_achieved=achieved,
        turns_used=sum(1 for t in turns if not t.skipped),
        findings=findings(result, evaluation, stats),
        history=history(turns, records),
        goal_evaluation=evaluation,
        execution_stats=stats,
        metrics=metrics,
        contract=contract,
    )


def turn_timings(
    turns: Sequence[TurnResult], records: Sequence[TraceTurnRecord]
) -> list[TurnTiming]:
    return [
        TurnTiming(
            turn_number=t.turn_index + 1,
            simulated_user_ms=(
                round(sum(c.latency_ms for c in r.simulator_calls), 3)
                if r.reasoning is not None
                else None
            ),
            agent_ms=float(t.execution_time_ms),
        )
        for t, r in zip(turns, records, strict=True)
    ]
