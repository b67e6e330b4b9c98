"""What every human-readable reporter needs from a Report: the turns of a test (a single-turn
test read as one turn), the reasons a turn or test did not pass, and small formatters.

Markdown, JUnit and HTML render the same facts in the same words; this module decides them
once.
"""

from __future__ import annotations

import json
from typing import Any

from assay._words import counted
from assay.results.models import (
    MetricResult,
    ProcessedFile,
    Report,
    ReportSummary,
    TestResult,
    TurnResult,
)
from assay.results.rollup import StatusCounts, errors_that_broke, nothing_checked
from assay.results.trace import unmet_behaviour

STATUS_LABELS = {"passed": "passed", "failed": "failed", "error": "error", "not_run": "not run"}


def display_name(result: TestResult) -> str:
    """The test's name, with ``#k`` (1-based) for the second and later repeats."""
    return result.test_name + (f"#{result.repeat_index + 1}" if result.repeat_index else "")


def turns_of(result: TestResult) -> list[TurnResult]:
    """The turns to show for a test: its ``turns``, or for a single-turn test its case-level
    fields read as turn 0. A test that never ran, or a goal test (whose conversation is its
    trace), has none; one that ran with nothing to check has its turn, as it passed it."""
    if result.turns:
        return result.turns
    unchecked = nothing_checked(result)
    if (result.status == "not_run" and not unchecked) or result.test_type != "single_turn":
        return []
    return [
        TurnResult(
            turn_index=0,
            input=result.test_input,
            response=result.agent_response,
            ground_truth=result.ground_truth,
            expected_tools=result.expected_tools,
            tool_calls=result.tool_calls,
            tool_invocations=result.tool_invocations,
            tools_matched=result.tools_matched,
            arg_match_details=result.arg_match_details,
            tool_mismatches=result.tool_mismatches,
            metric_results=result.metric_results,
            metrics_not_run=result.metrics_not_run,
            processed_files=result.processed_files,
            passed=result.passed or unchecked,
            execution_time_ms=result.execution_time_ms,
            token_usage=result.token_usage,
            errors=[] if unchecked else result.errors,
        )
    ]


_HOW_READ = {
    "text": "text",
    "pdf": "PDF text",
    "xlsx": "Markdown tables",
    "image": "image",
    "binary": "bytes",
}


def file_line(file: ProcessedFile) -> str:
    """One attached file, as the reports list it: ``contract.pdf (application/pdf, 869 bytes;
    PDF text, 2 pages, 44 characters; sha256 3f2a9c1d…)``."""
    how = [_HOW_READ[file.read_as]]
    if file.pages is not None:
        how.append(f"{file.pages} page{'s' if file.pages != 1 else ''}")
    if file.sheets is not None:
        how.append(f"sheet{'s' if len(file.sheets) != 1 else ''} " + ", ".join(file.sheets))
    if file.text_chars is not None:
        how.append(f"{file.text_chars:,} characters")
    return (
        f"{file.path} ({file.mime_type}, {file.bytes:,} bytes; {', '.join(how)}; "
        f"sha256 {file.sha256[:12]}…)"
    )


def tool_mismatches(turn: TurnResult) -> list[str]:
    """Why each tool assertion on the turn failed: ``tool_mismatches`` and any
    ``arg_match_details[].unmatched_reason`` not already among them (a result written
    before single-turn results carried ``tool_mismatches`` has only the latter)."""
    reasons = list(turn.tool_mismatches)
    for detail in turn.arg_match_details or []:
        if detail.unmatched_reason and detail.unmatched_reason not in reasons:
            reasons.append(detail.unmatched_reason)
    if turn.tools_matched is False and not reasons:
        reasons.append("the tool calls did not satisfy expected_tools (no reason recorded)")
    return reasons


def failed_metrics(metrics: list[MetricResult]) -> list[MetricResult]:
    return [m for m in metrics if m.passed is False]


def metric_verdict(metric: MetricResult) -> str:
    """``correctness 0.40 (threshold 0.70): the answer gives no year``."""
    if metric.score is None:
        text = f"{metric.metric_name} not scored"
    else:
        text = f"{metric.metric_name} {fmt_score(metric.score)}"
        if metric.threshold is not None:
            text += f" (threshold {fmt_score(metric.threshold)})"
    why = metric.error or metric.reasoning
    return text + (f": {why}" if why else "")


def why_turn_failed(turn: TurnResult) -> list[str]:
    """Every reason the turn did not pass, errors first; empty for a passing turn."""
    # errors repeat the tool-mismatch reasons (as HoloDeck's do): each is shown once, below
    reasons = list(errors_that_broke(turn.errors, turn.tool_mismatches))
    if turn.skipped and not turn.errors:
        reasons.append("skipped: the session could not continue")
    reasons += tool_mismatches(turn)
    reasons += [metric_verdict(m) for m in failed_metrics(turn.metric_results)]
    return reasons


def test_scoped_failures(result: TestResult) -> list[MetricResult]:
    """Failed metrics scored once over the whole multi-turn test (trajectory, conversation),
    which no single turn carries."""
    if not result.turns:
        return []
    per_turn = {m.metric_name for t in result.turns for m in t.metric_results}
    return [m for m in failed_metrics(result.metric_results) if m.metric_name not in per_turn]


