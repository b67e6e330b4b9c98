"""``assay run``'s merge gates and CI job summary: the options read and checked before the
run (a typo costs no run), the verdict printed after it, and the Markdown summary appended
to ``$GITHUB_STEP_SUMMARY`` (docs/ci.md). The gate itself is ``assay.gate``."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.cli._terminal import markup_safe
from assay.errors import ConfigError, Problem, StoreError

if TYPE_CHECKING:  # the gate is imported when one is asked for: a run without one never does
    from rich.console import Console

    from assay.gate import Baseline, GateVerdict
    from assay.results.models import Report, ReportSummary
    from assay.store import Store

STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
_SHOWN = 20  # regressed and flaky tests named on the terminal; the rest counted


@dataclass(frozen=True)
class Gate:
    fail_under: float | None
    baseline: Baseline | None
    max_regressions: int

    def verdict(self, summary: ReportSummary, run_id: str, store: Store) -> GateVerdict:
        from assay.gate import evaluate_gate

        return evaluate_gate(
            summary,
            run_id,
            store.outcomes(run_id),
            fail_under=self.fail_under,
            baseline=self.baseline,
            max_regressions=self.max_regressions,
        )

    def check_names(self, names: list[str]) -> None:
        """Before the run: a baseline with none of its tests (``names``) is refused."""
        if self.baseline is not None:
            from assay.gate import require_comparable

            require_comparable(self.baseline, names)


def read_gate(
    fail_under: str | None, baseline: str | None, max_regressions: int | None, store: Store
) -> Gate | None:
    """The gate asked for, or None; bad input raises ConfigError before anything runs."""
    if max_regressions is not None and baseline is None:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--max-regressions",
                    "counts regressions against a baseline: add --baseline RUN_ID_OR_REPORT",
                )
            ]
        )
    if fail_under is None and baseline is None:
        return None
    from assay.gate import load_baseline, parse_rate

    rate = None if fail_under is None else parse_rate(fail_under)
    base = None if baseline is None else load_baseline(baseline, store)
    return Gate(rate, base, max_regressions or 0)


def _names(names: list[str]) -> str:
    shown = ", ".join(markup_safe(n) for n in names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "")


def print_verdict(verdict: GateVerdict, console: Console, not_run_strict: int = 0) -> None:
    """The gate's checks and its verdict with the exit code the run ends with:
    ``not_run_strict``, the tests not run under ``--strict``, which exit 1 whatever the gate
    says (said on the verdict's line, not contradicted by it)."""
    for check in verdict.checks:
        mark = "[green]ok[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"gate: {mark} {markup_safe(check.line)}")
    if verdict.regressions:
        console.print(f"  regressed: {_names(verdict.regressions)}")
    if verdict.flaky:
        console.print(f"  [yellow]flaky[/] in either run, not counted: {_names(verdict.flaky)}")
    failed = not verdict.passed or not_run_strict
    style = "red" if failed else "green"
    headline = markup_safe(verdict.headline(not_run_strict))
    console.print(f"[bold {style}]{headline}[/] (exit {int(bool(failed))})")


def step_summary_file() -> str | None:
    """``$GITHUB_STEP_SUMMARY``: the file GitHub Actions shows as the job's summary."""
    return os.environ.get(STEP_SUMMARY_ENV, "").strip() or None


def append_step_summary(
    report: Report, verdict: GateVerdict | None, where: str, not_run_strict: int = 0
) -> None:
    """Append the verdict and the Markdown report to the job summary file ``where``:
    appended, never overwritten, for other steps write there too."""
    from assay.reporters import render_markdown

    text = (verdict.markdown(not_run_strict) + "\n" if verdict else "") + render_markdown(report)
    try:
        with open(where, "a", encoding="utf-8") as summary:
            summary.write(text if text.endswith("\n") else text + "\n")
    except OSError as exc:
        raise StoreError(
            f"cannot append the job summary to ${STEP_SUMMARY_ENV} ({where!r}): {exc.strerror}; "
            f"the run is stored: assay report {report.run.id[:12]} --format markdown"
        ) from None
