"""The runner: scheduling conversations against a target and collecting their results."""

from assay.runner.conversation import CaseSettings, run_case
from assay.runner.execute import RunOptions, RunOutcome, execute_run
from assay.runner.scheduler import run_cases, run_one

__all__ = [
    "CaseSettings",
    "RunOptions",
    "RunOutcome",
    "execute_run",
    "run_case",
    "run_cases",
    "run_one",
]
