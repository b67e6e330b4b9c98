"""Benchmark ``assay run`` end to end against a mock agent with a set latency.

Prints, per scenario: wall time of the whole ``assay run`` process (start-up included), the
ideal time ceil(N / concurrency) x turns x latency, their ratio (efficiency = ideal / wall),
harness CPU per turn (the assay process's user+sys CPU, its writer process included, / turns)
and its peak RSS; and the same wall and CPU for the bare aiohttp loop (bare_loop.py) run right
after it against the same agent, with assay's ratio to it. With --repeat K each figure is the
median of K runs, a ratio the median of each run's own ratio.

``--baseline-src DIR`` also runs ``assay run`` from another source tree (for instance
``git archive REV src | tar -x -C /tmp/base`` then ``--baseline-src /tmp/base/src``) in the
same invocation, interleaved: a before/after comparison that load on the machine hits alike.

    python bench/bench_run.py                 # the recorded scenarios
    python bench/bench_run.py --n 5000 --latency-ms 100 --concurrency 100 --repeat 5
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import socket
import statistics
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


AGENTS = {"aiohttp": "mock_agent.py", "lean": "lean_agent.py"}


def start_agent(
    latency_ms: float, agent: str = "aiohttp", log: Path | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """The mock agent on a free port: aiohttp's server (mock_agent.py) or the lean one
    (lean_agent.py, a fraction of the CPU per request); its chat URL. Waited for up to a
    minute: on a loaded machine its start-up alone can take several seconds. ``log``
    (mock_agent.py only): where it writes when each request arrives."""
    port = free_port()
    args = [sys.executable, str(HERE / AGENTS[agent]), str(port), str(latency_ms)]
    proc = subprocess.Popen([*args, str(log)] if log is not None else args)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/health", timeout=1).read()
            return proc, f"{url}/chat"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the mock agent did not start")


def from_source(src: str) -> list[str]:
    """The ``assay`` command, run from the source tree ``src`` instead of the installed one."""
    code = f"import sys; sys.path.insert(0, {src!r}); from assay.cli import main; main()"
    return [sys.executable, "-c", code]


def run_scenario(
    n: int, turns: int, latency_ms: float, concurrency: int, baseline_src: str | None = None
) -> dict[str, float]:
    agent, url = start_agent(latency_ms)
    baseline: dict[str, float] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.csv"
            write_dataset(data, n, turns)
            args = [
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
            if baseline_src is not None:
                args[-1] = f"sqlite:///{tmp}/baseline.db"
                b_wall, b_cpu, _, code, out = timed([*from_source(baseline_src), *args], tmp)
                if code not in (0, 1):
                    raise SystemExit(f"the baseline's assay run failed ({code}):\n{out}")
                baseline = {"baseline_wall_s": b_wall, "baseline_cpu_s": b_cpu}
                args[-1] = f"sqlite:///{tmp}/assay.db"
            wall, cpu, rss, code, out = timed([ASSAY, *args], tmp)
            if code not in (0, 1):
                raise SystemExit(f"assay run failed ({code}):\n{out}")
            bare = [
                sys.executable,
                str(HERE / "bare_loop.py"),
                url,
                str(n * turns),
                str(concurrency),
            ]
            bare_wall, bare_cpu = timed(bare, tmp)[:2]
    finally:
        agent.kill()
        agent.wait()
    ideal = math.ceil(n / concurrency) * turns * latency_ms / 1000
    if baseline:
        baseline = {
            "baseline_wall_ratio": baseline["baseline_wall_s"] / bare_wall,
            "baseline_cpu_ms_per_turn": baseline["baseline_cpu_s"] * 1000 / (n * turns),
            "baseline_cpu_ratio": baseline["baseline_cpu_s"] / bare_cpu,
            **baseline,
        }
    return {
        **baseline,
        "n": n,
        "turns": turns,
        "latency_ms": latency_ms,
        "concurrency": concurrency,
        "wall_s": wall,
        "ideal_s": ideal,
        "efficiency": ideal / wall if ideal else float("nan"),
        "bare_wall_s": bare_wall,
        "wall_ratio": wall / bare_wall,
        "cpu_ms_per_turn": cpu * 1000 / (n * turns),
        "bare_cpu_ms_per_turn": bare_cpu * 1000 / (n * turns),
        "cpu_ratio": cpu / bare_cpu,
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
        f"(assay / bare {r['wall_ratio']:.2f}x); harness CPU "
        f"{r['cpu_ms_per_turn']:.3f} ms/turn, bare {r['bare_cpu_ms_per_turn']:.3f} ms/turn "
        f"(assay / bare {r['cpu_ratio']:.2f}x); peak RSS {r['peak_rss_mb']:.0f} MB"
    ) + (
        f"\n    baseline source: wall {r['baseline_wall_s']:6.2f} s (/ bare "
        f"{r['baseline_wall_ratio']:.2f}x); harness CPU {r['baseline_cpu_ms_per_turn']:.3f} "
        f"ms/turn (/ bare {r['baseline_cpu_ratio']:.2f}x)"
        if "baseline_wall_s" in r
        else ""
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int)
    parser.add_argument("--turns", type=int, default=1)
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1, help="runs per scenario; medians shown")
    parser.add_argument("--baseline-src", help="also run assay from this source tree (src/)")
    args = parser.parse_args()
    scenarios = [(args.n, args.turns, args.latency_ms, args.concurrency)] if args.n else SCENARIOS
    for n, turns, latency_ms, concurrency in scenarios:
        runs = [
            run_scenario(n, turns, latency_ms, concurrency, args.baseline_src)
            for _ in range(args.repeat)
        ]
        print(show(medians(runs)), flush=True)


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    """Each figure's median over the runs; the ratios are each run's own (assay and the bare
    loop run back to back against the same agent), so drift between runs cancels out."""
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


if __name__ == "__main__":
    main()
