"""Roll-up rules: turn results into a test result (contract §4) and test results into a
summary (contract §5)."""

from __future__ import annotations

from collections.abc import Iterable
from statistics import fmean
from typing import Any, Literal

from assay.results.models import (
    MetricResult,
    NotRun,
    RepeatStats,
    ReportSummary,
    TestResult,
    TokenUsage,
    TurnResult,
)

TURN_SEPARATOR = "\n---\n"


def turn_passed(turn: TurnResult) -> bool:
    """The pass rule of contract §3."""
    return (
        not turn.errors
        and not turn.skipped
        and turn.tools_matched is not False
        and all(m.passed is not False for m in turn.metric_results)
    )


def status_of(passed: bool, errors: list[str]) -> Literal["passed", "failed", "error"]:
    if passed:
        return "passed"
    return "error" if errors else "failed"


def rollup_metrics(turns: Iterable[TurnResult]) -> list[MetricResult]:
    """One MetricResult per metric name: mean score over the turns that ran it; passed only
    if no turn failed it. A metric that no turn ran is omitted."""
    by_name: dict[str, list[MetricResult]] = {}
    for turn in turns:
        for result in turn.metric_results:
            by_name.setdefault(result.metric_name, []).append(result)
    rolled = []
    for name, results in by_name.items():
        scores = [r.score for r in results if r.score is not None]
        errors = [r.error for r in results if r.error]
        first = results[0]
        rolled.append(
            MetricResult(
                metric_name=name,
                kind=first.kind,
                dimension=first.dimension,
                score=fmean(scores) if scores else None,
                threshold=first.threshold,
                passed=all(r.passed is not False for r in results),
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
    union: list[str | dict[str, Any]] = []
    for turn in turns:
        for tool in turn.expected_tools or []:
            if tool not in union:
                union.append(tool)
    return union or None


def rollup_multi_turn(
    name: str, turns: list[TurnResult], timestamp: str, **extra: Any
) -> TestResult:
    """A multi-turn TestResult whose case-level fields follow contract §4 row by row."""
    if not turns:
        raise ValueError("a multi-turn result needs at least one turn")
    asserted = [t.tools_matched for t in turns if t.tools_matched is not None]
    return TestResult(
        test_name=name,
        test_type=extra.pop("test_type", "multi_turn"),
        test_input=TURN_SEPARATOR.join(t.input for t in turns),
        agent_response=turns[-1].response,
        tool_calls=[c for t in turns for c in t.tool_calls],
        tool_invocations=[inv for t in turns for inv in t.tool_invocations],
        expected_tools=_union_expected_tools(turns),
        tools_matched=all(asserted) if asserted else None,
        ground_truth=None,
        metric_results=rollup_metrics(turns),
        passed=all(t.passed for t in turns),
        status=status_of(all(t.passed for t in turns), [e for t in turns for e in t.errors]),
        execution_time_ms=sum(t.execution_time_ms for t in turns),
        token_usage=_sum_usage(turns),
        errors=[f"[turn {i}] {msg}" for i, t in enumerate(turns) for msg in t.errors],
        timestamp=timestamp,
        turns=turns,
        **extra,
    )


def single_turn_result(name: str, turn: TurnResult, timestamp: str, **extra: Any) -> TestResult:
    """A single-turn TestResult: the turn's fields at case level, no ``turns`` list."""
    return TestResult(
        test_name=name,
        test_type="single_turn",
        test_input=turn.input,
        agent_response=turn.response,
        tool_calls=turn.tool_calls,
        tool_invocations=turn.tool_invocations,
        expected_tools=turn.expected_tools,
        tools_matched=turn.tools_matched,
        arg_match_details=turn.arg_match_details,
        ground_truth=turn.ground_truth,
        metric_results=turn.metric_results,
        metrics_not_run=turn.metrics_not_run,
        passed=turn.passed,
        status=status_of(turn.passed, turn.errors),
        execution_time_ms=turn.execution_time_ms,
        time_to_first_token_ms=turn.time_to_first_token_ms,
        token_usage=turn.token_usage,
        errors=turn.errors,
        timestamp=timestamp,
        **extra,
    )


class SummaryBuilder:
    """Accumulates a ReportSummary one result at a time, so a run never holds every result."""

    def __init__(self, repeat: int = 1) -> None:
        self.summary = ReportSummary(repeat=repeat)
        self._runs: dict[str, list[int]] = {}  # test name -> [runs, passed], with --repeat
        self._score_sums: dict[str, float] = {}
        self._score_counts: dict[str, int] = {}
        self._dim_sums: dict[str, float] = {}
        self._dim_counts: dict[str, int] = {}

    def add(self, result: TestResult) -> None:
        s = self.summary
        s.total_tests += 1
        if result.passed:
            s.passed += 1
        else:
            s.failed += 1
        if result.status == "error":
            s.errored += 1
        elif result.status == "not_run":
            s.not_run += 1
        s.total_turns += len(result.turns) if result.turns else 1
        s.execution_time_ms += result.execution_time_ms
        if result.token_usage is not None:
            s.token_usage = s.token_usage + result.token_usage
        if s.repeat > 1:
            counts = self._runs.setdefault(result.test_name, [0, 0])
            counts[0] += 1
            counts[1] += int(result.passed)
        not_run = dict(result.metrics_not_run)
        for turn in result.turns or ():
            for name, reason in turn.metrics_not_run.items():
                not_run.setdefault(name, reason)
        for metric in result.metric_results:  # ran on some turn: it counts as evaluated
            not_run.pop(metric.metric_name, None)
        for name, reason in not_run.items():
            entry = s.metrics_not_run.get(name)
            if entry is None:
                s.metrics_not_run[name] = NotRun(tests=1, reason=reason)
            else:
                entry.tests += 1
        for metric in result.metric_results:
            name = metric.metric_name
            s.metrics_evaluated[name] = s.metrics_evaluated.get(name, 0) + 1
            if metric.score is not None:
                self._score_sums[name] = self._score_sums.get(name, 0.0) + metric.score
                self._score_counts[name] = self._score_counts.get(name, 0) + 1
                if metric.dimension:
                    dim = metric.dimension
                    self._dim_sums[dim] = self._dim_sums.get(dim, 0.0) + metric.score
                    self._dim_counts[dim] = self._dim_counts.get(dim, 0) + 1

    def build(self) -> ReportSummary:
        s = self.summary.model_copy(deep=True)
        s.pass_rate = s.passed / s.total_tests if s.total_tests else None
        s.average_scores = {
            name: self._score_sums[name] / count for name, count in self._score_counts.items()
        }
        s.dimensions = {
            dim: {"mean": self._dim_sums[dim] / count, "count": count}
            for dim, count in self._dim_counts.items()
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
