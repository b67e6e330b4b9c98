"""The Datasets page: upload a file, Validate it, read its shape and preview."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser

from assay.web._check import check_dataset
from assay.web._state import Dashboard, dashboard
from assay.web._templates import page
from assay.web._uploads import Upload, UploadError, too_large

router = APIRouter(include_in_schema=False)
State = Annotated[Dashboard, Depends(dashboard)]
SLACK_BYTES = 64 * 1024  # the multipart envelope around the file


async def read_form(request: Request, max_bytes: int) -> FormData:
    """The posted form, read no further than ``max_bytes`` (plus the envelope): a body that
    says it is bigger, or turns out to be, is refused before it fills the disk."""
    limit = max_bytes + SLACK_BYTES
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(max_bytes)

    async def limited() -> AsyncGenerator[bytes, None]:
        seen = 0
        async for chunk in request.stream():
            seen += len(chunk)
            if seen > limit:
                raise too_large(max_bytes)
            yield chunk

    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise UploadError("send the file as multipart/form-data (field 'file')")
    try:
        return await MultiPartParser(request.headers, limited(), max_files=1, max_fields=8).parse()
    except MultiPartException as exc:
        raise UploadError(f"the upload could not be read: {exc.message}") from None


async def receive_upload(request: Request, state: Dashboard) -> Upload:
    """Store the file posted as ``file``; raises UploadError."""
    form = await read_form(request, state.settings.max_upload_bytes)
    try:
        file = form.get("file")
        if not isinstance(file, UploadFile) or not file.filename:
            raise UploadError("choose a file to upload (field 'file')")
        return state.uploads.save(file.filename, file.file)
    finally:
        await form.close()


@router.get("/datasets")
def datasets_page(state: State) -> Response:
    return page(
        "datasets.html",
        nav="datasets",
        uploads=state.uploads.list(),
        error=None,
        max_mb=state.settings.max_upload_bytes >> 20,
    )


@router.post("/datasets")
async def upload(request: Request, state: State) -> Response:
    def refuse(message: str, status: int) -> Response:
        return page(
            "datasets.html",
            status_code=status,
            nav="datasets",
            uploads=state.uploads.list(),
            error=message,
            max_mb=state.settings.max_upload_bytes >> 20,
        )

    try:
        saved = await receive_upload(request, state)
    except UploadError as exc:
        return refuse(str(exc), exc.status)
    return RedirectResponse(f"/datasets/{saved.id}", status_code=303)


@router.get("/datasets/{upload_id}")
def dataset_page(upload_id: str, state: State) -> Response:
    found = state.uploads.get(upload_id)
    if found is None:
        raise HTTPException(404, "no such upload")
    return page(
        "dataset.html",
        nav="datasets",
        upload=found,
        check=check_dataset(found.path, found.name),
    )
