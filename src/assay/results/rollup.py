"""Roll-up rules: turn results into a test result (contract §4) and test results into a
summary (contract §5).

A test passes only when something checked it. The contract's pass rules decide every test
on which a check ran; a test that would pass although nothing was checked (no metric gave
a verdict, no tool assertion was evaluated) is ``not_run``, never ``passed``: a green
result that tested nothing is the worst thing a testing tool can report.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from statistics import fmean
from typing import Any, Literal, NamedTuple

from assay._words import counted
from assay.results.models import (
    MetricResult,
    NotRun,
    ProcessedFile,
    RepeatStats,
    ReportSummary,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
    pass_percent,
    prevalidated,
)

TURN_SEPARATOR = "\n---\n"
_VERDICT = ("passed", "status")
_NOTHING_TO_CHECK = "not run: nothing to check: "  # how every such reason begins
NOTHING_CHECKED = _NOTHING_TO_CHECK + "no expected answer, tools or metric ran"
_NO_TOOLS = "the expected tools are [], which asserts nothing"  # HoloDeck's rule: they hold


def turn_passed(turn: TurnResult) -> bool:
    """The pass rule of contract §3."""
    return not turn.skipped and checks_passed(turn.errors, turn.tools_matched, turn.metric_results)


def checks_passed(
    errors: list[str], tools_matched: bool | None, metric_results: list[MetricResult]
) -> bool:
    """The pass rule of contract §3 for a turn that was sent (not skipped)."""
    if errors or tools_matched is False:
        return False
    for m in metric_results:  # noqa: SIM110 (a loop: no generator made per turn)
        if m.passed is False:
            return False
    return True


def status_of(passed: bool, errors: list[str]) -> Literal["passed", "failed", "error"]:
    """``errors``: those that broke something (``errors_that_broke``), not every error."""
    if passed:
        return "passed"
    return "error" if errors else "failed"


def errors_that_broke(errors: list[str], mismatches: Collection[str]) -> list[str]:
    """The errors that say something broke (the agent, a timeout, the session, a grader),
    without the tool-mismatch reasons (``mismatches``: the turn's ``tool_mismatches``) that
    ``errors`` repeat after them, as HoloDeck's executor writes them. Only these make a
    status ``error``: a wrong tool call is ``failed``; and a reporter showing errors beside
    the mismatches shows these, so no reason is shown twice. A result stored before the
    reasons were added to ``errors`` has none to leave out. Read-only: it may be ``errors``."""
    if not errors or not mismatches:
        return errors
    return [error for error in errors if error not in mismatches]


def result_errors_that_broke(result: TestResult) -> list[str]:
    """``errors_that_broke`` of a test's ``errors``: a multi-turn test's hold each turn's
    as ``[turn i] message`` (contract §4), its turns' mismatches among them."""
    errors, turns = result.errors, result.turns
    if not errors or not turns:
        return errors_that_broke(errors, result.tool_mismatches)
    mismatches = {f"[turn {i}] {m}" for i, t in enumerate(turns) for m in t.tool_mismatches}
    return errors_that_broke(errors, mismatches)


def checked(result: TestResult) -> bool:
    """Whether anything on the test could have failed it: a metric that ran and gave a
    verdict (an expected answer is compared by a metric such as ``equality``), or a tool
    assertion that was evaluated, on any turn or over the whole test."""
    for m in result.metric_results:
        if m.passed is not None and m.error is None:
            return True
    turns = result.turns or ()
    for turn in turns:
        for m in turn.metric_results:
            if m.passed is not None and m.error is None:
                return True
    if turns:  # the test's own tools_matched is its turns'
        return any(_tools_checked(t.tools_matched, t.expected_tools) for t in turns)
    return _tools_checked(result.tools_matched, result.expected_tools)


def _tools_checked(tools_matched: bool | None, expected_tools: list[Any] | None) -> bool:
    """Whether a tool assertion was evaluated. An empty ``expected_tools`` holds
    (``tools_matched`` true, HoloDeck's rule) but asserts nothing: it checks nothing."""
    return tools_matched is not None and expected_tools != []


def metrics_not_run(result: TestResult) -> dict[str, str]:
    """Each metric that ran on no turn of the test, with the first reason given."""
    not_run = dict(result.metrics_not_run)
    for turn in result.turns or ():
        for name, reason in turn.metrics_not_run.items():
            not_run.setdefault(name, reason)
    for metric in result.metric_results:  # ran on some turn: it counts as evaluated
        not_run.pop(metric.metric_name, None)
    return not_run


def nothing_checked(result: TestResult) -> bool:
    """Whether the test ran but was not run because nothing on it was checked (a test that
    never ran, such as a goal test without a simulator, is not run for another reason)."""
    return (
        result.status == "not_run"
        and bool(result.errors)
        and result.errors[0].startswith(_NOTHING_TO_CHECK)
    )


def _nothing_checked_reason(result: TestResult) -> str:
    """Why nothing was checked, as it is for this test (``NOTHING_CHECKED`` when it has no
    expected answer, tools or metric), and why each configured metric did not run."""
    turns = result.turns or ()
    answered = result.ground_truth is not None or any(t.ground_truth is not None for t in turns)
    no_tools = result.expected_tools == [] or any(t.expected_tools == [] for t in turns)
    not_run = metrics_not_run(result)
    asked = bool(not_run or result.metric_results) or any(t.metric_results for t in turns)
    if answered and not asked:  # no metric listed where the answer is: `metrics: []`
        why = "`metrics: []` asks for no metric, so the expected answer is compared by none"
    elif answered:
        why = "no metric gave a verdict on the expected answer"
    elif no_tools:
        why = "no expected answer, no metric ran"
    else:
        why = NOTHING_CHECKED.removeprefix(_NOTHING_TO_CHECK)
    if no_tools:
        why += ", and " + _NO_TOOLS
    if not_run:
        why += " (" + "; ".join(f"{k}: {v}" for k, v in not_run.items()) + ")"
    return _NOTHING_TO_CHECK + why


def settle(result: TestResult) -> TestResult:
    """Decide ``passed`` and ``status`` from everything on the result, in place: the
    contract's rules (§3 for a single turn's fields, §4 ``all(turn.passed)`` for a
    multi-turn test; a goal test by its ``passed`` as its judge gave it, and its metrics),
    with test-scoped metrics counted like any other; then a test that would pass although
    nothing was checked becomes ``not_run`` with the reason.

    Idempotent: call it again after adding test-scoped metrics to the result."""
    was_not_run = result.status == "not_run"
    # a not_run result's only error is its reason (it had no others, or it would not be
    # not_run), so it does not count as an error of the agent
    errors = [] if was_not_run else result.errors
    turns, goal = result.turns, result.test_type == "goal"
    if turns and not goal:
        passed = all(t.passed for t in turns)
    else:  # a single turn's verdict, as given (a not_run result's was a pass), and §3
        passed = (was_not_run or result.passed) and not errors
        passed = passed and result.tools_matched is not False
    if goal:
        # A goal test's verdict is its judge's (``Goal Achievement``, among its metrics):
        # an agent error on a turn is shown to the judge, not a verdict of its own. Checks
        # written on its scripted opening turns still count.
        opening = [m for t in turns or () for m in t.metric_results]
        passed = passed and all(m.passed is not False for m in opening)
    if passed:
        for m in result.metric_results:
            if m.passed is False:
                passed = False
                break
    if passed and not checked(result):
        result.passed, result.status = False, "not_run"
        if not was_not_run or not result.errors or nothing_checked(result):
            result.errors = [_nothing_checked_reason(result)]  # else keep the reason given
        return result
    if was_not_run:
        result.errors = []
    status = status_of(passed, result_errors_that_broke(result))  # a wrong tool: failed
    # set as the model's __setattr__ sets them (it has no validate_assignment), for less
    fields = result.__dict__
    fields["passed"], fields["status"] = passed, status
    result.__pydantic_fields_set__.update(_VERDICT)
    return result


def merged_score(scores: Iterable[float | None]) -> float | None:
    """The score of a metric name run more than once in a test (on several turns, or twice
    on one): the mean of the scores it has, None when none has one."""
    present = [score for score in scores if score is not None]
    return fmean(present) if present else None


def merged_verdict(verdicts: Iterable[bool | None]) -> bool | None:
    """The verdict of a metric name run more than once in a test (contract §4: ``all`` of
    the turns' verdicts): false if any run failed it, true if some run passed it and none
    failed it, None when no run gave a verdict (a metric that errored on every turn is not
    passed, as it is not on a single turn)."""
    merged = None
    for verdict in verdicts:
        if verdict is False:
            return False
        if verdict is True:
            merged = True
    return merged


def rollup_metrics(turns: Iterable[TurnResult]) -> list[MetricResult]:
    """One MetricResult per metric name: mean score over the turns that ran it; passed
    false if a turn failed it, null if no turn gave it a verdict, else true. A metric that
    no turn ran is omitted."""
    by_name: dict[str, list[MetricResult]] = {}
    for turn in turns:
        for result in turn.metric_results:
            by_name.setdefault(result.metric_name, []).append(result)
    rolled = []
    for name, results in by_name.items():
        errors = [r.error for r in results if r.error]
        first = results[0]
        rolled.append(
            MetricResult(
                metric_name=name,
                kind=first.kind,
                dimension=first.dimension,
                score=merged_score([r.score for r in results]),
                threshold=first.threshold,
                passed=merged_verdict(r.passed for r in results),
                error="; ".join(errors) if errors else None,
                retry_count=sum(r.retry_count for r in results),
                evaluation_time_ms=sum(r.evaluation_time_ms for r in results),
                model_used=first.model_used,
                reasoning=None,
                details={"turns_evaluated": len(results)},
            )
        )
    return rolled


def _sum_usage(turns: list[TurnResult]) -> TokenUsage | None:
    usages = [t.token_usage for t in turns if t.token_usage is not None]
    if not usages:
        return None
    total = TokenUsage()
    for usage in usages:
        total = total + usage
    return total


def _union_expected_tools(turns: list[TurnResult]) -> list[str | dict[str, Any]] | None:
    """The union of the turns' assertions; null only when no turn asserted tools (a turn's
    ``[]`` is an assertion, so the union is ``[]``, as ``tools_matched`` beside it says)."""
    if all(turn.expected_tools is None for turn in turns):
        return None
    union: list[str | dict[str, Any]] = []
    for turn in turns:
        for tool in turn.expected_tools or []:
            if tool not in union:
                union.append(tool)
    return union


def rolled_tools_matched(turns: Iterable[TurnResult]) -> bool | None:
    """A test's ``tools_matched`` from its turns' (contract §4): null if no turn asserted
    tools (none evaluated an assertion or expected tools), else whether none is false. A
    skipped turn that expected tools asserted them (its own ``tools_matched`` is null: it
    was never evaluated, as HoloDeck's executor leaves it), so the test's is not null."""
    asserted = False
    for turn in turns:
        matched = turn.tools_matched
        if matched is False:
            return False
        asserted = asserted or matched is not None or turn.expected_tools is not None
    return True if asserted else None


def rollup_multi_turn(
    name: str, turns: list[TurnResult], timestamp: str, **extra: Any
) -> TestResult:
    """A multi-turn TestResult whose case-level fields follow contract §4 row by row."""
    if not turns:
        raise ValueError("a multi-turn result needs at least one turn")
    result = TestResult(
        test_name=name,
        test_type=extra.pop("test_type", "multi_turn"),
        test_input=TURN_SEPARATOR.join(t.input for t in turns),
        agent_response=turns[-1].response,
        processed_files=[f for t in turns for f in t.processed_files],
        tool_calls=[c for t in turns for c in t.tool_calls],
        tool_invocations=[inv for t in turns for inv in t.tool_invocations],
        expected_tools=_union_expected_tools(turns),
        tools_matched=rolled_tools_matched(turns),
        ground_truth=None,
        metric_results=rollup_metrics(turns),
        passed=all(t.passed for t in turns),
        execution_time_ms=sum(t.execution_time_ms for t in turns),
        token_usage=_sum_usage(turns),
        errors=[f"[turn {i}] {msg}" for i, t in enumerate(turns) for msg in t.errors],
        timestamp=timestamp,
        turns=turns,
        **extra,
    )
    return settle(result)


def single_turn_result(name: str, turn: TurnResult, timestamp: str, **extra: Any) -> TestResult:
    """A single-turn TestResult: the turn's fields at case level, no ``turns`` list."""
    return single_turn_of_fields(name, turn.__dict__, timestamp, **extra)


def single_turn_of_fields(
    name: str, turn: Mapping[str, Any], timestamp: str, **extra: Any
) -> TestResult:
    """``single_turn_result`` of the TurnResult that ``turn``'s fields (absent ones: their
    defaults) would make, without making it: the result is validated once, or not at all
    when every value is already of its field's exact type (``_exact_single_turn``)."""
    result = _exact_single_turn(name, turn, timestamp, extra)
    if result is not None:
        return settle(result)
    get = turn.get
    result = TestResult(
        test_name=name,
        test_type="single_turn",
        test_input=turn["input"],
        agent_response=get("response"),
        processed_files=get("processed_files", []),
        tool_calls=get("tool_calls", []),
        tool_invocations=get("tool_invocations", []),
        expected_tools=get("expected_tools"),
        tools_matched=get("tools_matched"),
        arg_match_details=get("arg_match_details"),
        tool_mismatches=get("tool_mismatches", []),
        ground_truth=get("ground_truth"),
        metric_results=get("metric_results", []),
        metrics_not_run=get("metrics_not_run", {}),
        passed=turn["passed"],
        execution_time_ms=turn["execution_time_ms"],
        time_to_first_token_ms=get("time_to_first_token_ms"),
        token_usage=get("token_usage"),
        errors=list(get("errors", [])),
        timestamp=timestamp,
        **extra,
    )
    return settle(result)


_SINGLE_TURN_GIVEN = frozenset(
    (
        "test_name",
        "test_type",
        "test_input",
        "agent_response",
        "processed_files",
        "tool_calls",
        "tool_invocations",
        "expected_tools",
        "tools_matched",
        "arg_match_details",
        "tool_mismatches",
        "ground_truth",
        "metric_results",
        "metrics_not_run",
        "passed",
        "execution_time_ms",
        "time_to_first_token_ms",
        "token_usage",
        "errors",
        "timestamp",
    )
)


def all_exactly(items: Any, kind: type) -> bool:
    """``items`` is a list of exactly ``kind``s."""
    if type(items) is not list:
        return False
    for item in items:  # noqa: SIM110 (a loop: no generator made per call)
        if type(item) is not kind:
            return False
    return True


def _exact_single_turn(
    name: str, turn: Mapping[str, Any], timestamp: str, extra: dict[str, Any]
) -> TestResult | None:
    """The TestResult ``single_turn_of_fields`` validates, made without validating when
    every value is already of exactly its field's type (a sent turn's usual fields, with
    ``repeat_index`` and ``tags`` the only extras), else None. Lists are copied, as
    validation copies them."""
    get = turn.get
    response, ground_truth, matched = get("response"), get("ground_truth"), get("tools_matched")
    ttft, usage, not_run = (
        get("time_to_first_token_ms"),
        get("token_usage"),
        get("metrics_not_run", {}),
    )
    files, calls = get("processed_files", []), get("tool_calls", [])
    invocations, metrics = get("tool_invocations", []), get("metric_results", [])
    errors, test_input, passed = get("errors", []), turn["input"], turn["passed"]
    mismatches = get("tool_mismatches", [])
    elapsed, repeat_index, tags = (
        turn["execution_time_ms"],
        extra.get("repeat_index", 0),
        extra.get("tags", []),
    )
    if not (
        len(extra) <= 2
        and type(name) is str
        and type(test_input) is str
        and type(timestamp) is str
        and type(passed) is bool
        and type(elapsed) is int
        and type(repeat_index) is int
        and (response is None or type(response) is str)
        and (ground_truth is None or type(ground_truth) is str)
        and (matched is None or type(matched) is bool)
        and (ttft is None or type(ttft) is int)
        and (usage is None or type(usage) is TokenUsage)
        and get("expected_tools") is None
        and get("arg_match_details") is None
        and type(not_run) is dict
        and not not_run
        and all_exactly(files, ProcessedFile)
        and all_exactly(calls, str)
        and all_exactly(invocations, ToolInvocation)
        and all_exactly(metrics, MetricResult)
        and all_exactly(errors, str)
        and all_exactly(mismatches, str)
        and all_exactly(tags, str)
        and all(key in ("repeat_index", "tags") for key in extra)
    ):
        return None
    values: dict[str, Any] = {
        "test_name": name,
        "test_type": "single_turn",
        "test_input": test_input,
        "agent_response": response,
        "processed_files": list(files),
        "tool_calls": list(calls),
        "tool_invocations": list(invocations),
        "expected_tools": None,
        "tools_matched": matched,
        "arg_match_details": None,
        "tool_mismatches": list(mismatches),
        "ground_truth": ground_truth,
        "metric_results": list(metrics),
        "metrics_not_run": {},
        "passed": passed,
        "status": "passed",
        "execution_time_ms": elapsed,
        "time_to_first_token_ms": ttft,
        "token_usage": usage,
        "errors": list(errors),
        "warnings": [],
        "timestamp": timestamp,
        "turns": None,
        "trace": None,
        "repeat_index": repeat_index,
        "tags": list(tags),
    }
    return prevalidated(TestResult, values, {*_SINGLE_TURN_GIVEN, *extra})


_SENT_GIVEN = frozenset((*_SINGLE_TURN_GIVEN, "repeat_index", "tags", "status"))
# every TestResult field in order; those a sent single-turn result always has, set
_SENT_VALUES: dict[str, Any] = {
    **dict.fromkeys(TestResult.model_fields),
    "test_type": "single_turn",
}


def sent_single_turn(
    name: str,
    test_input: str,
    ground_truth: str | None,
    reply: Any,
    metric_results: list[MetricResult],
    execution_time_ms: int,
    timestamp: str,
    repeat_index: int,
    tags: Iterable[str],
) -> TestResult | None:
    """A sent single-turn test's TestResult made in one step, settled, from what its turn
    already has: what ``single_turn_of_fields`` gives for the fields of a turn that was
    answered (``reply``, an ``assay.targets.base.Reply``) without errors, asserted no tools,
    attached no files and ran every metric (``metric_results``, a fresh list it keeps). None
    when a value is not exactly of its field's type (the caller then takes that path)."""
    text, usage, ttft = reply.text, reply.token_usage, reply.time_to_first_token_ms
    invocations = reply.tool_invocations
    if ttft is not None:
        ttft = round(ttft)
    if not (
        type(name) is str
        and type(test_input) is str
        and type(timestamp) is str
        and type(repeat_index) is int
        and (text is None or type(text) is str)
        and (ground_truth is None or type(ground_truth) is str)
        and (ttft is None or type(ttft) is int)
        and (usage is None or type(usage) is TokenUsage)
        and type(invocations) is list
    ):
        return None
    calls = []
    for call in invocations:
        if type(call) is not ToolInvocation:
            return None
        tool = call.name
        if type(tool) is not str:  # (a model_construct's)
            return None
        calls.append(tool)
    for tag in tags:
        if type(tag) is not str:
            return None
    # the pass rule (contract §3) and "was anything checked?" in one pass over the metrics
    passed, checked = True, False
    for m in metric_results:
        if type(m) is not MetricResult:
            return None
        verdict = m.passed
        if verdict is False:
            passed = False
        if verdict is not None and m.error is None:
            checked = True
    # a copy of every field in order, then the values set: a 25-item dict display is
    # built as 16 items, then the rest merged in (and the table grown) in 3.11
    values = _SENT_VALUES.copy()
    values["test_name"] = name
    values["test_input"] = test_input
    values["agent_response"] = text
    values["processed_files"] = []
    values["tool_calls"] = calls
    values["tool_invocations"] = list(invocations)
    values["tool_mismatches"] = []
    values["ground_truth"] = ground_truth
    values["metric_results"] = metric_results
    values["metrics_not_run"] = {}
    values["passed"] = passed
    values["status"] = "passed" if passed else "failed"  # no errors: not "error"
    values["execution_time_ms"] = execution_time_ms
    values["time_to_first_token_ms"] = ttft
    values["token_usage"] = usage
    values["errors"] = []
    values["warnings"] = []
    values["timestamp"] = timestamp
    values["repeat_index"] = repeat_index
    values["tags"] = list(tags)
    result = prevalidated(TestResult, values, set(_SENT_GIVEN))
    if passed and not checked:  # nothing was checked: settle says not_run, and why
        return settle(result)
    return result


@dataclass(frozen=True)
class StatusCounts:
    """How many tests ended in each status; the four are disjoint and add up to the total.

    Every output counts tests with this one helper, so they agree. The JSON summary keeps
    the contract's ``passed + failed == total_tests``: its ``failed`` is every test that did
    not pass, of which ``errored`` errored and ``not_run`` were not run; ``failed`` here is
    the rest, the tests on which a check failed."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_run: int = 0

    @classmethod
    def of(cls, summary: ReportSummary) -> StatusCounts:
        return cls(
            passed=summary.passed,
            failed=summary.failed - summary.errored - summary.not_run,
            errored=summary.errored,
            not_run=summary.not_run,
        )

    @property
    def total(self) -> int:
        return self.passed + self.failed + self.errored + self.not_run

    def exit_code(self, strict: bool = False) -> int:
        """0 when no test failed or errored, else 1. A test on which nothing was checked
        (not run) fails the run only with ``strict``."""
        return int(bool(self.failed or self.errored or (strict and self.not_run)))

    def words(self) -> str:
        """``1 passed, 1 failed, 1 errored, 1 not run``."""
        return (
            f"{self.passed} passed, {self.failed} failed, "
            f"{self.errored} errored, {self.not_run} not run"
        )

    def line(self) -> str:
        """``4 tests: 1 passed, 1 failed, 1 errored, 1 not run``."""
        return f"{counted(self.total, 'test')}: {self.words()}"

    def add(self, status: str) -> StatusCounts:
        """These counts with one more test of ``status``."""
        return StatusCounts(
            passed=self.passed + (status == "passed"),
            failed=self.failed + (status == "failed"),
            errored=self.errored + (status == "error"),
            not_run=self.not_run + (status == "not_run"),
        )


_NO_METRICS_NOT_RUN: dict[str, str] = {}


class Tally(NamedTuple):
    """What the run's summary counts of one result (``SummaryBuilder.add_tally``): a tuple,
    cheap to take in a worker process and to send with the result's JSON."""

    test_name: str
    status: str
    passed: bool
    turns: int  # the turns it counts: its ``turns``, a single-turn test's one, or 0 (a goal
    # test that ran no turn: not run, without a judge)
    execution_time_ms: int
    tokens: tuple[int, int, int, int, int] | None  # TokenUsage's counters, in field order
    metrics: list[tuple[str, float | None, str | None]]  # name, score, dimension
    metrics_not_run: dict[str, str]  # as ``metrics_not_run`` gives them

    @classmethod
    def of(cls, result: TestResult) -> Tally:
        fields = result.__dict__  # the values as they are: no attribute hook per read
        turns, usage, not_run = fields["turns"], fields["token_usage"], fields["metrics_not_run"]
        return _new_tally(
            cls,
            (
                fields["test_name"],
                fields["status"],
                fields["passed"],
                len(turns) if turns else int(fields["test_type"] != "goal"),
                fields["execution_time_ms"],
                None if usage is None else _token_counts_of(usage.__dict__),
                [_metric_of(m.__dict__) for m in fields["metric_results"]],
                # else none to list
                metrics_not_run(result) if not_run or turns else _NO_METRICS_NOT_RUN,
            ),
        )


_new_tally = tuple.__new__  # Tally(*values) without the named tuple's Python __new__
# a model's values read from its __dict__ in one call each (no attribute hook per read)
_token_counts_of: Callable[[dict[str, Any]], tuple[int, int, int, int, int]] = itemgetter(
    "prompt_tokens",
    "completion_tokens",
    "total_tokens",
    "cache_creation_tokens",
    "cache_read_tokens",
)
_metric_of: Callable[[dict[str, Any]], tuple[str, float | None, str | None]] = itemgetter(
    "metric_name", "score", "dimension"
)


def _add_score(sums: dict[str, list[Any]], key: str, score: float) -> None:
    """One more ``score`` in ``sums[key]``, a running [sum, count]."""
    running = sums.get(key)
    if running is None:
        sums[key] = [score, 1]
    else:
        running[0] += score
        running[1] += 1


def _once_per_test(
    metrics: list[tuple[str, float | None, str | None]],
) -> list[tuple[str, float | None, str | None]]:
    """A test's metrics with each name once, as the summary counts them (the contract's
    §5: ``metrics_evaluated`` counts the tests a metric appears in, ``average_scores`` the
    mean of test scores): a single-turn test that ran two metrics of one name (two
    ``contains`` checks, say) scores the mean of their scores, as a multi-turn test's
    roll-up merges a name's scores; the first one's dimension."""
    if len({name for name, _, _ in metrics}) == len(metrics):
        return metrics
    merged: dict[str, tuple[list[float | None], str | None]] = {}
    for name, score, dimension in metrics:
        merged.setdefault(name, ([], dimension))[0].append(score)
    return [(name, merged_score(scores), dimension) for name, (scores, dimension) in merged.items()]


class SummaryBuilder:
    """Accumulates a ReportSummary one result at a time, so a run never holds every result.
    Per result it only counts (plain ints and dicts); the models are built in ``build``."""

    def __init__(self, repeat: int = 1) -> None:
        self.summary = ReportSummary(repeat=repeat)
        self._statuses = {"passed": 0, "failed": 0, "error": 0, "not_run": 0}
        self._tokens = [0, 0, 0, 0, 0]  # TokenUsage's five counters, in its field order
        self._turns = 0
        self._time_ms = 0
        self._runs: dict[str, list[int]] = {}  # test name -> [runs, passed], with --repeat
        self._repeat = repeat
        self._evaluated: dict[str, int] = {}  # metric name -> results
        self._scores: dict[str, list[Any]] = {}  # metric name -> [sum of scores, count]
        self._dims: dict[str, list[Any]] = {}  # dimension -> [sum of scores, count]

    @property
    def counts(self) -> StatusCounts:
        statuses = self._statuses
        return StatusCounts(
            passed=statuses["passed"],
            failed=statuses["failed"],
            errored=statuses["error"],
            not_run=statuses["not_run"],
        )

    def add(self, result: TestResult) -> None:
        """Count a result (by its tally: about 1 us more than reading the fields here, and
        one place that says what the summary counts)."""
        self.add_tally(Tally.of(result))

    def add_tally(self, tally: Tally) -> None:
        """Count a result by its tally (what a worker process sends with the result's JSON,
        so the run's process need not parse it back)."""
        test_name, status, passed, turns, execution_time_ms, tokens, metrics, not_run = tally
        self._statuses[status] += 1
        self._turns += turns
        self._time_ms += execution_time_ms
        if tokens is not None:
            counts = self._tokens
            prompt, completion, total, cache_creation, cache_read = tokens
            counts[0] += prompt
            counts[1] += completion
            counts[2] += total
            counts[3] += cache_creation
            counts[4] += cache_read
        if self._repeat > 1:
            runs = self._runs.setdefault(test_name, [0, 0])
            runs[0] += 1
            runs[1] += int(passed)
        if not_run:
            listed = self.summary.metrics_not_run
            for name, reason in not_run.items():
                entry = listed.get(name)
                if entry is None:
                    listed[name] = NotRun(tests=1, reason=reason)
                else:
                    entry.tests += 1
        if len(metrics) > 1:
            metrics = _once_per_test(metrics)
        evaluated = self._evaluated
        for name, score, dimension in metrics:
            evaluated[name] = evaluated.get(name, 0) + 1
            if score is not None:
                _add_score(self._scores, name, score)
                if dimension:
                    _add_score(self._dims, dimension, score)

    def build(self) -> ReportSummary:
        s = self.summary.model_copy(deep=True)
        s.token_usage = TokenUsage(**dict(zip(TokenUsage.model_fields, self._tokens, strict=True)))
        s.total_turns = self._turns
        s.execution_time_ms = s.total_duration_ms = self._time_ms
        counts = self.counts
        s.total_tests, s.passed = counts.total, counts.passed
        s.failed = counts.total - counts.passed  # every test that did not pass (contract §5)
        s.errored, s.not_run = counts.errored, counts.not_run
        s.pass_rate = pass_percent(s.passed, s.total_tests)
        for name, count in self._evaluated.items():
            s.metrics_evaluated[name] = s.metrics_evaluated.get(name, 0) + count
        s.average_scores = {name: total / count for name, (total, count) in self._scores.items()}
        s.dimensions = {
            dim: {"mean": total / count, "count": count}
            for dim, (total, count) in self._dims.items()
        }
        if self._runs:
            s.repeats = {
                name: RepeatStats(
                    runs=runs,
                    passed=passed,
                    pass_at_1=passed / runs,
                    pass_all=passed == runs,
                    flaky=0 < passed < runs,
                )
                for name, (runs, passed) in self._runs.items()
            }
            stats = s.repeats.values()
            s.pass_at_1 = fmean(r.pass_at_1 for r in stats)
            s.pass_all_k = fmean(1.0 if r.pass_all else 0.0 for r in stats)
            s.flaky_tests = [name for name, r in s.repeats.items() if r.flaky]
        return s


def summarize(results: Iterable[TestResult], repeat: int = 1) -> ReportSummary:
    builder = SummaryBuilder(repeat)
    for result in results:
        builder.add(result)
    return builder.build()
