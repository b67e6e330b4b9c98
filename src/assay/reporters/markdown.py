"""The Markdown report: for a pull-request comment or a CI job summary (GitHub-flavoured).

A header and a totals line, a table of tests, a section per test that did not pass saying
why, then mean scores per metric and per dimension. A multi-turn test's section has a row
(a heading line) per turn, as HoloDeck's report has: its index, status, time, tool match and
metric scores, then the turn's input and reply, and for a turn that did not pass everything
that says why; multi-turn tests that passed get such a section too. User content is escaped
in prose and table cells, or set in code spans and fences, so an agent's reply can never
break the layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from assay._words import counted
from assay.reporters.view import (
    STATUS_LABELS,
    display_name,
    failed_metrics,
    file_line,
    fmt_ms,
    fmt_rate,
    fmt_score,
    goal_reasons,
    headline_status,
    incomplete_line,
    metric_verdict,
    repeat_line,
    test_scoped_failures,
    tool_mismatches,
    truncate,
    turns_cell,
    turns_of,
    turns_passed,
    why_failed,
    without_nul,
)
from assay.results.models import Report, TestResult, TurnResult
from assay.results.rollup import StatusCounts, errors_that_broke

MAX_TABLE_ROWS = 200
"""Above this many tests the table lists only those that did not pass."""
MAX_FAILURE_SECTIONS = 50
"""Sections for at most this many tests that did not pass (the rest are counted)..."""
MAX_TEXT = 600
"""Inputs, responses and ground truths are cut to about this many characters."""
PASSED_TEXT = 200
"""A passed turn's input and reply are cut to about this many characters."""
FAILURE_CHARACTERS = 40_000
"""...in about this many characters (GitHub takes a comment of up to 65,536)."""
MAX_PASSED_SECTIONS = 50
"""Turn-by-turn sections for at most this many multi-turn tests that passed..."""
PASSED_CHARACTERS = 15_000
"""...in about this many characters."""

_ICONS = {"passed": "✅", "failed": "❌", "error": "💥", "not_run": "⏭️", "incomplete": "⚠️"}
_TURN_ICONS = {"passed": "✅", "failed": "❌", "skipped": "⏭️"}
# "_" inside a word (capital_of_france) starts no emphasis in CommonMark or GitHub's
# Markdown, so it stays as written there: names can be searched for in the summary as typed
_SPECIAL = re.compile(r"([\\`*\[\]<>|~]|(?<![^\W_])_|_(?![^\W_]))")


def md_text(text: str) -> str:
    """``text`` as literal Markdown on one line: markup characters escaped."""
    return _SPECIAL.sub(r"\\\1", " ".join(text.split()))


def md_cell(text: str) -> str:
    """``text`` in a table cell: markup and ``|`` escaped, line breaks as ``<br>``."""
    return "<br>".join(md_text(line) for line in text.strip().splitlines()) or " "


def md_code(text: str) -> str:
    """``text`` in a code span, whatever backticks it holds (one line)."""
    text = " ".join(text.split())
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}"


def md_block(text: str) -> str:
    """``text`` in a fenced block longer than any backtick run inside it."""
    fence = "`" * max(3, max((len(m) for m in re.findall(r"`+", text)), default=0) + 1)
    return f"{fence}text\n{text}\n{fence}"


def _field(label: str, text: str | None, limit: int = MAX_TEXT) -> list[str]:
    """A labelled value: inline when short and on one line, else a fenced block."""
    if text is None:
        return [f"- **{label}:** _none_"]
    text = truncate(text, limit)
    if "\n" not in text and len(text) <= 100:
        return [f"- **{label}:** {md_code(text) if text else '_empty_'}"]
    indented = "\n".join("  " + line for line in md_block(text).splitlines())
    return [f"- **{label}:**", "", indented, ""]


