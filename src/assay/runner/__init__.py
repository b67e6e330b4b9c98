"""The runner: scheduling conversations against a target and recording their results."""

from assay.runner.conversation import CaseSettings, run_case
from assay.runner.job import RunJob
from assay.runner.observer import Observer, RunStart
from assay.runner.outcome import JobOutcome
from assay.runner.request import RunRequest, run_options
from assay.runner.scheduler import run_cases, run_one

__all__ = [
    "CaseSettings",
    "JobOutcome",
    "Observer",
    "RunJob",
    "RunRequest",
    "RunStart",
    "run_case",
    "run_cases",
    "run_one",
    "run_options",
]
