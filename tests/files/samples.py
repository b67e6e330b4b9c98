"""Attachable files written by the tests themselves: a PDF by hand (one page per text, the
smallest valid PDF pypdf reads text from), a PNG from its chunks, an XLSX with the dataset
tests' writer, and Markdown."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

from tests.datasets.conftest import write_table


def pdf_bytes(pages: Sequence[str]) -> bytes:
    """A PDF with one line of Helvetica text on each page; the xref offsets are computed."""
    count = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    font = 3 + 2 * count
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode(),
    ]
    for i, text in enumerate(pages):
        stream = f"BT /F1 18 Tf 40 100 Td ({text}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents {4 + 2 * i} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def png_bytes(width: int = 2, height: int = 2, rgb: tuple[int, int, int] = (255, 0, 0)) -> bytes:
    """A valid RGB PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


MARKDOWN = "# Expenses policy\n\nMeals up to **40 EUR** a day are refunded.\n"
PDF_PAGES = ("Contract number 7731", "Notice period 90 days")
XLSX_ROWS = [["Taxi", 23.5], ["Hotel", 180]]


def write_samples(folder: Path) -> dict[str, Path]:
    """policy.md, contract.pdf (two pages), expenses.xlsx (one sheet), screenshot.png."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "policy.md").write_text(MARKDOWN, encoding="utf-8")
    (folder / "contract.pdf").write_bytes(pdf_bytes(PDF_PAGES))
    (folder / "screenshot.png").write_bytes(png_bytes())
    xlsx = write_table("xlsx", folder / "expenses", ["Item", "Amount"], XLSX_ROWS)
    return {
        "md": folder / "policy.md",
        "pdf": folder / "contract.pdf",
        "xlsx": xlsx,
        "png": folder / "screenshot.png",
    }