def _header(report: Report) -> list[str]:
    run, s = report.run, report.summary
    counts = StatusCounts.of(s)
    icon = _ICONS[headline_status(counts, run.status)]
    incomplete = incomplete_line(run.status, s.total_tests)
    facts = [
        f"run {md_code(run.id[:12])}",
        f"started {md_text(run.started_at)}",
        f"target {md_code(run.target)}" if run.target else None,
        f"assay {md_text(run.assay_version)}",
        f"commit {md_code(run.git_commit[:12])}" if run.git_commit else None,
        f"status {md_text(run.status)}" if run.status != "completed" else None,
    ]
    totals = (
        f"**{counts.line()}** — pass rate {fmt_rate(s.pass_fraction)} — "
        f"{counted(s.total_turns, 'turn')} ({turns_passed(report)} passed) — "
        f"{fmt_ms(s.execution_time_ms)}"
    )
    repeats = repeat_line(report.summary)
    return [
        f"## {icon} assay: {md_text(run.suite_name)}"
        + (f" — incomplete ({md_text(run.status)})" if incomplete else ""),
        "",
        *([f"**{md_text(incomplete)}**: not a passing run", ""] if incomplete else []),
        " · ".join(f for f in facts if f),
        "",
        totals,
        "",
        *([md_text(repeats), ""] if repeats else []),
    ]


def _metrics_cell(result: TestResult) -> str:
    return ", ".join(
        f"{md_text(m.metric_name)} {fmt_score(m.score)}" + (" ✗" if m.passed is False else "")
        for m in result.metric_results
    )


