"""A file as the suite names it (``FileRef``) and as it was read (``Attachment``)."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

ReadAs = Literal["text", "binary"]
# how a file was read: as UTF-8 text, its PDF text, its sheets as Markdown tables, as an
# image, or as bytes sent unread
HowRead = Literal["text", "pdf", "xlsx", "image", "binary"]


@dataclass(frozen=True)
class FileRef:
    """``path`` resolved against the suite's (or the dataset's) folder; ``written`` as the
    user wrote it, for messages; ``where`` the field path or row it came from in
    ``source``."""

    path: Path
    written: str
    source: str  # the suite or dataset file, for messages
    where: str
    mime_type: str | None = None
    read_as: ReadAs | None = None


@dataclass(frozen=True)
class Attachment:
    """A file read for sending: ``text`` for a document (its text, a PDF's extracted text,
    a workbook's sheets as Markdown tables), ``data`` its bytes, always."""

    name: str
    path: str  # as written in the suite or the dataset
    mime_type: str
    data: bytes
    sha256: str
    how: HowRead
    text: str | None = None
    pages: int | None = None
    sheets: tuple[str, ...] | None = None

    @property
    def is_image(self) -> bool:
        return self.how == "image"

    @property
    def is_binary(self) -> bool:
        """Sent as bytes (an image, a file read as binary), not as text."""
        return self.text is None

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.mime_type};base64,{self.base64()}"

    def for_agent(self) -> dict[str, Any]:
        """What a python agent's ``files`` keyword gets."""
        return {
            "name": self.name,
            "mime_type": self.mime_type,
            "text": self.text,
            "data": self.data if self.is_binary else None,
        }

    def for_template(self) -> dict[str, Any]:
        """What an http body template's ``files`` holds: JSON, binary as base64."""
        return {
            "name": self.name,
            "mime_type": self.mime_type,
            "text": self.text,
            "base64": self.base64() if self.is_binary else None,
        }

    def record(self) -> dict[str, Any]:
        """The turn's ``processed_files`` entry: what was sent, never the content."""
        return {
            "name": self.name,
            "path": self.path,
            "mime_type": self.mime_type,
            "bytes": len(self.data),
            "sha256": self.sha256,
            "read_as": self.how,
            "pages": self.pages,
            "sheets": list(self.sheets) if self.sheets is not None else None,
            "text_chars": None if self.text is None else len(self.text),
        }
