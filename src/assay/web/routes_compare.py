"""The Compare page: two runs side by side."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from assay.web._compare import compare
from assay.web._state import Dashboard, dashboard
from assay.web._templates import page

router = APIRouter(include_in_schema=False)
State = Annotated[Dashboard, Depends(dashboard)]
MATRIX_PAGE = 200
CHANGES_SHOWN = 100  # regressions (and improvements) listed in full; the matrix has them all
RUNS_OFFERED = 100


@router.get("/compare")
def compare_page(
    state: State, a: str = "", b: str = "", offset: Annotated[int, Query(ge=0)] = 0
) -> Response:
    runs, _ = state.queries.list_runs(RUNS_OFFERED)
    if not a and not b and len(runs) >= 2:
        a, b = runs[1].info.id, runs[0].info.id  # the latest run against the one before
    compared = compare(state, a, b) if a and b else None
    return page(
        "compare.html",
        nav="compare",
        runs=runs,
        a=a,
        b=b,
        compared=compared,
        offset=offset,
        limit=MATRIX_PAGE,
        shown=CHANGES_SHOWN,
    )
