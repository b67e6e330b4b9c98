"""Run one test case: one agent session, its turns strictly in order, each turn scored."""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from assay._isolation import describe
from assay.cases.models import TestCase, Turn
from assay.config import DEFAULT_METRIC_TIMEOUT_S, DEFAULT_TURN_TIMEOUT_S
from assay.errors import SessionLost, TargetError
from assay.metrics.base import ConversationContext, Exchange, MetricContext, turn_size
from assay.metrics.guard import score_inline, score_test_metric, score_turn_metric
from assay.metrics.tools import ToolCheck, check_expected_tools
from assay.net.deadlines import turn_deadline
from assay.results.models import MetricResult, ProcessedFile, TestResult, TurnResult
from assay.results.rollup import (
    checks_passed,
    rollup_multi_turn,
    sent_single_turn,
    settle,
    single_turn_of_fields,
    single_turn_result,
)
from assay.targets.base import AgentRaised, Message, Reply, Target, TurnCutShort, TurnRequest

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
    # in field order, by position: a class called with keywords has them packed into a dict
    # that its __init__ unpacks again (tests/runner/test_metric_context_order.py)
    ctx = MetricContext(
        turn.input,
        # a reply without text is the agent saying nothing: comparisons score it, not skip it
        reply.text if reply.text is not None else "",
        turn.ground_truth,
        turn.context,
        reply.tool_invocations,
        history,
        latency_ms,
        reply.token_usage,
        index,
        case.name,
        settings.judge,
    )
    results: list[MetricResult] = []
    not_run: dict[str, str] = {}
    size = turn_size(ctx) if turn.metrics else 0
    for metric in turn.metrics:
        if metric.scores_inline(ctx, size):  # nothing to wait on: no coroutine, no limit
            outcome = score_inline(metric, ctx)
        else:
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
        # "unrecoverable": the contract's word for a skipped turn, which readers look for
        errors=[f"skipped: the session is unrecoverable: {reason}"],
        skipped=True,
    )