def why_failed(result: TestResult) -> list[str]:
    """Every reason the test did not pass, turn by turn (``turn 1: ...`` for multi-turn
    tests; turns are numbered by ``turn_index``, from 0, as in the JSON and the CLI), then
    the whole test's; empty for a passing test."""
    if result.passed:
        return []
    reasons: list[str] = []
    multi = bool(result.turns)
    for turn in turns_of(result):
        prefix = f"turn {turn.turn_index}: " if multi else ""
        reasons += [prefix + r for r in why_turn_failed(turn)]
    reasons += [metric_verdict(m) for m in test_scoped_failures(result)]
    if not reasons:
        reasons = list(result.errors) + goal_reasons(result.trace)
        reasons += [metric_verdict(m) for m in failed_metrics(result.metric_results)]
    return reasons or [STATUS_LABELS[result.status]]


def repeat_line(s: ReportSummary) -> str | None:
    """``3 runs of each test: pass@1 0.83, pass^3 0.67; flaky: a, b`` (None without
    --repeat)."""
    if s.repeat <= 1:
        return None
    line = (
        f"{s.repeat} runs of each test: pass@1 {fmt_score(s.pass_at_1)}, "
        f"pass^{s.repeat} {fmt_score(s.pass_all_k)}"
    )
    return line + (f"; flaky: {', '.join(s.flaky_tests)}" if s.flaky_tests else "")


def goal_reasons(trace: dict[str, Any] | None) -> list[str]:
    """A goal test's unmet criteria (or its findings), from its trace."""
    if not trace:
        return []
    evaluation = trace.get("goal_evaluation") or {}
    unmet = [
        unmet_behaviour(str(c.get("kind", "criterion")), str(c.get("criterion", "?")))
        for c in evaluation.get("criteria_evaluations") or []
        if isinstance(c, dict) and c.get("met") is False
    ]
    if unmet:
        return unmet
    if trace.get("goal_achieved") is False:
        findings = [str(f) for f in trace.get("findings") or []]
        return findings or ["goal not achieved"]
    return []


def headline_status(counts: StatusCounts, run_status: str = "completed") -> str:
    """The status a whole run is shown with: incomplete if the run did not complete
    (interrupted, killed while running, failed: its tests without a result are in no
    count), else failed if any test failed or errored, else not run if any test was not
    run, else passed (also for a completed run of no tests)."""
    if run_status != "completed":
        return "incomplete"
    if counts.failed or counts.errored:
        return "failed"
    return "not_run" if counts.not_run else "passed"


def incomplete_line(run_status: str, results: int) -> str | None:
    """``run interrupted: results for 272 tests only``, for a run that did not complete
    (None for one that did): what every format says in place of passed."""
    if run_status == "completed":
        return None
    return f"run {run_status}: results for {counted(results, 'test')} only"


def turn_counts(result: TestResult) -> tuple[int, int] | None:
    """(turns passed, turns) for a test; a single-turn test is one turn. None for a test
    that was not run (its turns, if any, checked nothing) and for a goal test, whose turns
    are its trace's conversation and are not passed one by one."""
    if result.status == "not_run" or result.test_type == "goal":
        return None
    turns = turns_of(result)
    if turns:
        return sum(t.passed for t in turns), len(turns)
    return int(result.passed), 1


def turns_cell(result: TestResult) -> str:
    """``1/2`` (turns passed of turns); for a test not run, the turns it ran; for a goal
    test, the turns its conversation took."""
    counts = turn_counts(result)
    if counts is not None:
        return f"{counts[0]}/{counts[1]}"
    if result.status == "not_run":
        ran = len(turns_of(result))
        return str(ran) if ran else "—"
    used = (result.trace or {}).get("turns_used")
    return str(used) if isinstance(used, int) else "—"


def turns_passed(report: Report) -> int:
    return sum(counts[0] for r in report.results if (counts := turn_counts(r)) is not None)


def fmt_score(score: float | None) -> str:
    return "—" if score is None else f"{score:.2f}"


def fmt_rate(rate: float | None) -> str:
    return "—" if rate is None else f"{rate:.1%}"


def fmt_ms(ms: float | None) -> str:
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{ms:.0f} ms" if ms >= 10 or ms == int(ms) else f"{ms:.1f} ms"
    return f"{ms / 1000:.2f} s"


def without_nul(text: str) -> str:
    """``text`` with each NUL as U+FFFD, as CommonMark and HTML parsers read it: a NUL in
    a report file cuts it short for C tools and some viewers. The rest stays exact."""
    return text.replace("\x00", "\ufffd")


def to_json(value: Any, indent: int | None = None) -> str:
    """JSON for display: keys as given, non-ASCII kept, anything unknown as ``str``."""
    return json.dumps(value, indent=indent, ensure_ascii=False, default=str)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters, saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ", limit - 40)
    if space > 0:
        cut = cut[:space]
    return f"{cut}… [{len(text) - len(cut)} more characters]"


def call_text(name: str, args: dict[str, Any]) -> str:
    """``subtract(a=5120, b=4480)``."""
    return f"{name}(" + ", ".join(f"{k}={to_json(v)}" for k, v in args.items()) + ")"
