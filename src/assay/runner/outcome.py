"""What a finished run hands back: its summary and the few results a terminal shows."""

from __future__ import annotations

from dataclasses import dataclass, field

from assay.results.models import ReportSummary, RunInfo, TestResult

# The terminal table shows every test of a small run, or up to this many that did not pass.
SHOWN_ROWS = 50


@dataclass
class JobOutcome:
    run: RunInfo
    summary: ReportSummary
    shown: list[TestResult]  # what the terminal table lists, in test order
    interrupted: bool = False
    resume_command: str = ""  # how to resume this run, endpoint options included


@dataclass
class Shown:
    """Keeps the few results the terminal table needs, not every result of a big run."""

    total: int
    kept: dict[int, TestResult] = field(default_factory=dict)

    def keeps(self, passed: bool) -> bool:
        """Whether ``add`` would keep a result that ``passed`` (or not) now."""
        return self.total <= SHOWN_ROWS or (not passed and len(self.kept) < SHOWN_ROWS)

    def add(self, position: int, result: TestResult) -> None:
        if self.keeps(result.passed):
            self.kept[position] = result

    def ordered(self) -> list[TestResult]:
        return [self.kept[k] for k in sorted(self.kept)]
