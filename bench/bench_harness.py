"""The run process's CPU per turn as a slope: start-up and the writer process drop out.

Each variant runs N_SMALL and N single-turn tests against ``mock_agent.py`` (``assay run
--workers 1`` from a source tree, or the bare aiohttp loop); the process's own CPU
(``RUSAGE_SELF`` at exit: the forked writer is not counted) is differenced between the two
sizes and divided by N - N_SMALL. Subtract the bare loop's slope (aiohttp's own request
path) to get the harness. Variants run interleaved, round by round; medians are printed.

    python bench/bench_harness.py 1000 5000 0 100 5 bare /tmp/base/src src
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_run import HERE, start_agent, write_dataset

RUN = """import sys, atexit, resource
sys.path.insert(0, sys.argv.pop(1))
out = sys.argv.pop(1)
def dump():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    open(out, "w").write(str(usage.ru_utime + usage.ru_stime))
atexit.register(dump)
from assay.cli import main
main()
"""
BARE = """import sys, atexit, resource, runpy
out = sys.argv.pop(1)
def dump():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    open(out, "w").write(str(usage.ru_utime + usage.ru_stime))
atexit.register(dump)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


def command(variant: str, out: str, url: str, data: Path, n: int, conc: int, db: str) -> list[str]:
    if variant == "bare":
        return [sys.executable, "-c", BARE, out, str(HERE / "bare_loop.py"), url, str(n), str(conc)]
    return [
        *(sys.executable, "-c", RUN, str(Path(variant).resolve()), out, "run"),
        *("--dataset", str(data), "--target", url, "--concurrency", str(conc)),
        *("--quiet", "--store", f"sqlite:///{db}", "--workers", "1"),
    ]


def main() -> None:
    small, n, latency, conc, rounds = (float(a) for a in sys.argv[1:6])
    sizes = (int(small), int(n))
    variants = sys.argv[6:]
    agent, url = start_agent(latency)
    cpu: dict[tuple[str, int], list[float]] = {(v, k): [] for v in variants for k in sizes}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            data = {k: Path(tmp) / f"d{k}.csv" for k in sizes}
            for k, path in data.items():
                write_dataset(path, k, 1)
            for r in range(int(rounds)):
                for k in sizes:
                    for i, variant in enumerate(variants):
                        out = f"{tmp}/cpu"
                        db = f"{tmp}/{r}_{k}_{i}.db"
                        cmd = command(variant, out, url, data[k], k, int(conc), db)
                        code = subprocess.run(cmd, env=env, capture_output=True).returncode
                        assert code in (0, 1), cmd
                        cpu[(variant, k)].append(float(Path(out).read_text()))
    finally:
        agent.kill()
    turns = sizes[1] - sizes[0]
    print(f"{sizes[1]} vs {sizes[0]} tests, {latency:g} ms, concurrency {conc:g}: us per turn")
    for variant in variants:
        slopes = [
            (big - little) / turns * 1e6
            for little, big in zip(cpu[(variant, sizes[0])], cpu[(variant, sizes[1])], strict=True)
        ]
        shown = ", ".join(f"{s:.0f}" for s in slopes)
        print(f"{variant:30s} {statistics.median(slopes):7.1f}   rounds: {shown}")


if __name__ == "__main__":
    main()
