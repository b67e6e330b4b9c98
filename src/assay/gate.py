"""Merge gates (docs/ci.md): with a gate, the gate decides whether a run is good enough,
instead of "every test passed".

- ``fail_under``: the run's pass rate must be at or above this rate (0 to 1). The pass rate
  is the report's: passed tests over all tests, each repetition of ``--repeat`` counted; a
  test that errored or was not run (nothing checked) did not pass.
- ``baseline`` and ``max_regressions``: at most this many tests that passed in the baseline
  (a stored run, or its JSON report file) may not pass now. A test that did not pass in the
  baseline cannot regress; a test that is flaky in either run (``--repeat``: passed on some
  repetitions, not on others) is listed apart and not counted (``assay.store.compare``);
  tests new in this run, or gone from it, are not compared. A test counts once, however
  many of its repetitions regressed. A baseline that compares nothing is refused (bad
  input): a run that did not complete (running, interrupted, failed), or one that shares no
  test name with this run's tests (another suite's): a gate that compared nothing would
  pass, and a gate that compares nothing proves nothing.

Both given, both must hold. ``assay run --fail-under/--baseline`` uses ``evaluate_gate``;
from Python, ``check_gate(report, ...)`` checks a report ``assay.run`` returned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from assay._json import load_bounded
from assay._words import counted
from assay.cases._problems import pydantic_problems
from assay.errors import ConfigError, Problem
from assay.reporters.markdown import md_code
from assay.reporters.view import fmt_rate
from assay.results.models import Report, ReportSummary, TestResult
from assay.results.rollup import status_of
from assay.store import RunNotFound, Store, TestOutcome
from assay.store.compare import diff_outcomes

_RATE_HELP = "give a rate from 0 to 1 (0.9) or a percentage (90%)"


def parse_rate(text: str, option: str = "--fail-under") -> float:
    """``0.9`` or ``90%`` as 0.9; anything else (or outside 0..1) is bad input."""
    value = text.strip()
    percent = value.endswith("%")
    try:
        rate = float(value.removesuffix("%")) / (100 if percent else 1)
    except ValueError:
        rate = -1.0
    if not 0 <= rate <= 1:
        raise ConfigError([Problem("options", option, f"{_RATE_HELP}, got {text!r}")])
    return rate


@dataclass(frozen=True)
class Baseline:
    """What a run is compared with: a stored run's, or a JSON report's, test outcomes."""

    label: str  # "run 0123456789ab" or "report.json (run 0123456789ab)"
    run_id: str
    outcomes: list[TestOutcome]


class _Result(BaseModel):  # of a JSON report, what the gate needs (reports of any version)
    model_config = ConfigDict(extra="ignore")
    test_name: str | None = None  # HoloDeck's may have none: such a result matches no test
    repeat_index: int = 0
    status: Literal["passed", "failed", "error", "not_run"] | None = None  # None: HoloDeck's
    passed: bool


class _Run(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str
    status: str = "completed"  # a report without one is of a version that wrote finished runs


class _Report(BaseModel):
    """assay's JSON report, or HoloDeck's (no ``run``; its results have no ``status``)."""

    model_config = ConfigDict(extra="ignore")
    run: _Run | None = None
    holodeck_version: str | None = None
    results: list[_Result]

    @model_validator(mode="after")
    def _a_report(self) -> _Report:
        if self.run is None and self.holodeck_version is None:
            raise ValueError("no run (nor HoloDeck's holodeck_version)")
        if self.run is not None:  # assay names every result
            for index, result in enumerate(self.results):
                if result.test_name is None:
                    raise ValueError(f"results[{index}] has no test_name")
        return self


def _report_file(path: Path) -> Baseline:
    where = str(path)
    try:
        data = load_bounded(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            [Problem(where, "", f"cannot read the baseline: {exc.strerror}")]
        ) from None
    except (ValueError, UnicodeDecodeError):  # JSONDecodeError is a ValueError
        raise ConfigError(
            [Problem(where, "", "the baseline is not JSON: give a report written by --out X.json")]
        ) from None
    try:
        report = _Report.model_validate(data)
    except ValidationError as exc:
        problems = pydantic_problems(where, exc)
        fix = (
            " (a baseline file is a JSON report, written by assay run --out report.json, "
            "or HoloDeck's)"
        )
        raise ConfigError([Problem(p.source, p.path, p.message + fix) for p in problems]) from None
    if report.run is None:  # HoloDeck's, which names no run
        return Baseline(path.name, path.name, _outcomes(report.results))
    label = f"{path.name} (run {report.run.id[:12]})"
    _require_completed(label, report.run.id, report.run.status, len(report.results))
    return Baseline(label, report.run.id, _outcomes(report.results))


def _require_completed(
    label: str,
    run_id: str,
    status: str,
    results: int,
    where: tuple[str, str] = ("options", "--baseline"),
) -> None:
    """A run that did not finish holds the results of some tests only (or none): as a
    baseline, the tests without one would not be compared; gated itself, its pass rate is
    of the tests that have one. Either way the gate would pass on what is left. ``where``:
    the source and field of the problem (the baseline option, or the gated report)."""
    if status == "completed":
        return
    raise ConfigError(
        [
            Problem(
                *where,
                f"{label} is {status}, not completed ({counted(results, 'test result')}): "
                f"a gate compares with a finished run: finish it (assay run --resume "
                f"{run_id[:12]}) or give a completed run",
            )
        ]
    )


def require_comparable(baseline: Baseline, names: Iterable[str]) -> None:
    """Refuse a baseline that shares no test name with ``names``, the (stored) names of
    this run's tests: the gate would compare nothing and pass."""
    ours = set(names)
    theirs = {outcome.test_name for outcome in baseline.outcomes}
    if not ours or ours & theirs:
        return
    held = counted(len(theirs), "other test") if theirs else "no test results"
    raise ConfigError(
        [
            Problem(
                "options",
                "--baseline",
                f"{baseline.label} shares no test name with this run's "
                f"{counted(len(ours), 'test')} (it has {held}), so the gate would compare "
                "nothing: a gate that compares nothing proves nothing. Give a run of the same "
                "suite, or its JSON report",
            )
        ]
    )


