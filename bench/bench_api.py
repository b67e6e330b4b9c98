"""Benchmark ``assay.run`` from Python: the result writer as a forked process (a program with
one thread, as ``assay run``) against the writer as a thread (a program with other threads,
as a notebook or a web server, where assay does not fork).

Each run is a fresh interpreter calling ``assay.run(dataset=..., target=URL)`` against
``bench/mock_agent.py``; ``thread`` starts one idle thread first. Prints the median wall
time of the ``assay.run`` call and the process's CPU per turn (user+sys, writer included).

    python bench/bench_api.py                  # 5,000 single-turn, 100 ms, concurrency 100
    python bench/bench_api.py --n 20000 --latency-ms 0 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_run import start_agent, write_dataset

CALL = """
import os, sys, threading, time
import assay
if sys.argv[4] == "thread":
    threading.Thread(target=threading.Event().wait, daemon=True).start()
start = time.perf_counter()
report = assay.run(dataset=sys.argv[1], target=sys.argv[2], store=sys.argv[3], concurrency=100)
wall = time.perf_counter() - start
t = os.times()
children = t.children_user + t.children_system
print(wall, t.user + t.system + children, report.summary.total_tests)
"""


def one(data: Path, url: str, tmp: str, mode: str, i: int) -> tuple[float, float, int]:
    store = f"sqlite:///{tmp}/{mode}-{i}.db"
    out = subprocess.run(
        [sys.executable, "-c", CALL, str(data), url, store, mode],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=5_000)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    agent, url = start_agent(args.latency_ms)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.csv"
            write_dataset(data, args.n, 1)
            runs: dict[str, list[tuple[float, float, int]]] = {"process": [], "thread": []}
            for i in range(args.repeat):  # alternating, so load changes hit both alike
                for mode in runs:
                    runs[mode].append(one(data, url, tmp, mode, i))
    finally:
        agent.kill()
    for mode, results in runs.items():
        assert all(total == args.n for _, _, total in results)
        wall = statistics.median(r[0] for r in results)
        cpu_ms = statistics.median(r[1] for r in results) * 1000 / args.n
        print(f"writer {mode:7}: assay.run {wall:6.2f} s, CPU {cpu_ms:.3f} ms/turn (median)")


if __name__ == "__main__":
    main()
