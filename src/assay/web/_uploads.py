"""Uploaded dataset files: stored under the store's folder, one folder each, with a size
limit; only ever read by the dataset readers (never executed, never served back)."""

from __future__ import annotations

import re
import shutil
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from assay.datasets import SUPPORTED_EXTENSIONS

CHUNK = 1 << 20
LISTED = 100  # uploads listed, newest first
_ID = re.compile(r"^[0-9a-f]{12}$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


class UploadError(ValueError):
    """An upload refused: the message says why and what to do; ``status`` is the HTTP one."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def too_large(max_bytes: int) -> UploadError:
    return UploadError(
        f"the file is larger than {max_bytes >> 20} MiB: validate it with "
        "`assay validate FILE` and run it with `assay run --dataset FILE`",
        status=413,
    )


@dataclass(frozen=True)
class Upload:
    id: str
    name: str  # the file name as stored (made safe), which names its tests
    path: Path
    size: int
    uploaded_at: str


def safe_name(filename: str) -> str:
    """A file name that is only a name: no folders, no leading dots, plain characters, with
    one of the dataset extensions. Raises UploadError for any other extension."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = base.rpartition(".")
    ext = "." + ext.lower() if dot else ""
    if ext not in SUPPORTED_EXTENSIONS:
        raise UploadError(
            f"{ext or 'no extension'}: upload a dataset file ("
            + ", ".join(SUPPORTED_EXTENSIONS)
            + ")"
        )
    stem = _UNSAFE.sub("_", stem).strip("._-")[:80] or "dataset"
    return stem + ext


class Uploads:
    def __init__(self, folder: Path, max_bytes: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes

    def save(self, filename: str, data: BinaryIO) -> Upload:
        """Store an uploaded file; raises UploadError when it is too big or not a dataset."""
        name = safe_name(filename)
        upload_id = uuid.uuid4().hex[:12]
        folder = self.folder / upload_id
        folder.mkdir(parents=True, exist_ok=False)
        path = folder / name
        size = 0
        try:
            with path.open("xb") as out:
                while chunk := data.read(CHUNK):
                    size += len(chunk)
                    if size > self.max_bytes:
                        raise too_large(self.max_bytes)
                    out.write(chunk)
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        path.chmod(0o600)
        return self._upload(upload_id, path)

    def get(self, upload_id: str) -> Upload | None:
        """The upload with this id; None for an unknown or malformed id."""
        if not _ID.match(upload_id):
            return None
        folder = (self.folder / upload_id).resolve()
        if not folder.is_dir() or folder.parent != self.folder.resolve():
            return None
        files = [
            p
            for p in folder.iterdir()
            if p.suffix.lower() in SUPPORTED_EXTENSIONS and p.is_file() and not p.is_symlink()
        ]
        return self._upload(upload_id, files[0]) if len(files) == 1 else None

    def list(self) -> list[Upload]:
        if not self.folder.is_dir():
            return []
        found = [u for p in self.folder.iterdir() if (u := self.get(p.name)) is not None]
        found.sort(key=lambda u: u.uploaded_at, reverse=True)
        return found[:LISTED]

    @staticmethod
    def _upload(upload_id: str, path: Path) -> Upload:
        stat = path.stat()
        when = datetime.fromtimestamp(stat.st_mtime, UTC).isoformat(timespec="seconds")
        return Upload(upload_id, path.name, path, stat.st_size, when)