def load_baseline(ref: str | Path, store: Store | None) -> Baseline:
    """``ref``: a JSON report file, or a stored run's id (or unique prefix) in ``store``.
    Bad input (no such run, a file that is not a report, a run that did not complete)
    raises ConfigError naming it."""
    path = Path(ref)
    if path.is_file() or path.suffix.lower() == ".json" or store is None:
        if not path.is_file():
            raise ConfigError(
                [
                    Problem(
                        "options",
                        "--baseline",
                        f"no report file {str(ref)!r}"
                        + ("" if store is None else " and it is not a run id either"),
                    )
                ]
            )
        return _report_file(path)
    try:
        run_id = store.resolve_run_id(str(ref))
    except RunNotFound as exc:
        message = exc.problems[0].message + "; or give a JSON report file"
        raise ConfigError([Problem("options", "--baseline", message)]) from None
    outcomes = store.outcomes(run_id)
    run = store.get_run(run_id)
    label = f"run {run_id[:12]}"
    _require_completed(label, run_id, "completed" if run is None else run.status, len(outcomes))
    return Baseline(label, run_id, outcomes)


def _outcomes(results: Iterable[_Result | TestResult]) -> list[TestOutcome]:
    """Each named result's outcome (a HoloDeck result without a name can match no test); a
    HoloDeck result has no status, only whether it passed."""
    return [
        TestOutcome(r.test_name, r.repeat_index, r.status or status_of(r.passed, []), r.passed)
        for r in results
        if r.test_name is not None
    ]


def report_outcomes(report: Report) -> list[TestOutcome]:
    return _outcomes(report.results)


@dataclass(frozen=True)
class GateCheck:
    passed: bool
    line: str  # what was checked and found, in words


