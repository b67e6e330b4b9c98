"""Hand-made .xlsx files for the hostile-input tests: the zip and the XML are written here
byte by byte, so a test can put a cell anywhere, in any form, and build a zip bomb (or one
that lies about its sizes) without compressing gigabytes."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_DOC_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_RELS = "http://schemas.openxmlformats.org/package/2006/relationships"
_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'

CONTENT_TYPES = (
    _XML + '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" '
    'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
    '<Default Extension="xml" ContentType="application/xml"/></Types>'
)
ROOT_RELS = (
    _XML + f'<Relationships xmlns="{_PKG_RELS}"><Relationship Id="rId1" '
    f'Type="{_DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>'
)
WORKBOOK = (
    _XML + f'<workbook xmlns="{MAIN}" xmlns:r="{_DOC_RELS}"><sheets>'
    '<sheet name="Tests" sheetId="1" r:id="rId1"/></sheets></workbook>'
)
WORKBOOK_RELS = (
    _XML + f'<Relationships xmlns="{_PKG_RELS}"><Relationship Id="rId1" '
    f'Type="{_DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>'
)
SHEET = "xl/worksheets/sheet1.xml"
SHEET_HEAD = _XML + f'<worksheet xmlns="{MAIN}"><sheetData>'
SHEET_TAIL = "</sheetData></worksheet>"


def text_cell(ref: str, text: str) -> str:
    """A cell holding ``text``, as an inline string (no shared-strings table needed)."""
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def row(number: int, *cells: str) -> str:
    return f'<row r="{number}">{"".join(cells)}</row>'


HEADER_AND_ONE_ROW = row(1, text_cell("A1", "Question")) + row(2, text_cell("A2", "hi"))


def sheet(rows: str) -> str:
    return SHEET_HEAD + rows + SHEET_TAIL


def write_xlsx(path: Path, sheet_xml: str | bytes, **parts: str | bytes) -> Path:
    """A workbook whose first sheet is ``sheet_xml``; ``parts`` adds or replaces entries
    (``xl/sharedStrings.xml`` as ``xl_sharedStrings``: ``/`` → ``_``, extension dropped)."""
    entries: dict[str, str | bytes] = {
        "[Content_Types].xml": CONTENT_TYPES,
        "_rels/.rels": ROOT_RELS,
        "xl/workbook.xml": WORKBOOK,
        "xl/_rels/workbook.xml.rels": WORKBOOK_RELS,
        SHEET: sheet_xml,
    }
    for key, value in parts.items():
        entries[key.replace("_", "/", 1) + ".xml"] = value
    _write_zip(path, [_deflated(name, data) for name, data in entries.items()])
    return path


def write_bomb(path: Path, part: str, mebibytes: int, *, lie: bool = False) -> Path:
    """A workbook whose ``part`` inflates to ``mebibytes`` MiB: one text value of that many
    ``A``s (a few KiB compressed, built without compressing it). With ``lie``, the zip
    claims the part is only its first and last few bytes, with their CRC."""
    if part == SHEET:
        head, tail = SHEET_HEAD + '<row r="1"><c r="A1" t="inlineStr"><is><t>', "</t></is></c>"
        tail += "</row>" + SHEET_TAIL
    else:  # the shared strings
        head, tail = f'{_XML}<sst xmlns="{MAIN}"><si><t>', "</t></si></sst>"
    block = b"A" * (1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    start = deflate.compress(head.encode()) + deflate.flush(zlib.Z_FULL_FLUSH)
    repeat = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    end = deflate.compress(tail.encode()) + deflate.flush()
    data = start + repeat * mebibytes + end  # after a full flush each block compresses alike
    crc = zlib.crc32(head.encode())
    for _ in range(mebibytes):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail.encode(), crc)
    size = len(head) + len(block) * mebibytes + len(tail)
    if lie:
        crc, size = zlib.crc32((head + tail).encode()), len(head) + len(tail)
    others = {
        "[Content_Types].xml": CONTENT_TYPES,
        "_rels/.rels": ROOT_RELS,
        "xl/workbook.xml": WORKBOOK,
        "xl/_rels/workbook.xml.rels": WORKBOOK_RELS,
    }
    if part != SHEET:
        others[SHEET] = sheet(HEADER_AND_ONE_ROW)
    entries = [_deflated(name, text) for name, text in others.items()]
    _write_zip(path, [*entries, (part, data, crc, size)])
    return path


def _deflated(name: str, text: str | bytes) -> tuple[str, bytes, int, int]:
    raw = text.encode() if isinstance(text, str) else text
    deflate = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    return name, deflate.compress(raw) + deflate.flush(), zlib.crc32(raw), len(raw)


def _write_zip(path: Path, entries: list[tuple[str, bytes, int, int]]) -> None:
    """A zip archive of deflated entries: (name, compressed data, CRC-32, inflated size)."""
    body, directory = bytearray(), bytearray()
    for name, data, crc, size in entries:
        encoded = name.encode()
        offset = len(body)
        body += struct.pack(
            "<4s5H3I2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc, len(data), size, len(encoded), 0
        )
        body += encoded + data
        directory += struct.pack(
            "<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc, len(data), size,
            len(encoded), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        directory += encoded
    end = struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, len(entries), len(entries), len(directory), len(body), 0
    )
    path.write_bytes(bytes(body + directory + end))
