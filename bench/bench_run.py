"""Benchmark ``assay run`` end to end against a mock agent with a set latency.

Prints, per scenario: wall time of the whole ``assay run`` process (start-up included), the
ideal time ceil(N / concurrency) x turns x latency, their ratio (efficiency = ideal / wall),
harness CPU per turn (the assay process's user+sys CPU / turns) and its peak RSS.

    python bench/bench_run.py                 # the three recorded scenarios
    python bench/bench_run.py --n 1000 --latency-ms 100 --concurrency 100 --turns 1
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ASSAY = str(Path(sys.executable).parent / "assay")

SCENARIOS = [
    # (tests, turns per test, latency ms, concurrency)
    (5_000, 1, 100, 100),
    (1_000, 5, 100, 100),
    (10_000, 1, 50, 500),
    (100_000, 1, 0, 100),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_dataset(path: Path, n: int, turns: int) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        if turns == 1:
            w.writerow(["Question", "Answer"])
            w.writerows([f"question {i}?", "42"] for i in range(n))
        else:
            w.writerow(["session_id", "turn_id", "Question", "Answer"])
            w.writerows(
                [f"s{i}", t + 1, f"question {i}.{t}?", "42"] for i in range(n) for t in range(turns)
            )


def start_agent(latency_ms: float) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "mock_agent.py"), str(port), str(latency_ms)]
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{url}/health", timeout=0.5).read()
            return proc, f"{url}/chat"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the mock agent did not start")


def run_scenario(n: int, turns: int, latency_ms: float, concurrency: int) -> dict[str, float]:
    agent, url = start_agent(latency_ms)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.csv"
            write_dataset(data, n, turns)
            args = [
                ASSAY,
                "run",
                "--dataset",
                str(data),
                "--target",
                url,
                "--concurrency",
                str(concurrency),
                "--quiet",
                "--store",
                f"sqlite:///{tmp}/assay.db",
            ]
            wall, cpu, rss, code, out = timed(args, tmp)
            if code not in (0, 1):
                raise SystemExit(f"assay run failed ({code}):\n{out}")
            bare = [
                sys.executable,
                str(HERE / "bare_loop.py"),
                url,
                str(n * turns),
                str(concurrency),
            ]
            bare_wall = timed(bare, tmp)[0]
    finally:
        agent.kill()
        agent.wait()
    ideal = math.ceil(n / concurrency) * turns * latency_ms / 1000
    return {
        "n": n,
        "turns": turns,
        "latency_ms": latency_ms,
        "concurrency": concurrency,
        "wall_s": wall,
        "ideal_s": ideal,
        "efficiency": ideal / wall if ideal else float("nan"),
        "bare_wall_s": bare_wall,
        "cpu_ms_per_turn": cpu * 1000 / (n * turns),
        "peak_rss_mb": rss,
    }


def timed(args: list[str], cwd: str) -> tuple[float, float, float, int, str]:
    """Wall and CPU seconds and peak RSS (MB) of one process alone; its exit code and output."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    out = (proc.stdout.read() if proc.stdout else b"").decode()
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out


def show(r: dict[str, float]) -> str:
    eff = "n/a" if math.isnan(r["efficiency"]) else f"{r['efficiency']:.2f}"
    return (
        f"N={r['n']:>7,} turns={r['turns']} latency={r['latency_ms']:>4.0f} ms "
        f"concurrency={r['concurrency']:>4}: wall {r['wall_s']:6.2f} s, ideal "
        f"{r['ideal_s']:5.2f} s, efficiency {eff}; bare aiohttp loop {r['bare_wall_s']:.2f} s "
        f"(ratio {r['bare_wall_s'] / r['wall_s']:.2f}); harness CPU "
        f"{r['cpu_ms_per_turn']:.3f} ms/turn, peak RSS {r['peak_rss_mb']:.0f} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int)
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1, help="runs per scenario; medians shown")
    args = parser.parse_args()
    scenarios = [(args.n, args.turns, args.latency_ms, args.concurrency)] if args.n else SCENARIOS
    for scenario in scenarios:
        runs = [run_scenario(*scenario) for _ in range(args.repeat)]
        runs.sort(key=lambda r: r["wall_s"])
        print(show(runs[len(runs) // 2]), flush=True)


if __name__ == "__main__":
    main()