@dataclass(frozen=True)
class GateVerdict:
    checks: list[GateCheck]
    regressions: list[str] = field(default_factory=list)  # tests that passed in the baseline
    flaky: list[str] = field(default_factory=list)  # flaky in either run: not counted

    @property
    def passed(self) -> bool:
        return all(check.passed for check in self.checks)

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1

    def headline(self, not_run_strict: int = 0) -> str:
        """``gate passed`` or ``gate failed``; with ``not_run_strict`` (the tests not run
        under ``--strict``, which exit 1 whatever the gate says) a passed gate says so."""
        if self.passed and not_run_strict:
            return f"gate passed, but --strict: {counted(not_run_strict, 'test')} not run"
        return f"gate {'passed' if self.passed else 'failed'}"

    def to_json(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "checks": [{"passed": c.passed, "line": c.line} for c in self.checks],
            "regressions": self.regressions,
            "flaky": self.flaky,
        }

    def markdown(self, not_run_strict: int = 0) -> str:
        """For a CI job summary: user text in code spans, as the Markdown report does."""
        icon = "✅" if self.passed and not not_run_strict else "❌"
        lines = [f"### {icon} assay {self.headline(not_run_strict)}", ""]
        lines += [f"- {'✅' if c.passed else '❌'} {c.line}" for c in self.checks]
        if self.regressions:
            lines.append("- regressed: " + ", ".join(md_code(n) for n in self.regressions))
        if self.flaky:
            lines.append("- flaky, not counted: " + ", ".join(md_code(n) for n in self.flaky))
        return "\n".join(lines) + "\n"


def evaluate_gate(
    summary: ReportSummary,
    run_id: str,
    outcomes: list[TestOutcome],
    *,
    fail_under: float | None = None,
    baseline: Baseline | None = None,
    max_regressions: int = 0,
) -> GateVerdict:
    """The verdict on a finished run (its summary, id and test outcomes)."""
    checks: list[GateCheck] = []
    if fail_under is not None:
        rate = summary.pass_fraction  # --fail-under is 0-1, as the summary's was
        ok = rate is not None and rate >= fail_under
        checks.append(
            GateCheck(
                ok,
                f"pass rate {fmt_rate(rate)} ({summary.passed} of {summary.total_tests} tests) "
                f"{'is at or above' if ok else 'is below'} --fail-under {fmt_rate(fail_under)}",
            )
        )
    regressions: list[str] = []
    flaky: list[str] = []
    if baseline is not None:
        diff = diff_outcomes(baseline.run_id, baseline.outcomes, run_id, outcomes)
        for change in diff.regressions:  # metric-only changes of a passing test do not count
            if change.status_a == "passed" and change.test_name not in regressions:
                regressions.append(change.test_name)
        flaky = [f.test_name for f in diff.flaky]
        ok = len(regressions) <= max_regressions
        noun = "test" if len(regressions) == 1 else "tests"
        checks.append(
            GateCheck(
                ok,
                f"{len(regressions)} {noun} that passed in {baseline.label} did not pass now "
                f"({'within' if ok else 'more than'} --max-regressions {max_regressions})",
            )
        )
    return GateVerdict(checks, regressions, flaky)


def check_gate(
    report: Report,
    *,
    fail_under: float | None = None,
    baseline: str | Path | Report | None = None,
    max_regressions: int = 0,
    store: Store | None = None,
) -> GateVerdict:
    """The gate on a report ``assay.run`` returned: ``baseline`` is a report, a JSON report
    file, or a run id in ``store``. A baseline that compares nothing (a run that did not
    complete, or that has none of the report's tests) raises ConfigError, and so does a
    ``report`` of a run that did not complete: its pass rate is of the tests that have a
    result, and a gate on it would pass on what is left."""
    run, gated = report.run, ("report", "run.status")
    _require_completed(f"run {run.id[:12]}", run.id, run.status, len(report.results), gated)
    if isinstance(baseline, Report):
        label = f"run {baseline.run.id[:12]}"
        _require_completed(label, baseline.run.id, baseline.run.status, len(baseline.results))
        base: Baseline | None = Baseline(label, baseline.run.id, report_outcomes(baseline))
    else:
        base = None if baseline is None else load_baseline(baseline, store)
    if base is not None:
        require_comparable(base, (r.test_name for r in report.results))
    return evaluate_gate(
        report.summary,
        report.run.id,
        report_outcomes(report),
        fail_under=fail_under,
        baseline=base,
        max_regressions=max_regressions,
    )


__all__ = [
    "Baseline",
    "GateCheck",
    "GateVerdict",
    "check_gate",
    "evaluate_gate",
    "load_baseline",
    "parse_rate",
    "report_outcomes",
    "require_comparable",
]
