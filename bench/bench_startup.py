"""Benchmark start-up: how long a command takes before it does anything.

Times, as whole processes (medians of --repeat runs, interleaved): ``python -c pass`` (the
interpreter alone), ``python -c "import assay.cli"``, ``assay --help`` and ``assay validate``
of a two-row CSV, and the import time of ``assay.cli`` as ``python -X importtime`` reports it.

    python bench/bench_startup.py              # medians of 5
    python bench/bench_startup.py --repeat 9
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PYTHON = sys.executable
ASSAY = str(Path(sys.executable).parent / "assay")


def wall(args: list[str], cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - started


def import_time(module: str, cwd: str) -> float:
    """Seconds ``-X importtime`` gives ``module`` (cumulative, what it imported included)."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", f"import {module}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    [last] = [line for line in done.stderr.splitlines() if line.split("|")[-1].strip() == module]
    return int(last.split("|")[1]) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.csv"
        data.write_text("Question,Answer\nwhat is 6 x 7?,42\nand 2 + 2?,4\n", encoding="utf-8")
        cases = {
            "python -c pass": lambda: wall([PYTHON, "-c", "pass"], tmp),
            "python -c 'import assay.cli'": lambda: wall([PYTHON, "-c", "import assay.cli"], tmp),
            "assay --help": lambda: wall([ASSAY, "--help"], tmp),
            "assay validate data.csv": lambda: wall([ASSAY, "validate", str(data)], tmp),
            "import assay.cli (-X importtime)": lambda: import_time("assay.cli", tmp),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.repeat):  # interleaved: a burst of load hits every case alike
            for name, measure in cases.items():
                times[name].append(measure())
    for name, seconds in times.items():
        print(f"{name:34s} median {statistics.median(seconds):6.3f} s  (of {len(seconds)})")


if __name__ == "__main__":
    main()