def _table(report: Report) -> list[str]:
    results = report.results
    note = []
    if len(results) > MAX_TABLE_ROWS:
        shown = [r for r in results if not r.passed][:MAX_TABLE_ROWS]
        note = ["", f"_{len(results) - len(shown)} more tests (passing) not listed._"]
        results = shown
    lines = ["| test | type | status | turns | time | metrics |", "|---|---|---|---:|---:|---|"]
    for r in results:
        cells = [
            md_cell(display_name(r)),
            r.test_type,
            f"{_ICONS[r.status]} {STATUS_LABELS[r.status]}",
            turns_cell(r),
            fmt_ms(r.execution_time_ms),
            _metrics_cell(r) or " ",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines + note + [""]


def _turn_section(turn: TurnResult) -> list[str]:
    """Everything that says why a turn did not pass."""
    lines = _field("Input", turn.input)
    lines += [f"- **File:** {md_text(file_line(f))}" for f in turn.processed_files]
    if not turn.skipped:
        lines += _field("Response", turn.response)
    if turn.ground_truth is not None:
        lines += _field("Ground truth", turn.ground_truth)
    if turn.tool_calls:
        lines.append(f"- **Tools called:** {md_code(', '.join(turn.tool_calls))}")
    errors = errors_that_broke(turn.errors, turn.tool_mismatches)  # mismatches: below
    lines += [f"- **Error:** {md_text(e)}" for e in errors]
    lines += [f"- **Tool mismatch:** {md_text(m)}" for m in tool_mismatches(turn)]
    for m in failed_metrics(turn.metric_results):
        lines.append(f"- **Failed metric:** {md_text(metric_verdict(m))}")
    for name, why in turn.metrics_not_run.items():
        lines.append(f"- **Not run:** {md_text(name)} ({md_text(why)})")
    return lines + [""]


def _turn_row(turn: TurnResult) -> str:
    """A turn's heading line: index, status, time, tool match and each metric's score."""
    state = "skipped" if turn.skipped else "passed" if turn.passed else "failed"
    facts = [fmt_ms(turn.execution_time_ms)]
    if turn.tools_matched is not None:
        facts.append(f"tools {'✅' if turn.tools_matched else '❌'}")
    facts += [
        f"{md_text(m.metric_name)} {fmt_score(m.score)}" + (" ✗" if m.passed is False else "")
        for m in turn.metric_results
    ]
    return f"###### Turn {turn.turn_index} {_TURN_ICONS[state]} {state} — " + " · ".join(facts)


def _turns(result: TestResult) -> list[str]:
    """A multi-turn test's turns, one heading line each: a passed turn with its input and
    reply, one that did not pass with everything that says why."""
    lines = ["##### Turns", ""]
    for turn in result.turns or ():
        lines += [_turn_row(turn), ""]
        if turn.passed:
            lines += _field("Input", turn.input, PASSED_TEXT)
            lines += _field("Response", turn.response, PASSED_TEXT)
            lines += [] if lines[-1] == "" else [""]
        else:
            lines += _turn_section(turn)
    return lines


def _heading(result: TestResult) -> list[str]:
    return [
        f"#### {_ICONS[result.status]} {md_text(display_name(result))} "
        f"({result.test_type}, {STATUS_LABELS[result.status]})",
        "",
    ]


def _failure_section(result: TestResult) -> list[str]:
    lines = _heading(result)
    failing = [t for t in turns_of(result) if not t.passed]
    goal = result.test_type == "goal"
    if goal:
        lines += _field("Goal", result.test_input)
    if result.turns:
        lines += ([""] if goal else []) + _turns(result)
        whole = test_scoped_failures(result)
        lines += [f"- **Failed metric (whole test):** {md_text(metric_verdict(m))}" for m in whole]
        unmet = goal_reasons(result.trace) if goal else []
        lines += [f"- {md_text(reason)}" for reason in unmet]
        if not failing and not whole and not unmet:  # the test failed for another reason
            lines += [f"- {md_text(reason)}" for reason in why_failed(result)]
        return lines + ([""] if lines[-1] else [])
    if failing:
        return lines + _turn_section(failing[0])
    lines += [f"- {md_text(reason)}" for reason in why_failed(result)]
    return lines + [""]


def _failures(report: Report) -> list[str]:
    failing = [r for r in report.results if not r.passed]
    if not failing:
        return []
    sections = map(_failure_section, failing[:MAX_FAILURE_SECTIONS])
    return ["### What did not pass", ""] + _bounded(sections, len(failing), FAILURE_CHARACTERS)


def _passed_turns(report: Report) -> list[str]:
    """The multi-turn tests that passed, turn by turn."""
    passed = [r for r in report.results if r.passed and r.turns]
    if not passed:
        return []
    sections = (_heading(r) + _turns(r) for r in passed[:MAX_PASSED_SECTIONS])
    return ["### Multi-turn tests that passed", ""] + _bounded(
        sections, len(passed), PASSED_CHARACTERS
    )


def _bounded(sections: Iterable[list[str]], tests: int, characters: int) -> list[str]:
    """The sections of ``tests`` tests (perhaps fewer given) while they fit in about
    ``characters`` (the first always), then how many more there are: a test's turns are not
    limited in number, so a count of sections alone does not keep a pull-request comment
    within its size."""
    lines: list[str] = []
    size = shown = 0
    for section in sections:
        size += sum(len(line) + 1 for line in section)
        if shown and size > characters:
            break
        lines += section
        shown += 1
    if shown < tests:
        lines += [f"_…and {tests - shown} more; the HTML or JSON report has every test._", ""]
    return lines


def _scores(report: Report) -> list[str]:
    s = report.summary
    lines: list[str] = []
    if s.average_scores:
        lines += ["### Mean scores", "", "| metric | mean | tests |", "|---|---:|---:|"]
        for name, score in sorted(s.average_scores.items()):
            count = s.metrics_evaluated.get(name, 0)
            lines.append(f"| {md_cell(name)} | {fmt_score(score)} | {count} |")
        lines.append("")
    if s.dimensions:
        lines += ["### Dimensions", "", "| dimension | mean | scores |", "|---|---:|---:|"]
        for name, stats in sorted(s.dimensions.items()):
            mean, scores = stats.get("mean"), stats.get("count", 0)
            lines.append(f"| {md_cell(name)} | {fmt_score(mean)} | {scores} |")
        lines.append("")
    return lines


def _files(report: Report) -> list[str]:
    """Every file the tests sent, test by test in turn order."""
    sent = [(r, t) for r in report.results for t in turns_of(r) if t.processed_files]
    if not sent:
        return []
    lines = ["### Files sent", "", "| test | turn | file |", "|---|---:|---|"]
    for result, turn in sent:
        for file in turn.processed_files:
            name = md_cell(display_name(result))
            lines.append(f"| {name} | {turn.turn_index} | {md_cell(file_line(file))} |")
    return lines + [""]


def render_markdown(report: Report) -> str:
    lines = _header(report) + _table(report) + _failures(report) + _passed_turns(report)
    lines += _files(report)
    lines += _scores(report)
    return without_nul("\n".join(lines).rstrip("\n") + "\n")
