"""Benchmark ``assay run --workers N`` and ``--executor ray`` against the one-process bare
aiohttp loop (bench/bare_loop.py), run in the same invocation against the same mock agent,
interleaved, whole processes (start-up included). Each round also runs ``floor_loop.py``:
the bare loop plus the least a tool that stores every result must do (a JSON payload per
result, a forked SQLite writer), a floor for what any harness costs. Figures are medians;
ratios are assay's wall / the bare loop's (below 1.0: faster than one process can be).
``--baseline-src DIR`` also runs assay from another source tree (e.g. ``git archive REV src
| tar -x -C /tmp/base``; compile it) in every round, for a before/after in one invocation.

    python bench/bench_scale.py                  # every scenario, 3 rounds each
    python bench/bench_scale.py --rounds 5 --only workers --agent lean

Latency: N=5,000 single-turn tests, concurrency 100, 100 ms agent: ``assay run`` with its
default worker count and with ``--workers 1``. Workers: N=10,000, concurrency 500, 50 ms:
``--workers 1`` and ``--workers 2``. Ray: N=20,000, concurrency 200, 100 ms, a local Ray
started by assay for the run; Ray's own start-up (``ray.init()`` to ``ray.shutdown()`` in a
fresh interpreter, with nothing run) is measured on its own line. Each scenario runs the
bare loop first in every round. ``--agent lean`` serves the replies from
``lean_agent.py`` (a bare asyncio protocol) instead of aiohttp's server, which leaves more
of the two cores to the client side.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_run import ASSAY, HERE, start_agent, timed, write_dataset

RAY_START = "import ray; ray.init(include_dashboard=False, log_to_driver=False); ray.shutdown()"


# assay from another source tree (--baseline-src), its first argument the tree
FROM_TREE = "import sys; sys.path.insert(0, sys.argv.pop(1)); from assay.cli import main; main()"


def assay_args(
    data: Path, url: str, concurrency: int, tmp: str, *extra: str, command: tuple[str, ...]
) -> list[str]:
    return [
        *command,
        "run",
        "--dataset",
        str(data),
        "--target",
        url,
        "--concurrency",
        str(concurrency),
        "--quiet",
        "--store",
        f"sqlite:///{tmp}/assay-{len(command)}-{'-'.join(extra)}.db",  # a new store each
        *extra,
    ]


def scenario(
    n: int,
    latency_ms: float,
    concurrency: int,
    rounds: int,
    ways: dict[str, list[str]],
    agent_kind: str = "aiohttp",
    trees: dict[str, tuple[str, ...]] | None = None,
) -> None:
    """``trees``: label -> the command that runs assay (default: the installed one)."""
    trees = trees or {"": (ASSAY,)}
    runs = {
        f"{name}{label}": (extra, command)
        for name, extra in ways.items()
        for label, command in trees.items()
    }
    agent, url = start_agent(latency_ms, agent_kind)
    walls: dict[str, list[float]] = {name: [] for name in ["bare loop", "floor", *runs]}
    ratios: dict[str, list[float]] = {name: [] for name in walls}
    cpus: dict[str, list[float]] = {name: [] for name in walls}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data = Path(tmp) / "data.csv"
            write_dataset(data, n, 1)
            bare = [sys.executable, str(HERE / "bare_loop.py"), url, str(n), str(concurrency)]
            for _ in range(rounds):
                bare_wall, bare_cpu, _, code, out = timed(bare, tmp)
                walls["bare loop"].append(bare_wall)
                cpus["bare loop"].append(bare_cpu)
                ratios["bare loop"].append(1.0)
                floor = [sys.executable, str(HERE / "floor_loop.py"), url, str(n), str(concurrency)]
                floor_wall, floor_cpu, *_ = timed([*floor, f"{tmp}/floor.db"], tmp)
                walls["floor"].append(floor_wall)
                cpus["floor"].append(floor_cpu)
                ratios["floor"].append(floor_wall / bare_wall)
                for name, (extra, command) in runs.items():
                    wall, cpu, _, code, out = timed(
                        assay_args(data, url, concurrency, tmp, *extra, command=command), tmp
                    )
                    if code not in (0, 1):
                        raise SystemExit(f"assay run {' '.join(extra)} failed ({code}):\n{out}")
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    ratios[name].append(wall / bare_wall)
    finally:
        agent.kill()
        agent.wait()
    bare_cpu = statistics.median(cpus["bare loop"])
    print(
        f"N={n:,} concurrency={concurrency} latency={latency_ms:.0f} ms, {agent_kind} agent, "
        f"medians of {rounds} (wall ratio: the median of each round's own ratio):"
    )
    for name in walls:
        wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
        print(
            f"  {name:<26} wall {wall:6.2f} s  ({statistics.median(ratios[name]):4.2f}x the "
            f"bare loop)  CPU {cpu * 1000 / n:.3f} ms/test ({cpu / bare_cpu:4.2f}x)",
            flush=True,
        )


def ray_start_up(rounds: int) -> None:
    walls = [
        timed([sys.executable, "-c", RAY_START], tempfile.gettempdir())[0] for _ in range(rounds)
    ]
    print(f"Ray start-up alone (init + shutdown, local): {statistics.median(walls):.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", choices=["latency", "workers", "ray"])
    parser.add_argument("--agent", choices=["aiohttp", "lean"], default="aiohttp")
    parser.add_argument("--baseline-src", type=Path, help="also run assay from this src tree")
    args = parser.parse_args()
    trees = {"": (ASSAY,)}
    if args.baseline_src:
        label = f" ({args.baseline_src.absolute().parent.name})"
        trees[label] = (sys.executable, "-c", FROM_TREE, str(args.baseline_src.absolute()))
    if args.only in (None, "latency"):
        ways = {"default workers": [], "--workers 1": ["--workers", "1"]}
        scenario(5_000, 100, 100, args.rounds, ways, args.agent, trees)
    if args.only in (None, "workers"):
        ways = {"--workers 1": ["--workers", "1"], "--workers 2": ["--workers", "2"]}
        scenario(10_000, 50, 500, args.rounds, ways, args.agent, trees)
    if args.only in (None, "ray"):
        try:
            subprocess.run([sys.executable, "-c", "import ray"], check=True)
        except subprocess.CalledProcessError:
            raise SystemExit("Ray is not installed: pip install 'assay[ray]'") from None
        ray_start_up(args.rounds)
        ways = {"--executor ray": ["--executor", "ray"]}
        scenario(20_000, 100, 200, args.rounds, ways, args.agent)


if __name__ == "__main__":
    main()
