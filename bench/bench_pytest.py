"""Benchmark the pytest plugin: what it costs a pytest session that does not use it, and a
suite run as pytest items against ``assay run`` on the same suite.

- startup: ``pytest --collect-only`` of one trivial test, the plugin loaded (by its entry
  point) against ``-p no:assay``; the median of ``--repeat`` fresh interpreters.
- a suite of ``--n`` single-turn tests against ``bench/mock_agent.py`` (``--latency-ms``
  per reply): ``assay run`` (its default concurrency), ``pytest --assay-suite`` (one run per
  item, one after the other) and the same with ``-n 2``; median wall time of each.

    python bench/bench_pytest.py                       # 40 tests, 50 ms, 3 repeats
    python bench/bench_pytest.py --n 100 --repeat 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_run import start_agent

ASSAY = str(Path(sys.executable).parent / "assay")
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]


def timed(args: list[str], cwd: str, ok: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{args} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    return wall


def median(args: list[str], cwd: str, repeat: int) -> float:
    return statistics.median(timed(args, cwd) for _ in range(repeat))


def write_suite(folder: Path, url: str, n: int) -> None:
    lines = [f"name: bench\ntarget: {{http: {{url: '{url}'}}}}\nmetrics: [equality]\ntests:"]
    lines += [f'  - {{name: t{i}, input: q{i}, ground_truth: "42"}}' for i in range(n)]
    (folder / "suite.yaml").write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--latency-ms", type=float, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ASSAY_STORE"] = f"sqlite:///{tmp}/runs.db"
        (Path(tmp) / "test_one.py").write_text("def test_one():\n    pass\n")
        plain = [*PYTEST, "--collect-only", "test_one.py"]
        on = median(plain, tmp, args.repeat * 3)
        off = median([*plain, "-p", "no:assay"], tmp, args.repeat * 3)
        print(f"pytest startup: plugin loaded {on:.2f} s, -p no:assay {off:.2f} s, {on / off:.2f}x")
        agent, url = start_agent(args.latency_ms)
        try:
            write_suite(Path(tmp), url, args.n)
            ideal = args.n * args.latency_ms / 1000
            walls = {
                "assay run": median([ASSAY, "run", "suite.yaml", "--quiet"], tmp, args.repeat),
                "pytest --assay-suite": median(
                    [*PYTEST, "--assay-suite", "suite.yaml"], tmp, args.repeat
                ),
                "pytest --assay-suite -n 2": median(
                    [*PYTEST, "--assay-suite", "suite.yaml", "-n", "2"], tmp, args.repeat
                ),
            }
        finally:
            agent.kill()
    base = walls["assay run"]
    print(f"{args.n} tests, {args.latency_ms:g} ms per reply (serial agent time {ideal:.1f} s)")
    for name, wall in walls.items():
        print(f"  {name:<28} {wall:6.2f} s  {wall / base:5.2f}x assay run")


if __name__ == "__main__":
    main()
