"""The Runs, Run and Test pages."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import RedirectResponse, Response

from assay.reporters.html import goal_trace
from assay.store.queries import ResultFilter
from assay.web._chart import build_chart
from assay.web._params import STATUSES, Offset, in_store, result_filter, stored_result
from assay.web._runs import RunSpec
from assay.web._state import Dashboard, dashboard
from assay.web._templates import page

router = APIRouter(include_in_schema=False)
HISTORY = 30  # runs in the chart
State = Annotated[Dashboard, Depends(dashboard)]


@router.get("/")
def home() -> Response:
    return RedirectResponse("/runs", status_code=303)


@router.get("/runs")
def runs_page(state: State, suite: str = "", offset: Offset = 0) -> Response:
    limit = state.settings.page_size
    rows, total = state.queries.list_runs(limit, offset, suite)
    suites = state.queries.suites()
    charted = suite or (rows[0].info.suite_name if rows else "")
    history = state.queries.history(charted, HISTORY) if charted else []
    return page(
        "runs.html",
        nav="runs",
        rows=rows,
        total=total,
        offset=offset,
        limit=limit,
        suites=suites,
        suite=suite,
        charted=charted,
        chart=build_chart(history),
        jobs=state.runs,
    )


@router.get("/runs/{run_id}")
def run_page(
    run_id: str,
    state: State,
    flt: Annotated[ResultFilter, Depends(result_filter)],
    offset: Offset = 0,
) -> Response:
    row = state.queries.run(run_id)
    run = row.info
    limit = state.settings.page_size
    results = state.queries.results(run.id, flt, offset, limit)
    facets = state.run_facets(run.id, finished=run.status != "running")
    params = {
        "status": flt.status,
        "type": flt.test_type,
        "metric": flt.metric,
        "metric_failed": "1" if flt.metric_failed else "",
        "tag": flt.tag,
        "q": flt.text,
    }
    return page(
        "run.html",
        nav="runs",
        row=row,
        run=run,
        summary=row.summary,
        results=results,
        facets=facets,
        flt=flt,
        params=params,
        statuses=STATUSES,
        job=state.runs.for_run(run.id),
    )


@router.get("/runs/{run_id}/tests/{test_id}")
def test_page(run_id: str, test_id: int, state: State) -> Response:
    row, result = stored_result(state, run_id, test_id)
    return page(
        "test.html",
        nav="runs",
        run=row.info,
        result=result,
        trace=goal_trace(result.trace),
        test_id=test_id,
    )


@router.get("/runs/{run_id}/find")
def find_test(run_id: str, name: str, state: State, repeat: int = 0) -> Response:
    """A test by name (the compare page links here: ids differ from run to run)."""
    row = state.queries.run(run_id)
    test_id = state.queries.result_id(row.info.id, name, repeat) if in_store(repeat) else None
    if test_id is None:
        raise HTTPException(404, f"run {row.info.id[:12]} has no test of that name")
    return RedirectResponse(f"/runs/{row.info.id}/tests/{test_id}", status_code=303)


@router.post("/runs/{run_id}/resume")
def resume(run_id: str, state: State) -> Response:
    row = state.queries.run(run_id)
    job = state.runs.start(RunSpec(resume=row.info.id), f"resume {row.info.suite_name}")
    return RedirectResponse(f"/jobs/{job.id}", status_code=303)
