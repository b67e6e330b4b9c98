"""The runner: scheduling conversations against a target and recording their results."""

from assay.runner.conversation import CaseSettings, run_case
from assay.runner.job import JobOutcome, RunJob
from assay.runner.request import RunRequest
from assay.runner.scheduler import run_cases, run_one

__all__ = [
    "CaseSettings",
    "JobOutcome",
    "RunJob",
    "RunRequest",
    "run_case",
    "run_cases",
    "run_one",
]
