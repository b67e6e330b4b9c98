"""The dashboard's FastAPI application: pages under ``/``, the JSON API under ``/api/``
(OpenAPI at ``/api/openapi.json``), static files under ``/static/``; all served by assay
itself, nothing from the network."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.exception_handlers import request_validation_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from assay.errors import AssayError, ConfigError
from assay.secrets import REDACTOR
from assay.store import RunNotFound, Store, open_store
from assay.store.queries import Queries
from assay.version import __version__
from assay.web._auth import Guard
from assay.web._runs import Runs
from assay.web._state import Dashboard
from assay.web._templates import page
from assay.web._uploads import Uploads
from assay.web.settings import Settings


def create_app(settings: Settings, store: Store | None = None) -> FastAPI:
    """The dashboard over ``store`` (default: open ``settings.store_url``)."""
    if settings.token:
        REDACTOR.add(settings.token)
    opened = store or open_store(settings.store_url)
    state = Dashboard(
        settings=settings,
        store=opened,
        queries=Queries(opened),
        uploads=Uploads(settings.uploads_dir, settings.max_upload_bytes),
        runs=Runs(settings.store_url, settings.root),
    )

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        if store is None:
            opened.close()

    app = FastAPI(
        title="assay dashboard",
        version=__version__,
        openapi_url="/api/openapi.json",
        docs_url=None,  # the interactive docs load their scripts from a CDN
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.dashboard = state
    app.add_middleware(Guard, token=settings.token, host=settings.host)
    static = files("assay.web").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    from assay.web import (
        routes_api,
        routes_compare,
        routes_datasets,
        routes_login,
        routes_new,
        routes_runs,
    )

    for module in (
        routes_login,
        routes_runs,
        routes_datasets,
        routes_new,
        routes_compare,
        routes_api,
    ):
        app.include_router(module.router)

    @app.exception_handler(AssayError)
    async def assay_error(request: Request, exc: AssayError) -> Response:
        status = (
            404 if isinstance(exc, RunNotFound) else 400 if isinstance(exc, ConfigError) else 503
        )
        return _error(request, status, REDACTOR(str(exc)))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> Response:
        return _error(request, exc.status_code, str(exc.detail), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        """A parameter out of range or not one of its values (422): the API's usual
        FastAPI detail; a page names each parameter and what it should be."""
        if request.url.path.startswith("/api/"):
            return await request_validation_exception_handler(request, exc)
        said = "; ".join(f"{e['loc'][-1]}: {e['msg']}" for e in exc.errors())
        return _error(request, 422, said)

    return app


def _error(
    request: Request, status: int, message: str, headers: dict[str, str] | None = None
) -> Response:
    """JSON for the API, a page for a person."""
    if request.url.path.startswith("/api/"):
        return JSONResponse({"detail": message}, status_code=status, headers=headers)
    return page("error.html", status_code=status, message=message, nav="")
