"""Run one test case: one agent session, its turns strictly in order, each turn scored."""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from assay._isolation import describe
from assay.cases.models import TestCase, Turn
from assay.config import DEFAULT_METRIC_TIMEOUT_S, DEFAULT_TURN_TIMEOUT_S
from assay.errors import SessionLost, TargetError
from assay.metrics.base import ConversationContext, Exchange, MetricContext
from assay.metrics.guard import score_test_metric, score_turn_metric
from assay.metrics.tools import check_expected_tools
from assay.results.models import MetricResult, ProcessedFile, TestResult, TurnResult
from assay.results.rollup import rollup_multi_turn, settle, single_turn_result, turn_passed
from assay.runner.deadlines import turn_deadline
from assay.targets.base import Message, Reply, Target, TurnCutShort, TurnRequest

if TYPE_CHECKING:
    from assay.models.protocol import JudgeModel

# Two failed turns in a row mean the conversation cannot recover (SPEC §4).
MAX_CONSECUTIVE_FAILURES = 2


@dataclass(frozen=True)
class CaseSettings:
    turn_timeout_s: float = DEFAULT_TURN_TIMEOUT_S
    metric_timeout_s: float = DEFAULT_METRIC_TIMEOUT_S
    judge: JudgeModel | None = None  # when one is configured
    run_id: str = ""
    goal: Any = None  # an assay.simulation.GoalRuntime, when goal tests can run


_second: tuple[int, str] = (0, "1970-01-01T00:00:00")


def now_iso() -> str:
    """UTC now as ``datetime.isoformat(timespec="milliseconds")`` writes it; the date and
    time of day are formatted once a second, not once a test."""
    global _second
    now = time.time()
    second = int(now)
    if second != _second[0]:
        text = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        _second = (second, text)
    return f"{_second[1]}.{int((now - second) * 1000):03d}+00:00"


_conversations = itertools.count(1)
_PROCESS_TAG = uuid.uuid4().hex[:8]


def _new_process_tag() -> None:
    global _PROCESS_TAG
    _PROCESS_TAG = uuid.uuid4().hex[:8]


# a forked worker draws its own tag: else two workers would send the same session ids
os.register_at_fork(after_in_child=_new_process_tag)


def new_session_id(run_id: str) -> str:
    """A fresh id per conversation per run, so re-runs (and resumes) never share agent
    state: the run, this process and a counter, with no per-turn randomness to pay for."""
    return f"assay-{run_id[:12]}-{_PROCESS_TAG}-{next(_conversations)}"


async def score_turn(
    case: TestCase,
    index: int,
    turn: Turn,
    reply: Reply,
    history: Sequence[Exchange],
    latency_ms: float,
    settings: CaseSettings,
) -> tuple[list[MetricResult], dict[str, str]]:
    ctx = MetricContext(
        input=turn.input,
        # a reply without text is the agent saying nothing: comparisons score it, not skip it
        response=reply.text if reply.text is not None else "",
        ground_truth=turn.ground_truth,
        context=turn.context,
        tool_invocations=reply.tool_invocations,
        history=history,
        latency_ms=latency_ms,
        token_usage=reply.token_usage,
        turn_index=index,
        test_name=case.name,
        judge=settings.judge,
    )
    results: list[MetricResult] = []
    not_run: dict[str, str] = {}
    for metric in turn.metrics:
        outcome = await score_turn_metric(metric, ctx, settings.metric_timeout_s)
        if isinstance(outcome, str):
            not_run[metric.label] = outcome
        else:
            results.append(outcome)
    return results, not_run


def expected_tools_json(turn: Turn) -> list[str | dict[str, Any]] | None:
    if turn.expected_tools is None:
        return None
    return [t.normalized() for t in turn.expected_tools]


def skipped_turn(index: int, turn: Turn, reason: str) -> TurnResult:
    return TurnResult(
        turn_index=index,
        input=turn.input,
        ground_truth=turn.ground_truth,
        expected_tools=expected_tools_json(turn),
        passed=False,
        execution_time_ms=0,  # nothing was sent: no processed_files
        errors=[f"skipped: {reason}"],
        skipped=True,
    )


