"""Benchmark ``validate_dataset``: wall time and peak memory on large generated files.

Generates, in a temporary directory, single-turn CSV files of 250,000 and 1,000,000 rows and
XLSX files of 25,000 and 100,000 rows (xlsxwriter, constant_memory), plus a 1,000,000-row
multi-turn CSV, then validates each in a fresh subprocess and prints its wall time, its
peak RSS (``resource.getrusage``, which includes python-calamine's Rust allocations) and the
peak RSS of the same subprocess doing nothing but importing assay (the baseline). Two sizes
per format show whether memory grows with the file.

    .venv/bin/python bench/bench_validate.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HEADER = ["Question", "Answer", "context", "expected_tool_calls", "Notes"]
TOOLS = '[{"name": "search_hotels", "arguments": {"location": "Basel", "nights": 7}}]'


def _row(i: int) -> list[str]:
    return [
        f"What is the cheapest hotel in city number {i}?",
        f"Hotel {i % 97} at {i % 300 + 50} CHF per night",
        f"Hotels in city {i}: Holiday Inn, Hyatt, Hilton." if i % 3 == 0 else "",
        TOOLS if i % 2 == 0 else "",
        "generated",
    ]


def write_csv(path: Path, rows: int, multi_turn: bool = False) -> None:
    import csv

    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow((["session_id", "turn_id"] if multi_turn else []) + HEADER)
        for i in range(rows):
            prefix = [f"s{i // 4}", str(4 - i % 4)] if multi_turn else []
            writer.writerow(prefix + _row(i))


def write_xlsx(path: Path, rows: int) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path), {"constant_memory": True})
    sheet = book.add_worksheet()
    sheet.write_row(0, 0, HEADER)
    for i in range(rows):
        sheet.write_row(i + 1, 0, _row(i))
    book.close()


_CHILD = """
import csv, json, resource, sys, time
path, mode = sys.argv[1], sys.argv[2]
from assay.datasets import validate_dataset

def raw():  # the ideal: the bare reader's loop, nothing checked
    if path.endswith(".csv"):
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return sum(1 for _ in csv.reader(handle))
    from python_calamine import CalamineWorkbook
    with CalamineWorkbook.from_path(path) as book:
        return sum(1 for _ in book.get_sheet_by_index(0).iter_rows())

start = time.perf_counter()
shape = "" if mode == "import" else raw() if mode == "raw" else validate_dataset(path).shape_line()
seconds = time.perf_counter() - start
rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": seconds, "rss_mib": rss_kib / 1024, "shape": shape}))
"""


def measure(path: str, mode: str) -> dict[str, Any]:
    """Run ``mode`` (validate, raw, import) on ``path`` in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, path, mode], check=True, capture_output=True, text=True
    ).stdout
    result: dict[str, Any] = json.loads(out)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one tenth of the sizes")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    cases = [
        ("csv", 250_000 // scale, False),
        ("csv", 1_000_000 // scale, False),
        ("csv", 1_000_000 // scale, True),
        ("xlsx", 25_000 // scale, False),
        ("xlsx", 100_000 // scale, False),
    ]
    cpu = platform.processor() or platform.machine()
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    base = measure("-", "import")["rss_mib"]
    print(f"baseline: peak RSS {base:.0f} MiB after importing assay.datasets")
    print(
        f"{'file':<32} {'size':>8} {'seconds':>8} {'rows/s':>9} {'x ideal':>8} "
        f"{'peak RSS':>9} {'over baseline':>14}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for ext, rows, multi in cases:
            kind = "multi" if multi else "single"
            path = Path(tmp) / f"{kind}-{rows}.{ext}"
            write_csv(path, rows, multi) if ext == "csv" else write_xlsx(path, rows)
            result = measure(str(path), "validate")
            ideal = measure(str(path), "raw")
            seconds, rss = result["seconds"], result["rss_mib"]
            name = f"{rows:,} rows, {kind}-turn .{ext}"
            print(
                f"{name:<32} {path.stat().st_size / 2**20:>4.0f} MiB {seconds:>8.2f} "
                f"{rows / seconds:>9,.0f} {seconds / ideal['seconds']:>7.1f}x "
                f"{rss:>5.0f} MiB {max(rss - base, 0):>10.0f} MiB"
            )
            print(f"    {result['shape']}")
    print("x ideal: validate time / time of the bare reader loop (csv.reader or iter_rows)")


if __name__ == "__main__":
    main()