class AgentConversation:
    """One agent session, its turns sent strictly in order: each turn is sent, recorded as a
    TurnResult (scored by its own metrics) and added to the history the next turn, the
    simulated user and test-scoped metrics see. A scripted test sends its turns; a goal test
    sends what its simulated user writes, through the same code.

    After a lost session (SPEC §4: the agent said so, or two failed turns in a row) every
    later turn is recorded as skipped."""

    # (turn index, warning) for each reply's warnings (``Reply.warnings``), in turn order,
    # from ``send`` (``send_only`` takes its one reply's); the class's empty one until then
    noted: tuple[tuple[int, str], ...] = ()

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

    def warnings(self, by_turn: bool) -> list[str]:
        """The test's warnings from its replies; ``by_turn``: each as ``[turn i] warning``,
        as a multi-turn test's errors are rolled up."""
        return [f"[turn {i}] {w}" if by_turn else w for i, w in self.noted]

    async def send(self, turn: Turn) -> TurnResult:
        index = len(self.turns)
        if self.lost is not None:
            self.turns.append(skipped_turn(index, turn, self.lost))
            return self.turns[-1]
        reply, errors, partial, latency_ms = await self._ask(turn, index)
        noted = reply or partial
        if noted is not None and noted.warnings:
            self.noted += tuple((index, warning) for warning in noted.warnings)
        case, exchanges, settings = self.case, self.exchanges, self.settings
        fields = await _turn_fields(
            case, index, turn, reply, errors, partial, latency_ms, exchanges, settings
        )
        result = TurnResult(**fields)
        self.turns.append(result)
        self._remember(turn, reply, latency_ms)
        return result

    async def send_only(self, turn: Turn, started: str, repeat_index: int) -> TestResult:
        """A single-turn test's one turn, straight into its TestResult (the contract's
        single-turn result is its turn's fields at case level): no TurnResult is built,
        and nothing is kept for later turns but what test-scoped metrics read."""
        reply, errors, partial, latency_ms = await self._ask(turn, 0)
        case = self.case
        if case.test_metrics:
            self._remember(turn, reply, latency_ms)
        if (
            reply is not None
            and turn.expected_tools is None
            and not turn.attachments
            and not reply.warnings
        ):
            # the usual turn: answered (so no errors), nothing asserted on its tools, no
            # files, no warnings
            results, not_run = await score_turn(case, 0, turn, reply, (), latency_ms, self.settings)
            if not not_run:
                made = sent_single_turn(
                    case.name,
                    turn.input,
                    turn.ground_truth,
                    reply,
                    results,
                    round(latency_ms),
                    started,
                    repeat_index,
                    case.tags,
                )
                if made is not None:
                    return made
            fields = _sent_fields(0, turn, reply, errors, latency_ms, results, not_run)
        else:
            fields = await _turn_fields(
                case, 0, turn, reply, errors, partial, latency_ms, (), self.settings
            )
        noted = reply or partial
        warnings = list(noted.warnings) if noted is not None else []
        return _single_turn_test(case, fields, started, repeat_index, warnings)

    async def _ask(
        self, turn: Turn, index: int
    ) -> tuple[Reply | None, list[str], Reply | None, float]:
        """Send one turn: the reply (None when the turn failed), the turn's errors, what a
        failed turn did before it failed, and the latency."""
        # by position, in field order (tests/runner/test_turn_request_order.py): a class
        # called with keywords has them packed into a dict its __init__ unpacks again
        request = TurnRequest(
            turn.input,
            self.session_id,
            turn.turn_id or str(index + 1),
            index,
            tuple(self.messages),
            turn.attachments,
        )
        errors: list[str] = []
        reply: Reply | None = None
        partial: Reply | None = None  # what a failed turn did before it failed
        timeout_s = self.settings.turn_timeout_s
        t0 = time.perf_counter()
        try:
            with turn_deadline(timeout_s):  # entered and left without waiting: no coroutines
                reply = await self.session.send(request)
        except SessionLost as exc:
            errors.append(f"session lost: {exc}")
            self.lost = f"the agent lost the session at turn {index}"
        # a timeout and a Python agent's exception in HoloDeck's words: its single-turn
        # ("legacy") executor's in a single-turn test, its turn's in a conversation
        except TimeoutError:  # execution_time_ms says how long
            if self.case.type == "single_turn":
                errors.append(f"Agent invocation timeout after {timeout_s:g}s")
            else:
                errors.append("timeout")
        except AgentRaised as exc:
            if self.case.type == "single_turn":
                errors.append(f"Agent invocation error: {exc.message}")
            else:
                errors.append(str(exc))  # `Type: message`
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
        return reply, errors, partial, latency_ms

    def _remember(self, turn: Turn, reply: Reply | None, latency_ms: float) -> None:
        """The turn as the next turn (its history) and the metrics (its exchange) see it."""
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

    def close(self) -> Awaitable[None]:
        """The session's ``close``, for the caller to await: no coroutine of this one's."""
        return self.session.close()


async def run_case(
    case: TestCase, target: Target, settings: CaseSettings, repeat_index: int = 0
) -> TestResult:
    """Run a single-turn or scripted multi-turn case (goal cases: see ``assay.simulation``)."""
    started = now_iso()
    conversation = AgentConversation(case, target, settings)
    single = case.type == "single_turn" and len(case.turns) == 1
    try:
        if single:
            result = await conversation.send_only(case.turns[0], started, repeat_index)
        else:
            for turn in case.turns:
                await conversation.send(turn)
    finally:
        await conversation.close()
    if not single:
        turns = conversation.turns
        extra: dict[str, Any] = {"repeat_index": repeat_index, "tags": list(case.tags)}
        by_turn = case.type != "single_turn"
        if conversation.noted:
            extra["warnings"] = conversation.warnings(by_turn)
        if by_turn:
            result = rollup_multi_turn(case.name, turns, started, **extra)
        else:
            result = single_turn_result(case.name, turns[0], started, **extra)
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