class AgentConversation:
    """One agent session, its turns sent strictly in order: each turn is sent, recorded as a
    TurnResult (scored by its own metrics) and added to the history the next turn, the
    simulated user and test-scoped metrics see. A scripted test sends its turns; a goal test
    sends what its simulated user writes, through the same code.

    After a lost session (SPEC §4: the agent said so, or two failed turns in a row) every
    later turn is recorded as skipped."""

    def __init__(self, case: TestCase, target: Target, settings: CaseSettings) -> None:
        self.case = case
        self.settings = settings
        self.session_id = new_session_id(settings.run_id)
        self.session = target.session(self.session_id)
        self.turns: list[TurnResult] = []
        self.messages: list[Message] = []
        self.exchanges: list[Exchange] = []
        self.lost: str | None = None
        self._failures_in_a_row = 0

    async def send(self, turn: Turn) -> TurnResult:
        index = len(self.turns)
        if self.lost is not None:
            self.turns.append(skipped_turn(index, turn, self.lost))
            return self.turns[-1]
        request = TurnRequest(
            input=turn.input,
            session_id=self.session_id,
            turn_id=turn.turn_id or str(index + 1),
            turn_index=index,
            history=tuple(self.messages),
            files=turn.attachments,
        )
        errors: list[str] = []
        reply: Reply | None = None
        partial: Reply | None = None  # what a failed turn did before it failed
        timeout_s = self.settings.turn_timeout_s
        t0 = time.perf_counter()
        try:
            async with turn_deadline(timeout_s):
                reply = await self.session.send(request)
        except SessionLost as exc:
            errors.append(f"session lost: {exc}")
            self.lost = f"the agent lost the session at turn {index}"
        except TimeoutError:
            errors.append(f"timed out after {timeout_s:g} s")
        except TargetError as exc:
            errors.append(str(exc))
            if isinstance(exc, TurnCutShort):
                partial = exc.partial
        except Exception as exc:  # a target's own bug still fails only this turn
            errors.append(f"the target failed: {describe(exc)}")
        latency_ms = (time.perf_counter() - t0) * 1000
        self._failures_in_a_row = self._failures_in_a_row + 1 if errors else 0
        if self.lost is None and self._failures_in_a_row >= MAX_CONSECUTIVE_FAILURES:
            self.lost = (
                f"{MAX_CONSECUTIVE_FAILURES} failed turns in a row (turns {index - 1}, {index})"
            )
        result = await _turn_result(
            self.case, index, turn, reply, errors, latency_ms, self.exchanges, self.settings
        )
        if partial is not None:
            _keep_what_was_done(result, partial)
        self.turns.append(result)
        self.messages.append(Message("user", turn.input, turn.attachments))
        response = reply.text if reply else None
        if reply is not None:  # a tool-only reply is still the assistant's turn
            self.messages.append(Message("assistant", response or ""))
        self.exchanges.append(
            Exchange(
                turn.input,
                response,
                tuple(reply.tool_invocations) if reply else (),
                turn.ground_truth,
                turn.context,
                latency_ms,
                reply.token_usage if reply else None,
            )
        )
        return result

    async def close(self) -> None:
        await self.session.close()


async def run_case(
    case: TestCase, target: Target, settings: CaseSettings, repeat_index: int = 0
) -> TestResult:
    """Run a single-turn or scripted multi-turn case (goal cases: see ``assay.simulation``)."""
    started = now_iso()
    conversation = AgentConversation(case, target, settings)
    try:
        for turn in case.turns:
            await conversation.send(turn)
    finally:
        await conversation.close()
    turns = conversation.turns
    extra = {"repeat_index": repeat_index, "tags": list(case.tags)}
    if case.type == "single_turn":
        result = single_turn_result(case.name, turns[0], started, **extra)
    else:
        result = rollup_multi_turn(case.name, turns, started, **extra)
    if case.test_metrics:
        await score_conversation(case, conversation.exchanges, result, settings)
    return result


async def score_conversation(
    case: TestCase, exchanges: list[Exchange], result: TestResult, settings: CaseSettings
) -> None:
    """Test-scoped metrics (trajectory, conversation) over the whole test; they join the
    test's metric results and decide its pass like any other metric."""
    conv = ConversationContext(
        test_name=case.name,
        turns=tuple(exchanges),
        expected_trajectory=case.expected_trajectory,
        judge=settings.judge,
        multi_turn=case.type != "single_turn",
    )
    for metric in case.test_metrics:
        scored = await score_test_metric(metric, conv, settings.metric_timeout_s)
        if isinstance(scored, str):
            result.metrics_not_run[metric.label] = scored
            continue
        result.metric_results.append(scored)
    settle(result)  # test-scoped metrics decide the pass, and can be all that was checked


def _keep_what_was_done(result: TurnResult, partial: Reply) -> None:
    """A failed turn still records the tool calls it made and the tokens it spent."""
    result.tool_calls = [c.name for c in partial.tool_invocations]
    result.tool_invocations = partial.tool_invocations
    result.token_usage = partial.token_usage


async def _turn_result(
    case: TestCase,
    index: int,
    turn: Turn,
    reply: Reply | None,
    errors: list[str],
    latency_ms: float,
    history: Sequence[Exchange],
    settings: CaseSettings,
) -> TurnResult:
    common = {
        "turn_index": index,
        "input": turn.input,
        "ground_truth": turn.ground_truth,
        "expected_tools": expected_tools_json(turn),
        "execution_time_ms": round(latency_ms),
        "errors": errors,
        "processed_files": [ProcessedFile(**a.record()) for a in turn.attachments],
    }
    if reply is None:
        not_run = {m.label: "the turn failed" for m in turn.metrics}
        return TurnResult(passed=False, metrics_not_run=not_run, **common)
    check = check_expected_tools(turn.expected_tools, reply.tool_invocations)
    metric_results, not_run = await score_turn(
        case, index, turn, reply, tuple(history), latency_ms, settings
    )
    ttft = reply.time_to_first_token_ms
    result = TurnResult(
        passed=False,
        response=reply.text,
        tool_calls=[c.name for c in reply.tool_invocations],
        tool_invocations=reply.tool_invocations,
        tools_matched=check.tools_matched,
        arg_match_details=check.arg_match_details,
        tool_mismatches=check.mismatches,
        metric_results=metric_results,
        metrics_not_run=not_run,
        token_usage=reply.token_usage,
        time_to_first_token_ms=None if ttft is None else round(ttft),
        **common,
    )
    result.passed = turn_passed(result)
    return result
