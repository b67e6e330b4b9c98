"""Read an attached file: text as UTF-8, a PDF's text (pypdf), a workbook's sheets as
Markdown tables (python-calamine), an image as bytes. Every failure is a ``FileReadError``
whose message says what is wrong with the file and what to do."""

from __future__ import annotations

import hashlib
import io
import logging
import mimetypes
from collections.abc import Sequence

from assay.errors import DatasetError
from assay.files.model import Attachment, FileRef, HowRead

MB = 1024 * 1024
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
IMAGES = ("image/png", "image/jpeg", "image/webp", "image/gif")
# the types the issue names, whatever the platform's mimetypes table says
_BY_SUFFIX = {
    ".txt": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".csv": "text/csv",
    ".json": "application/json",
    ".pdf": "application/pdf",
    ".xlsx": XLSX,
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}


class FileReadError(ValueError):
    """A file that cannot be attached; the message is for the user."""


def mime_type_of(ref: FileRef) -> str:
    if ref.mime_type:
        return ref.mime_type
    suffix = ref.path.suffix.lower()
    guessed = _BY_SUFFIX.get(suffix) or mimetypes.guess_type(ref.path.name)[0]
    return guessed or "application/octet-stream"


def _is_text_type(mime: str) -> bool:
    return mime.startswith("text/") or mime == "application/json" or mime.endswith("+json")


def read_attachment(ref: FileRef, max_bytes: int) -> Attachment:
    """The file ``ref`` names, read for sending; raises FileReadError."""
    data = _read_bytes(ref, max_bytes)
    mime = mime_type_of(ref)

    def made(
        how: HowRead,
        text: str | None = None,
        pages: int | None = None,
        sheets: tuple[str, ...] | None = None,
    ) -> Attachment:
        return Attachment(
            name=ref.path.name,
            path=ref.written,
            mime_type=mime,
            data=data,
            sha256=hashlib.sha256(data).hexdigest(),
            how=how,
            text=text,
            pages=pages,
            sheets=sheets,
        )

    if ref.read_as == "binary":
        return made("image" if mime in IMAGES else "binary")
    if mime in IMAGES or (mime.startswith("image/") and ref.read_as is None):
        if ref.read_as == "text":
            raise FileReadError("an image has no text to read: leave out `as: text`")
        return made("image")
    if mime == "application/pdf":
        text, pages = pdf_text(data)
        return made("pdf", text, pages=pages)
    if mime == XLSX:
        text, sheets = xlsx_markdown(data, ref.written)
        return made("xlsx", text, sheets=sheets)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if ref.read_as == "text" or _is_text_type(mime):
            raise FileReadError(
                f"it is not UTF-8 text (byte {exc.start + 1}): save it as UTF-8, or send it "
                "as bytes with `as: binary`"
            ) from None
        return made("binary")
    return made("text", text)


def _read_bytes(ref: FileRef, max_bytes: int) -> bytes:
    path = ref.path
    if not path.exists():
        raise FileReadError(f"file not found (looked for {path})")
    if not path.is_file():
        raise FileReadError(f"{path} is not a file")
    size = path.stat().st_size
    if size > max_bytes:
        raise FileReadError(
            f"the file is {_size(size)}, over the limit of {_size(max_bytes)}: attach a smaller "
            "file, or raise execution.max_file_mb (--max-file-mb)"
        )
    try:
        return path.read_bytes()
    except OSError as exc:
        raise FileReadError(f"cannot read it: {exc.strerror or exc}") from None


def _size(count: int) -> str:
    return f"{count / MB:.1f} MB" if count >= MB else f"{count:,} bytes"


def pdf_text(data: bytes) -> tuple[str, int]:
    """A PDF's text, page by page (pages separated by a blank line), and its page count."""
    from pypdf import PdfReader  # only suites that attach a PDF pay for the import

    # pypdf logs what it repairs ("EOF marker not found") to stderr; a damaged PDF gets
    # assay's one message instead, and a repaired one needs none
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FileReadError("the PDF is encrypted: attach a copy without a password")
        pages = [page.extract_text() or "" for page in reader.pages]
    except FileReadError:
        raise
    except Exception as exc:  # pypdf raises many kinds on a damaged file
        raise FileReadError(
            f"cannot read it as a PDF ({type(exc).__name__}: {exc}): is it a valid PDF? "
            "If it is another kind of file, give its mime_type"
        ) from None
    return "\n\n".join(page.strip() for page in pages), len(pages)


def xlsx_markdown(data: bytes, written: str) -> tuple[str, tuple[str, ...]]:
    """Each sheet of a workbook (its bytes, as read and hashed once) as a Markdown table
    under its name; and the sheet names."""
    from python_calamine import CalamineError, CalamineWorkbook

    from assay.datasets._table import cell_text
    from assay.datasets._xlsx_guard import check_workbook

    try:
        check_workbook(data, written)  # a zip bomb is refused before calamine opens it
        with CalamineWorkbook.from_filelike(io.BytesIO(data)) as workbook:
            names = tuple(workbook.sheet_names)
            parts = []
            for name in names:
                rows = workbook.get_sheet_by_name(name).to_python()
                cells = [[cell_text(value) for value in row] for row in rows]
                parts.append(f"## {name}\n\n{markdown_table(cells)}")
    except DatasetError as exc:
        raise FileReadError("; ".join(p.message for p in exc.problems)) from None
    except (CalamineError, OSError, ValueError, OverflowError) as exc:
        raise FileReadError(f"cannot read it as an Excel workbook (.xlsx): {exc}") from None
    return "\n\n".join(parts), names


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows as a Markdown table, the first row its header; ``(empty sheet)`` without rows."""
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if not rows:
        return "(empty sheet)"
    width = max(len(row) for row in rows)

    def line(row: Sequence[str]) -> str:
        cells = [_cell(c) for c in row] + [""] * (width - len(row))
        return "| " + " | ".join(cells) + " |"

    return "\n".join([line(rows[0]), "|" + "---|" * width, *(line(r) for r in rows[1:])])


def _cell(text: str) -> str:
    return (
        text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "<br>").replace("\n", "<br>")
    )
