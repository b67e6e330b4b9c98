"""The JSON API's own shapes. Results, runs and summaries are the ``assay.results`` models
themselves; these only wrap them in pages and add what the dashboard computes."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, Field

from assay.results.models import ReportSummary, RunInfo, TestResult
from assay.store.compare import TestChange
from assay.store.estimates import FlakyTest


class RunOut(BaseModel):
    run: RunInfo
    total: int
    passed: int
    failed: int
    pass_rate: float | None = Field(description="percentage passed, 0-100, as the summary's")
    duration_s: float | None
    summary: ReportSummary | None = Field(description="present once the run has finished")


class RunsPage(BaseModel):
    items: list[RunOut]
    total: int
    offset: int
    limit: int


class ResultOut(BaseModel):
    id: int = Field(description="the stored result's id: /api/runs/{run_id}/results/{id}")
    result: TestResult


class ResultsPage(BaseModel):
    items: list[ResultOut]
    total: int = Field(description="results matching the filters")
    offset: int
    limit: int


class Finding(BaseModel):
    """One problem with a dataset file, where the user finds it."""

    row: int | None = None
    column: str | None = None
    where: str = ""
    message: str


class Turn(BaseModel):
    row: int
    turn_id: str | None
    question: str
    answer: str | None
    expected_tools: list[dict[str, object]] | None


class ConversationOut(BaseModel):
    session_id: str | None
    turns: list[Turn]


class DatasetCheck(BaseModel):
    """What Validate says about a file: the shape line of ``assay validate`` and the rest."""

    shape: str | None = Field(description="MULTI-TURN — 9 rows, 2 conversations (...)")
    kind: Literal["MULTI-TURN", "SINGLE-TURN"] | None
    rows: int | None
    conversations: int | None
    columns: dict[str, str] = Field(description="field -> the column as written in the file")
    columns_line: str | None
    ignored_columns: list[str]
    warnings: list[str]
    errors: list[Finding]
    header: list[str] = Field(description="the file's header, for the preview")
    preview: list[tuple[int, list[str]]] = Field(description="the first rows: (row, cells)")
    preview_conversations: list[ConversationOut]
    more_conversations: int = 0


class UploadOut(BaseModel):
    id: str
    name: str
    size: int
    uploaded_at: str
    check: DatasetCheck | None = None


def _no_nul(path: str) -> str:
    if "\x00" in path:
        raise ValueError("a file path cannot hold a NUL character (U+0000): remove it")
    return path


FilePath = Annotated[str, AfterValidator(_no_nul)]  # a path in a form or query: no NUL


class NewRun(BaseModel):
    """A run to start: from an uploaded dataset or a suite file under the server's folder."""

    source: Literal["dataset", "suite"]
    dataset_id: str = ""
    suite_path: FilePath = Field("", description="relative to the folder assay serve runs in")
    target: Literal["suite", "url", "openai", "demo"] = Field(
        "suite", description="suite: the suite file's own (a dataset must choose one)"
    )
    url: str = ""
    openai_base_url: str = ""
    openai_model: str = ""
    openai_api_key_env: str = "OPENAI_API_KEY"
    metrics: list[str] = Field(default_factory=list, description="datasets only")
    concurrency: int | None = Field(None, ge=1, le=256)
    judge: str = Field("", description="PROVIDER:MODEL, e.g. openai:gpt-4o-mini")
    judge_base_url: str = ""


class JobOut(BaseModel):
    id: str
    label: str
    status: Literal["starting", "running", "completed", "interrupted", "failed", "error"]
    run_id: str | None
    total: int
    done: int
    passed: int
    failed: int = Field(description="tests on which a check failed")
    errored: int
    not_run: int = Field(description="tests on which nothing was checked")
    recent: list[dict[str, object]]
    problems: list[str]


class MetricDelta(BaseModel):
    a: float | None
    b: float | None
    delta: float | None


class RunChange(BaseModel):
    """A mean over the shared tests in both runs and its change, with the 95% interval."""

    measure: str = Field(description="`pass rate` or a metric's name")
    tests: int = Field(description="shared tests the mean is over")
    mean_a: float
    mean_b: float
    delta: float
    low: float = Field(description="lower end of the 95% paired-bootstrap interval")
    high: float
    significant: bool = Field(description="the interval excludes zero (and enough tests)")
    verdict: str


class Comparison(BaseModel):
    """Run B compared with run A: the verdict of ``assay diff``, and the metric averages."""

    run_a: str
    run_b: str
    summary: str = Field(description="the line `assay diff` ends with")
    regressed: bool
    regressions: list[TestChange]
    improvements: list[TestChange]
    new_tests: list[tuple[str, int]]
    removed_tests: list[tuple[str, int]]
    unchanged: int
    flaky: list[FlakyTest] = Field(description="flaky in either run: not counted as changes")
    files_changed: list[tuple[str, int]] = Field(
        default_factory=list,
        description="tests whose attached files changed: not the same test, not compared",
    )
    pass_rate: RunChange | None
    metrics: list[RunChange]
    metric_deltas: dict[str, MetricDelta]


class Problem(BaseModel):
    detail: str
