"""How each kind of file is read, and the message for each file that cannot be."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import xlsxwriter
from pypdf import PdfWriter

from assay.files import Attachment, FileReadError, FileRef, read_attachment
from assay.files.read import markdown_table
from assay.targets.python import accepts_files
from tests.files.samples import png_bytes

LIMIT = 1024 * 1024


def _read(path: Path, **ref: str) -> Attachment:
    return read_attachment(
        FileRef(path, path.name, "suite.yaml", "tests[0].files[0]", **ref), LIMIT
    )  # type: ignore[arg-type]


def _refused(path: Path, **ref: str) -> str:
    with pytest.raises(FileReadError) as caught:
        _read(path, **ref)
    return str(caught.value)


def test_every_sheet_of_a_workbook_becomes_a_table_with_cells_escaped(tmp_path: Path) -> None:
    path = tmp_path / "book.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    first = workbook.add_worksheet("Costs")
    first.write_row(0, 0, ["Item", "Note"])
    first.write_row(1, 0, ["a|b", "two\nlines"])
    workbook.add_worksheet("Empty")
    workbook.close()
    read = _read(path)
    assert read.sheets == ("Costs", "Empty")
    assert read.text == (
        "## Costs\n\n| Item | Note |\n|---|---|\n| a\\|b | two<br>lines |\n\n"
        "## Empty\n\n(empty sheet)"
    )


def test_a_ragged_table_is_padded_to_its_widest_row() -> None:
    assert markdown_table([["a"], ["b", "c"]]) == "| a |  |\n|---|---|\n| b | c |"


def test_an_encrypted_pdf_is_refused_with_what_to_do(tmp_path: Path) -> None:
    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    writer.encrypt("secret")
    buffer = io.BytesIO()
    writer.write(buffer)
    path = tmp_path / "locked.pdf"
    path.write_bytes(buffer.getvalue())
    assert _refused(path) == "the PDF is encrypted: attach a copy without a password"


def test_text_that_is_not_utf8_is_refused_unless_sent_as_bytes(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("café".encode("latin-1"))
    assert _refused(path).startswith("it is not UTF-8 text (byte 4): save it as UTF-8")
    read = _read(path, read_as="binary")
    assert (read.how, read.text, read.data) == ("binary", None, "café".encode("latin-1"))


def test_an_unknown_type_is_text_when_it_decodes_and_bytes_when_not(tmp_path: Path) -> None:
    notes, blob = tmp_path / "notes.log2", tmp_path / "blob.bin2"
    notes.write_text("plain words", encoding="utf-8")
    blob.write_bytes(b"\xff\xfe\x00\x81")
    assert (_read(notes).how, _read(notes).text) == ("text", "plain words")
    assert (_read(blob).how, _read(blob).mime_type) == ("binary", "application/octet-stream")


def test_an_image_has_no_text_and_a_folder_is_not_a_file(tmp_path: Path) -> None:
    image = tmp_path / "shot.png"
    image.write_bytes(png_bytes())
    assert _refused(image, read_as="text") == "an image has no text to read: leave out `as: text`"
    assert _refused(tmp_path) == f"{tmp_path} is not a file"


def test_an_agent_takes_files_by_keyword_or_kwargs() -> None:
    def with_files(query: str, session_id: str, files: object = None) -> str:
        return ""

    def with_kwargs(query: str, session_id: str, **options: object) -> str:
        return ""

    def plain(query: str, session_id: str) -> str:
        return ""

    assert [accepts_files(f) for f in (with_files, with_kwargs, plain)] == [True, True, False]