async def _turn_fields(
    case: TestCase,
    index: int,
    turn: Turn,
    reply: Reply | None,
    errors: list[str],
    partial: Reply | None,
    latency_ms: float,
    history: Sequence[Exchange],
    settings: CaseSettings,
) -> dict[str, Any]:
    """A sent turn's TurnResult fields, scored by its metrics, ``passed`` decided."""
    fields = _first_fields(index, turn, errors, latency_ms)
    if reply is None:
        fields["passed"] = False
        fields["metrics_not_run"] = {m.label: "the turn failed" for m in turn.metrics}
        calls = partial.tool_invocations if partial is not None else []
        if partial is not None:  # a failed turn still records the calls made, tokens spent
            fields["tool_calls"] = [c.name for c in calls]
            fields["tool_invocations"] = calls
            fields["token_usage"] = partial.token_usage
        if turn.expected_tools is not None:
            # its tools are still checked, against the calls it made (none, usually), as
            # HoloDeck's executor checks them: tools_matched false, and the reasons
            _tool_fields(fields, check_expected_tools(turn.expected_tools, calls))
        return fields
    metric_results, not_run = await score_turn(
        case, index, turn, reply, tuple(history), latency_ms, settings
    )
    return _sent_fields(index, turn, reply, errors, latency_ms, metric_results, not_run, fields)


def _sent_fields(
    index: int,
    turn: Turn,
    reply: Reply,
    errors: list[str],
    latency_ms: float,
    metric_results: list[MetricResult],
    not_run: dict[str, str],
    fields: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """An answered turn's TurnResult fields, its metrics scored (``metric_results``,
    ``not_run``), ``passed`` decided; ``fields``: those ``_turn_fields`` began."""
    if fields is None:
        fields = _first_fields(index, turn, errors, latency_ms)
    check = check_expected_tools(turn.expected_tools, reply.tool_invocations)
    ttft = reply.time_to_first_token_ms
    fields["passed"] = checks_passed(errors, check.tools_matched, metric_results)
    fields["response"] = reply.text
    fields["tool_calls"] = [c.name for c in reply.tool_invocations]
    fields["tool_invocations"] = reply.tool_invocations
    _tool_fields(fields, check)
    fields["metric_results"] = metric_results
    fields["metrics_not_run"] = not_run
    fields["token_usage"] = reply.token_usage
    fields["time_to_first_token_ms"] = None if ttft is None else round(ttft)
    return fields


def _tool_fields(fields: dict[str, Any], check: ToolCheck) -> None:
    mismatches = check.mismatches
    fields["tools_matched"] = check.tools_matched
    fields["arg_match_details"] = check.arg_match_details
    fields["tool_mismatches"] = mismatches
    if mismatches:
        # HoloDeck's executor writes each reason into the turn's errors too, after the
        # turn's own; they do not make its status "error" (``errors_that_broke``)
        fields["errors"] = [*fields["errors"], *mismatches]


def _first_fields(index: int, turn: Turn, errors: list[str], latency_ms: float) -> dict[str, Any]:
    """A sent turn's TurnResult fields that do not depend on its reply."""
    return {
        "turn_index": index,
        "input": turn.input,
        "ground_truth": turn.ground_truth,
        "expected_tools": expected_tools_json(turn),
        "execution_time_ms": round(latency_ms),
        "errors": errors,
        "processed_files": [ProcessedFile(**a.record()) for a in turn.attachments]
        if turn.attachments
        else [],
    }


def _single_turn_test(
    case: TestCase, fields: dict[str, Any], started: str, repeat_index: int, warnings: list[str]
) -> TestResult:
    """``single_turn_result`` of the TurnResult ``fields`` make, validated once instead of
    twice. Fields that do not validate take the two steps, which raise what they raised."""
    extra: dict[str, Any] = {"repeat_index": repeat_index, "tags": list(case.tags)}
    if warnings:
        extra["warnings"] = warnings
    try:
        return single_turn_of_fields(case.name, fields, started, **extra)
    except ValidationError:
        return single_turn_result(case.name, TurnResult(**fields), started, **extra)
