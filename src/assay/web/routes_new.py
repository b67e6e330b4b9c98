"""The New run page, and a started run's live page (server-sent events)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import RedirectResponse, Response, StreamingResponse
from pydantic import ValidationError

from assay.errors import ConfigError
from assay.web._newrun import offered_metrics, plan_new_run, suite_files
from assay.web._runs import FINAL, Job
from assay.web._state import Dashboard, dashboard
from assay.web._templates import page
from assay.web.schemas import FilePath, NewRun

router = APIRouter(include_in_schema=False)
State = Annotated[Dashboard, Depends(dashboard)]
POLL_S = 0.25  # how often a stream looks for news
HEARTBEAT_S = 15.0  # a comment line keeps idle proxies from closing the stream


def _form_page(
    state: Dashboard, values: NewRun, problems: list[str], status: int = 200
) -> Response:
    return page(
        "new.html",
        status_code=status,
        nav="new",
        uploads=state.uploads.list(),
        suites=suite_files(state.settings.root),
        metrics=offered_metrics(),
        values=values,
        problems=problems,
    )


@router.get("/new")
def new_page(state: State, dataset: str = "", suite: FilePath = "") -> Response:
    values = NewRun(
        source="suite" if suite and not dataset else "dataset",
        dataset_id=dataset,
        suite_path=suite,
        target="suite" if suite and not dataset else "demo",
    )
    return _form_page(state, values, [])


def start_job(state: Dashboard, new: NewRun) -> Job:
    """Start the run the form describes; raises ConfigError naming the field."""
    spec, label = plan_new_run(new, state.settings.root, state.uploads)
    return state.runs.start(spec, label)


@router.post("/new")
async def new_run(request: Request, state: State) -> Response:
    form = await request.form()
    raw: dict[str, object] = {
        k: v for k, v in form.items() if k != "metrics" and isinstance(v, str)
    }
    raw["metrics"] = [m for m in form.getlist("metrics") if isinstance(m, str)]
    if raw.get("concurrency") == "":
        raw.pop("concurrency")
    try:
        values = NewRun.model_validate(raw)
    except ValidationError as exc:
        problems = [
            f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)
        ]
        return _form_page(state, NewRun(source="dataset"), problems, 400)
    try:
        job = start_job(state, values)
    except ConfigError as exc:
        return _form_page(state, values, [p.message for p in exc.problems], 400)
    return RedirectResponse(f"/jobs/{job.id}", status_code=303)


def get_job(state: Dashboard, job_id: str) -> Job:
    job = state.runs.get(job_id)
    if job is None:
        raise HTTPException(404, "no such run was started by this server (it may have restarted)")
    return job


@router.get("/jobs/{job_id}")
def job_page(job_id: str, state: State) -> Response:
    job = get_job(state, job_id)
    return page("job.html", nav="new", job=job.snapshot())


async def job_events(request: Request, job: Job) -> AsyncIterator[str]:
    """The job's state as server-sent events, each time it changes, until it finishes."""
    sent = -1
    beat = time.monotonic()
    while True:
        snapshot = job.snapshot()
        if snapshot["version"] != sent:
            sent = snapshot["version"]
            beat = time.monotonic()
            yield f"event: progress\ndata: {json.dumps(snapshot)}\n\n"
            if snapshot["status"] in FINAL:
                yield "event: done\ndata: {}\n\n"
                return
        elif time.monotonic() - beat > HEARTBEAT_S:
            beat = time.monotonic()
            yield ": waiting\n\n"
        if await request.is_disconnected():
            return
        await asyncio.sleep(POLL_S)


def event_stream(request: Request, job: Job) -> StreamingResponse:
    return StreamingResponse(
        job_events(request, job),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


@router.get("/jobs/{job_id}/events")
def job_stream(job_id: str, request: Request, state: State) -> StreamingResponse:
    return event_stream(request, get_job(state, job_id))
