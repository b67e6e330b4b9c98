"""Benchmark start-up: how long a command takes before it does anything.

Times, as whole processes (medians of --repeat runs, interleaved): ``python -c pass`` (the
interpreter alone), ``python -c "import assay.cli"``, ``assay --help`` and ``assay validate``
of a two-row CSV, and the import time of ``assay.cli`` as ``python -X importtime`` reports it.

``--baseline-src DIR`` times the same commands run from another source tree too (e.g.
``git archive REV src | tar -x -C /tmp/base``, then ``--baseline-src /tmp/base/src``),
interleaved with the installed one's, for a before/after in one invocation.

    python bench/bench_startup.py              # medians of 5
    python bench/bench_startup.py --repeat 9 --baseline-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import functools
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

PYTHON = sys.executable
ASSAY = str(Path(sys.executable).parent / "assay")


def wall(args: list[str], cwd: str) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=cwd, capture_output=True, check=True)
    return time.perf_counter() - started


def from_source(src: str | None, *argv: str) -> list[str]:
    """``assay ARGV`` as installed, or run from the source tree ``src``."""
    if src is None:
        return [ASSAY, *argv]
    code = f"import sys; sys.path.insert(0, {src!r}); from assay.cli import main; main()"
    return [PYTHON, "-c", code, *argv]


def importing(src: str | None, module: str) -> str:
    prefix = f"import sys; sys.path.insert(0, {src!r}); " if src else ""
    return f"{prefix}import {module}"


def import_time(code: str, module: str, cwd: str) -> float:
    """Seconds ``-X importtime`` gives ``module`` (cumulative, what it imported included)."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", code],
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
    parser.add_argument("--baseline-src", help="also time assay from this source tree (src/)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.csv"
        data.write_text("Question,Answer\nwhat is 6 x 7?,42\nand 2 + 2?,4\n", encoding="utf-8")
        cases: dict[str, Callable[[], float]] = {
            "python -c pass": lambda: wall([PYTHON, "-c", "pass"], tmp)
        }
        trees = (
            {"": None} if args.baseline_src is None else {"": None, "baseline: ": args.baseline_src}
        )
        for label, src in trees.items():
            cases.update(
                {
                    f"{label}python -c 'import assay.cli'": functools.partial(
                        wall, [PYTHON, "-c", importing(src, "assay.cli")], tmp
                    ),
                    f"{label}assay --help": functools.partial(
                        wall, from_source(src, "--help"), tmp
                    ),
                    f"{label}assay validate data.csv": functools.partial(
                        wall, from_source(src, "validate", str(data)), tmp
                    ),
                    f"{label}import assay.cli (-X importtime)": functools.partial(
                        import_time, importing(src, "assay.cli"), "assay.cli", tmp
                    ),
                }
            )
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.repeat):  # interleaved: a burst of load hits every case alike
            for name, measure in cases.items():
                times[name].append(measure())
    for name, seconds in times.items():
        print(f"{name:34s} median {statistics.median(seconds):6.3f} s  (of {len(seconds)})")


if __name__ == "__main__":
    main()
