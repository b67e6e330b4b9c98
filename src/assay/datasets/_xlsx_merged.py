"""Merged cells below an XLSX header, read as a spreadsheet shows them: the value of a merged
range's top-left cell in every cell the range covers.

A workbook keeps a merged range's value in its top-left cell only; the other cells are blank
in the file, though the screen shows the value across the whole range. A ``session_id``
merged over the rows of one conversation, or an Answer merged over two turns, would
otherwise read as blank below its first row: a conversation split into single turns, a turn
run with no Answer, and nothing said. So each covered cell of a named column takes the
top-left value, and ``assay validate`` names the ranges that were filled (one warning).

A row none of whose own cells holds a value stays blank (skipped): it is the lower part of a
merged cell drawn tall, not a test. Columns with no name in the header row are not filled
(their values are ignored anyway). Merged ranges that overlap, which no spreadsheet program
writes, are refused: which value a cell shows is then undefined. The number of ranges is
bounded by ``_xlsx_guard.MAX_MERGED``; the work per row by the number of named columns.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from assay._words import counted
from assay.datasets._table import column_letters, fail

Span = tuple[tuple[int, int], tuple[int, int]]  # ((top, left), (bottom, right)), 0-based

SHOWN = 3  # ranges named in the warning


def merged_filled(
    rows: Iterator[tuple[int, list[str]]],
    merged: Sequence[Span],
    header_number: int,
    first_column: int,
    width: int,
    source: str,
    warnings: list[str],
) -> Iterator[tuple[int, list[str]]]:
    """``rows`` (the rows after the header, numbered as the spreadsheet numbers them) with
    the ranges of ``merged`` below the header filled across the first ``width`` columns;
    a warning naming the ranges filled is appended to ``warnings`` once ``rows`` ends."""
    starts = _starts(merged, header_number, first_column, width)
    if not starts:
        return rows
    return _fill(rows, starts, width, source, warnings)


# (first, last, bottom, ref): cell indexes first..last, down to row number bottom
_Range = tuple[int, int, int, str]


def _starts(
    merged: Sequence[Span], header_number: int, first_column: int, width: int
) -> dict[int, list[_Range]]:
    """The ranges that can fill a cell, by the row number they start on."""
    starts: dict[int, list[_Range]] = {}
    for (top, left), (bottom, right) in dict.fromkeys(merged):  # a range given twice: once
        first, last = left - first_column, min(right - first_column, width - 1)
        # above the header (blank: the header is the first row with a value), from a column
        # left of the table (its top-left cell is blank) or right of the named ones, or one
        # cell once cut to them: nothing to fill
        if top < header_number or first < 0 or first > last or (top == bottom and first == last):
            continue
        ref = f"{column_letters(left + 1)}{top + 1}:{column_letters(right + 1)}{bottom + 1}"
        starts.setdefault(top + 1, []).append((first, last, bottom + 1, ref))
    return starts


def _fill(
    rows: Iterator[tuple[int, list[str]]],
    starts: dict[int, list[_Range]],
    width: int,
    source: str,
    warnings: list[str],
) -> Iterator[tuple[int, list[str]]]:
    until = [0] * width  # the last row number each column is filled down to
    owner = [""] * width  # the range filling it, to name in an overlap
    live: list[tuple[int, int, int, int, str, str]] = []  # (top, first, last, bottom, ref, value)
    filled: dict[str, None] = {}  # ranges that filled a cell, in order
    for number, cells in rows:
        begun = starts.pop(number, None)
        if begun is not None:
            for first, last, bottom, ref in begun:
                for c in range(first, last + 1):
                    if until[c] >= number:
                        raise fail(
                            source,
                            f"merged ranges {owner[c]} and {ref} overlap, which a spreadsheet "
                            "program never writes: unmerge them (Merge & Center off) and save",
                            f"row {number}",
                        )
                    until[c], owner[c] = bottom, ref
                value = cells[first]
                if value.strip():  # a blank top-left cell shows nothing
                    live.append((number, first, last, bottom, ref, value))
        if live:
            live = [span for span in live if span[3] >= number]
        if live and any(cell.strip() for cell in cells):
            for top, first, last, _, ref, value in live:
                for c in range(first, last + 1):
                    cells[c] = value
                if number > top or last > first:  # (its top-left cell alone: not filled)
                    filled[ref] = None
        yield number, cells
    if filled:
        refs = list(filled)
        shown = ", ".join(refs[:SHOWN]) + (", ..." if len(refs) > SHOWN else "")
        warnings.append(
            f"{counted(len(refs), 'merged range')} ({shown}): every cell a range covers "
            "reads as its top-left cell, as the spreadsheet shows it (unmerge the cells and "
            "fill each one in if that is not what you meant)"
        )
