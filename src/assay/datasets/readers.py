"""Streaming readers: a dataset file as a header and an iterator of rows of text cells.

Each format lives in its own module (``_read_csv``, ``_read_xlsx``, ``_read_jsonl``), on
what ``_table`` defines; this module picks one by extension. Rows are never loaded all at
once: ``Table.rows`` is consumed while the file is open.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from assay.datasets._table import Table, fail

__all__ = ["SUPPORTED_EXTENSIONS", "Table", "fail", "open_table"]

SUPPORTED_EXTENSIONS = (".csv", ".xlsx", ".jsonl")


def open_table(path: Path, source: str) -> AbstractContextManager[Table]:
    """Open ``path`` with the reader its extension names; ``source`` names it in errors."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_EXTENSIONS:
        shown = suffix or "no extension"
        raise fail(
            source,
            f"unsupported file type ({shown}): a dataset must be "
            + ", ".join(SUPPORTED_EXTENSIONS[:-1])
            + f" or {SUPPORTED_EXTENSIONS[-1]}",
        )
    if not path.exists():
        raise fail(source, "file not found: check the path")
    if path.is_dir():
        raise fail(source, "is a directory, not a dataset file")
    if suffix == ".csv":
        from assay.datasets._read_csv import open_csv

        return open_csv(path, source)
    if suffix == ".xlsx":
        from assay.datasets._read_xlsx import open_xlsx

        return open_xlsx(path, source)
    from assay.datasets._read_jsonl import open_jsonl

    return open_jsonl(path, source)
