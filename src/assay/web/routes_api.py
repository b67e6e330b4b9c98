"""The JSON API: the dashboard's data, typed by the ``assay.results`` models."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import StreamingResponse

from assay.errors import ConfigError
from assay.results.models import TestResult
from assay.store.queries import ResultFilter, RunRow
from assay.web._check import check_dataset
from assay.web._compare import compare
from assay.web._params import Offset, result_filter, stored_result
from assay.web._runs import Job, RunSpec
from assay.web._state import Dashboard, dashboard
from assay.web._uploads import Upload, UploadError
from assay.web.routes_datasets import receive_upload
from assay.web.routes_new import event_stream, get_job, start_job
from assay.web.schemas import (
    Comparison,
    JobOut,
    NewRun,
    Problem,
    ResultOut,
    ResultsPage,
    RunOut,
    RunsPage,
    UploadOut,
)

router = APIRouter(prefix="/api", responses={401: {"model": Problem}, 404: {"model": Problem}})
State = Annotated[Dashboard, Depends(dashboard)]
MAX_LIMIT = 500


def _run_out(row: RunRow) -> RunOut:
    return RunOut(
        run=row.info,
        total=row.total,
        passed=row.passed,
        failed=row.failed,
        pass_rate=row.pass_rate,
        duration_s=row.duration_s,
        summary=row.summary,
    )


def _upload_out(upload: Upload, checked: bool) -> UploadOut:
    return UploadOut(
        id=upload.id,
        name=upload.name,
        size=upload.size,
        uploaded_at=upload.uploaded_at,
        check=check_dataset(upload.path, upload.name) if checked else None,
    )


def _job_out(job: Job) -> JobOut:
    return JobOut.model_validate(job.snapshot())


@router.get("/runs", response_model=RunsPage)
def list_runs(
    state: State,
    suite: str = "",
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
) -> RunsPage:
    """Stored runs, latest first."""
    rows, total = state.queries.list_runs(limit, offset, suite)
    return RunsPage(items=[_run_out(r) for r in rows], total=total, offset=offset, limit=limit)


@router.get("/runs/{run_id}", response_model=RunOut)
def get_run(run_id: str, state: State) -> RunOut:
    """One run (id or unique prefix of at least six characters)."""
    return _run_out(state.queries.run(run_id))


@router.get("/runs/{run_id}/results", response_model=ResultsPage)
def list_results(
    run_id: str,
    state: State,
    flt: Annotated[ResultFilter, Depends(result_filter)],
    offset: Offset = 0,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = 50,
) -> ResultsPage:
    """A page of the run's test results, in test order, filtered by status, type, metric
    (``metric_failed`` for those where it failed), tag and text (``q``)."""
    run = state.queries.run(run_id).info
    found = state.queries.results(run.id, flt, offset, limit)
    return ResultsPage(
        items=[ResultOut(id=i, result=r) for i, r in found.items],
        total=found.total,
        offset=offset,
        limit=limit,
    )


@router.get("/runs/{run_id}/results/{test_id}", response_model=TestResult)
def get_result(run_id: str, test_id: int, state: State) -> TestResult:
    return stored_result(state, run_id, test_id)[1]


@router.get("/compare", response_model=Comparison)
def compare_runs(a: str, b: str, state: State) -> Comparison:
    """Run ``b`` compared with run ``a``: the verdict ``assay diff`` gives."""
    return compare(state, a, b).to_api()


@router.get("/datasets", response_model=list[UploadOut])
def list_datasets(state: State) -> list[UploadOut]:
    return [_upload_out(u, checked=False) for u in state.uploads.list()]


@router.post("/datasets", response_model=UploadOut, status_code=201)
async def upload_dataset(request: Request, state: State) -> UploadOut:
    """Upload a dataset (multipart field ``file``) and validate it."""
    try:
        saved = await receive_upload(request, state)
    except UploadError as exc:
        raise HTTPException(exc.status, str(exc)) from None
    return _upload_out(saved, checked=True)


@router.get("/datasets/{upload_id}", response_model=UploadOut)
def get_dataset(upload_id: str, state: State) -> UploadOut:
    found = state.uploads.get(upload_id)
    if found is None:
        raise HTTPException(404, "no such upload")
    return _upload_out(found, checked=True)


@router.post("/runs", response_model=JobOut, status_code=202)
def start_run(new: NewRun, state: State) -> JobOut:
    """Start a run; follow it at /api/jobs/{id} or /api/jobs/{id}/events."""
    try:
        job = start_job(state, new)
    except ConfigError as exc:
        raise HTTPException(
            400, "; ".join(f"{p.path}: {p.message}" for p in exc.problems)
        ) from None
    return _job_out(job)


@router.post("/runs/{run_id}/resume", response_model=JobOut, status_code=202)
def resume_run(run_id: str, state: State) -> JobOut:
    """Finish a run that was interrupted: only the tests without a stored result run."""
    row = state.queries.run(run_id)
    return _job_out(state.runs.start(RunSpec(resume=row.info.id), f"resume {row.info.suite_name}"))


@router.get("/jobs/{job_id}", response_model=JobOut)
def get_job_state(job_id: str, state: State) -> JobOut:
    return _job_out(get_job(state, job_id))


@router.get("/jobs/{job_id}/events", response_class=StreamingResponse)
def job_events(job_id: str, request: Request, state: State) -> StreamingResponse:
    """Server-sent events: ``progress`` (the job, as /api/jobs/{id}) on every change, then
    ``done``."""
    return event_stream(request, get_job(state, job_id))
