"""``RunOptions``: every option of a run, the one list behind ``assay.run``'s keyword
arguments, ``assay run``'s flags and the suite's ``execution:`` (docs/runs.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from assay._factories import empty_list
from assay.config import (
    DEFAULT_CONCURRENCY,
    DEFAULT_METRIC_TIMEOUT_S,
    DEFAULT_RETRIES,
    DEFAULT_TURN_TIMEOUT_S,
    WORKERS_FROM_TESTS,
    ExecutionConfig,
)
from assay.limits import DEFAULT_MAX_FILE_MB


class RunOptions(BaseModel):
    """Every option of a run, one list for the three ways in: ``assay.run(...)``'s keyword
    arguments, ``assay run``'s flags (``--turn-timeout-s``; ``datasets`` is ``dataset=`` and
    ``--dataset``) and, for the keys of ``execution:``, the suite.

    The one override rule: an option given (to ``assay.run`` or on the command line) wins
    over the suite's ``execution:``, which wins over the default. ``target`` and ``judge``
    replace the suite's own; ``datasets`` are added to the suite's ``datasets:``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    datasets: list[Path] = Field(
        default_factory=empty_list,
        description="a CSV/XLSX/JSONL file whose rows are added as tests (repeatable)",
    )
    target: str | None = Field(
        default=None,
        description="the agent to test, replacing the suite's target: an http(s) URL, demo, "
        "or module:function",
    )
    judge: str | None = Field(
        default=None,
        description="PROVIDER:MODEL (openai or anthropic) for judge metrics and goal tests, "
        "replacing the suite's judge",
    )
    judge_base_url: str | None = Field(
        default=None, description="the judge's server, e.g. a local Ollama's /v1 URL"
    )
    concurrency: int | None = Field(
        default=None,
        ge=1,
        description=f"conversations run at once (execution.concurrency, default "
        f"{DEFAULT_CONCURRENCY})",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description=f"worker processes the tests are shared over, each with its share of the "
        f"concurrency and endpoint limits (default: one per core when the run has more than "
        f"{WORKERS_FROM_TESTS} tests, else 1); with --executor ray, the Ray tasks",
    )
    executor: Literal["local", "ray"] | None = Field(
        default=None,
        description="local (this machine's processes, the default) or ray (Ray tasks; pip "
        "install 'assay[ray]')",
    )
    ray_address: str | None = Field(
        default=None,
        description="the Ray cluster for --executor ray: ray://HOST:10001, or auto for the "
        "one this machine belongs to (default: a local Ray started for the run)",
    )
    repeat: int | None = Field(
        default=None, ge=1, description="run each test K times (execution.repeat, default 1)"
    )
    limit: int | None = Field(default=None, ge=1, description="run only the first N tests")
    keyword: str | None = Field(
        default=None,
        description="run only the tests whose names match EXPR: words matched as "
        "case-insensitive substrings, with and, or, not and parentheses, as in pytest's -k",
    )
    tags: list[str] = Field(
        default_factory=empty_list,
        description="run only the tests with this tag (repeatable: a test runs if it has any "
        "of them)",
    )
    only_failed: str | None = Field(
        default=None,
        description="run only the tests that failed or errored in the stored run RUN_ID (a "
        "new run, comparable with assay diff); without a suite, that run's suite and datasets",
    )
    turn_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description=f"seconds one turn may take (execution.turn_timeout_s, default "
        f"{DEFAULT_TURN_TIMEOUT_S:g})",
    )
    metric_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description=f"seconds one metric may take on one turn (execution.metric_timeout_s, "
        f"default {DEFAULT_METRIC_TIMEOUT_S:g})",
    )
    retries: int | None = Field(
        default=None,
        ge=0,
        description=f"retries of a failed connection, 429 or 5xx (execution.retries, default "
        f"{DEFAULT_RETRIES})",
    )
    max_file_mb: float | None = Field(
        default=None,
        gt=0,
        description=f"the largest file a test may attach, in MB (execution.max_file_mb, "
        f"default {DEFAULT_MAX_FILE_MB:g})",
    )
    no_cache: bool = Field(default=False, description="bypass the judge response cache")

    def execution(self, suite: ExecutionConfig) -> ExecutionConfig:
        """The suite's ``execution:`` (its defaults filled in) with the options given here."""
        given = {
            name: value
            for name in ExecutionConfig.model_fields
            if (value := getattr(self, name)) is not None
        }
        return suite.model_copy(update=given)
