"""The parts of an .xlsx (a zip archive) that python-calamine reads, inflated here first,
with bounds: at most ``MAX_PART_BYTES`` each, whatever sizes the archive claims.

calamine reads ``_rels/.rels``, ``xl/workbook.xml``, its relationships, the shared strings
and the styles when a workbook is opened, and a sheet when it is asked for; every name is
matched ignoring case. ``sheet_parts`` finds sheet n as calamine does: the n-th ``<sheet>``
of ``xl/workbook.xml``, through its relationship id. ``tabs`` counts the sheets and finds
the one the workbook opens on; ``first_visible`` finds the first sheet not hidden.
"""

from __future__ import annotations

import struct
import xml.parsers.expat
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import BinaryIO

from assay.datasets._table import fail
from assay.errors import DatasetError

MAX_PART_BYTES = 256 * 1024 * 1024
CHUNK = 1 << 20

OPENED_PARTS = (
    "_rels/.rels",
    "xl/workbook.xml",
    "xl/_rels/workbook.xml.rels",
    "xl/sharedStrings.xml",
    "xl/styles.xml",
)
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature ... file name length, extra length
_RESAVE = "open it in Excel or LibreOffice and save it again"


class Archive:
    """An open .xlsx: its zip directory and a handle to read the parts from."""

    def __init__(self, zf: zipfile.ZipFile, handle: BinaryIO, source: str, sheet: int = 0) -> None:
        self.zf = zf
        self.handle = handle
        self.source = source
        self.sheet = sheet_words(sheet)  # the sheet being read, as messages name it

    def entries(self, name: str) -> list[zipfile.ZipInfo]:
        """Every entry called ``name``, ignoring case (a hostile archive may hold two)."""
        wanted = name.casefold()
        return [info for info in self.zf.infolist() if info.filename.casefold() == wanted]

    def inflate(self, info: zipfile.ZipInfo) -> Iterator[bytes]:
        """The entry's bytes, chunk by chunk: the whole compressed stream is inflated, as
        calamine's zip reader does, not the size the directory claims."""
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise self.fail(
                f"{info.filename} is compressed with method {info.compress_type}, which Excel "
                f"never writes: {_RESAVE}"
            )
        self.handle.seek(info.header_offset)
        header = self.handle.read(_LOCAL_HEADER.size)
        if len(header) < _LOCAL_HEADER.size or not header.startswith(b"PK\x03\x04"):
            raise self.fail(f"the zip entry {info.filename} is damaged: {_RESAVE}")
        _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        self.handle.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        stored = info.compress_type == zipfile.ZIP_STORED
        left, total = info.compress_size, 0
        while left > 0:
            raw = self.handle.read(min(left, CHUNK))
            if not raw:
                break
            left -= len(raw)
            pending = raw
            while pending:
                if stored:
                    data, pending = pending, b""
                else:
                    try:
                        data = inflater.decompress(pending, CHUNK)
                    except zlib.error:
                        raise self.fail(
                            f"the zip entry {info.filename} is damaged: {_RESAVE}"
                        ) from None
                    pending = inflater.unconsumed_tail
                total += len(data)
                if total > MAX_PART_BYTES:
                    raise self.fail(
                        f"{info.filename} inflates to more than {MAX_PART_BYTES >> 20} MiB, the "
                        "most assay reads from one part of a workbook: split the dataset into "
                        "smaller files (or save it as CSV, which is read as a stream)"
                    )
                if data:
                    yield data

    def parse(
        self,
        info: zipfile.ZipInfo,
        start: Callable[[str, dict[str, str]], None],
        end: Callable[[str], None] | None = None,
        text: Callable[[str], None] | None = None,
    ) -> None:
        """Stream the entry through expat, calling ``start(name, attributes)`` and
        ``end(name)`` for each element, and ``text(data)`` for the text between them. A
        DOCTYPE is refused: no part of a workbook has one, and it is how XML entity bombs
        are declared."""
        parser = xml.parsers.expat.ParserCreate()
        parser.StartElementHandler = start
        if end is not None:
            parser.EndElementHandler = end
        if text is not None:
            parser.CharacterDataHandler = text
        parser.StartDoctypeDeclHandler = self._no_doctype(info)
        try:
            for chunk in self.inflate(info):
                parser.Parse(chunk, False)
            parser.Parse(b"", True)
        except xml.parsers.expat.ExpatError as exc:
            reason = xml.parsers.expat.errors.messages[exc.code]
            raise self.fail(
                f"{info.filename} is not well-formed XML ({reason} at line {exc.lineno}): {_RESAVE}"
            ) from None

    def _no_doctype(self, info: zipfile.ZipInfo) -> Callable[..., None]:
        def refuse(*_: object) -> None:
            raise self.fail(f"{info.filename} declares a DOCTYPE, which no workbook has: {_RESAVE}")

        return refuse

    def fail(self, message: str) -> DatasetError:
        return fail(self.source, message)


def sheet_words(index: int) -> str:
    """Sheet ``index`` (0-based) as a message names it: ``the first sheet``, ``sheet 2``."""
    return "the first sheet" if index == 0 else f"sheet {index + 1}"


def local_name(name: str) -> str:
    """``x:c`` → ``c``: the name without its prefix, split at the first colon as calamine's
    XML reader does."""
    return name.split(":", 1)[-1]


def sheet_parts(archive: Archive, index: int = 0) -> list[zipfile.ZipInfo]:
    """The entries calamine reads as sheet ``index`` (0 is the first); when the workbook does
    not say (calamine will then refuse it), every worksheet, so nothing unchecked is ever
    loaded."""
    targets: dict[str, str] = {}
    sheet_ids: list[str | None] = []

    def relationship(name: str, attrs: dict[str, str]) -> None:
        if local_name(name) == "Relationship":
            targets[attrs.get("Id", "")] = attrs.get("Target", "")  # the last one wins

    def sheet(name: str, attrs: dict[str, str]) -> None:
        if local_name(name) == "sheet":
            ids = [value for key, value in attrs.items() if key in ("r:id", "relationships:id")]
            sheet_ids.append(ids[-1] if ids else None)  # the last one wins, as in calamine

    for info in archive.entries("xl/_rels/workbook.xml.rels"):
        archive.parse(info, relationship)
    for info in archive.entries("xl/workbook.xml"):
        archive.parse(info, sheet)
    target = targets.get(sheet_ids[index] or "") if index < len(sheet_ids) else None
    if target:
        if target.startswith("/xl/"):
            path = target[1:]
        elif target.startswith("xl/"):
            path = target
        else:
            path = f"xl/{target}"
        found = archive.entries(path)
        if found:
            return found
    return [
        info
        for info in archive.zf.infolist()
        if info.filename.casefold().startswith("xl/worksheets/") and not info.is_dir()
    ]


def _sheets(archive: Archive) -> tuple[list[str], int]:
    """The ``state`` of each ``<sheet>`` the workbook lists (``visible`` when it says none;
    ``hidden``, ``veryHidden``), and the index of the one it opens on: the ``activeTab`` of
    its first ``<workbookView>``, 0 when it has none, as openpyxl reads it."""
    states: list[str] = []
    active: list[int] = []

    def start(name: str, attrs: dict[str, str]) -> None:
        local = local_name(name)
        if local == "sheet":
            states.append(attrs.get("state", "visible"))
        elif local == "workbookView" and not active:
            tab = attrs.get("activeTab", "0")
            active.append(int(tab) if tab.isdigit() else 0)

    for info in archive.entries("xl/workbook.xml"):
        archive.parse(info, start)
    return states, active[0] if active else 0


def tabs(archive: Archive) -> tuple[int, int]:
    """(how many ``<sheet>`` the workbook lists, the index of the one it opens on)."""
    states, active = _sheets(archive)
    return len(states), active


def first_visible(archive: Archive) -> int | None:
    """The index of the first sheet not hidden (0 when the workbook lists none: calamine
    then says what is wrong); None when every sheet is hidden."""
    states, _ = _sheets(archive)
    if not states:
        return 0
    return next((i for i, state in enumerate(states) if state == "visible"), None)
