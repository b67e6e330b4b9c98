"""Benchmark start-up: how long a command takes before it does anything.

Times, as whole processes (medians of --repeat runs, interleaved), wall and CPU (user +
system of the process and the children it waited for): ``python -c pass`` (the interpreter
alone), ``python -c "import assay.cli"``, ``assay --help``, ``assay validate`` of a two-row
CSV, ``assay run`` of a one-test CSV against bench/mock_agent.py (http://, a fresh SQLite
store each time: what every run pays before its first request and after its last), and
the import time of ``assay.cli`` as ``python -X importtime`` reports it.

The commands run with the caller's environment: where PYTHONDONTWRITEBYTECODE=1 is set (as
here and in CI), a source tree without ``__pycache__`` compiles its modules in every process,
which ``make install`` now spares the installed tree (``compileall``).

``--baseline-src DIR`` (repeatable) times the same commands run from another source tree
too (e.g. ``git archive REV src | tar -x -C /tmp/base``, then ``--baseline-src
/tmp/base/src``; labelled with the folder above ``src``), interleaved with the installed
one's, for a before/after in one invocation. Compile the tree (``python -m compileall -q
/tmp/base/src``) to compare imports alone; leave it uncompiled to include what compiling
costs every process under PYTHONDONTWRITEBYTECODE=1.

``--big N`` also times a run of N single-turn tests (concurrency 100) against a mock agent
answering after 100 ms that logs when each request arrives: the seconds from the command's
start to its first request, and from the last answer to its exit (what issue 15's wall
target pays on top of the requests themselves).

    python bench/bench_startup.py              # medians of 5
    python bench/bench_startup.py --repeat 9 --baseline-src /tmp/base/src
    python bench/bench_startup.py --big 5000 --baseline-src /tmp/base/src
"""

from __future__ import annotations

import argparse
import functools
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_run import start_agent

PYTHON = sys.executable
ASSAY = str(Path(sys.executable).parent / "assay")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wall(args: list[str], cwd: str, ok: tuple[int, ...] = (0,)) -> tuple[float, float]:
    """Wall and CPU seconds of one run of ``args`` (its children included)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in ok:
        raise SystemExit(f"{args} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return elapsed, _children_cpu() - cpu


def one_test_run(src: str | None, data: Path, url: str, tmp: str) -> tuple[float, float]:
    """``assay run`` of one test (the mock agent's reply fails it: exit 1) into a new store."""
    store = Path(tmp) / f"store-{time.monotonic_ns()}.db"
    argv = ("run", "--dataset", str(data), "--target", url, "--workers", "1", "--quiet")
    return wall(from_source(src, *argv, "--store", f"sqlite:///{store}"), tmp, ok=(0, 1))


def from_source(src: str | None, *argv: str) -> list[str]:
    """``assay ARGV`` as installed, or run from the source tree ``src``."""
    if src is None:
        return [ASSAY, *argv]
    code = f"import sys; sys.path.insert(0, {src!r}); from assay.cli import main; main()"
    return [PYTHON, "-c", code, *argv]


def importing(src: str | None, module: str) -> str:
    prefix = f"import sys; sys.path.insert(0, {src!r}); " if src else ""
    return f"{prefix}import {module}"


def import_time(code: str, module: str, cwd: str) -> tuple[float, float]:
    """Seconds ``-X importtime`` gives ``module`` (cumulative, what it imported included)."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", code],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    [last] = [line for line in done.stderr.splitlines() if line.split("|")[-1].strip() == module]
    return int(last.split("|")[1]) / 1e6, float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--big", type=int, default=0, help="also time a run of this many tests (see above)"
    )
    parser.add_argument(
        "--baseline-src",
        action="append",
        default=[],
        help="also time assay from this source tree (src/); repeatable",
    )
    args = parser.parse_args()
    if args.big:
        big(args.big, args.repeat, args.baseline_src)
        return
    agent, url = start_agent(0)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            times = measure(args.repeat, args.baseline_src, url, tmp)
    finally:
        agent.kill()
        agent.wait()
    print(f"{'':40s} {'wall':>8s} {'CPU':>8s}  (medians of {args.repeat})")
    for name, runs in times.items():
        walls, cpus = zip(*runs, strict=True)
        print(f"{name:40s} {statistics.median(walls):6.3f} s {statistics.median(cpus):6.3f} s")


def big(n: int, repeat: int, baseline_src: list[str]) -> None:
    """Start to first request, and last answer to exit, of an ``assay run`` of ``n`` tests."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "requests.log"
        agent, chat = start_agent(100, log=log)
        try:
            data = Path(tmp) / "big.csv"
            lines = "".join(f"what is {i} x 7?,{i * 7}\n" for i in range(n))
            data.write_text("Question,Answer\n" + lines, encoding="utf-8")
            trees: dict[str, str | None] = {"": None}
            trees.update({f"{Path(src).parent.name}: ": src for src in baseline_src})
            times: dict[str, list[tuple[float, float]]] = {label: [] for label in trees}
            for _ in range(repeat):
                for label, src in trees.items():
                    times[label].append(_big_run(src, data, chat, log, tmp))
        finally:
            agent.kill()
            agent.wait()
    print(f"{'':40s} {'to first request':>16s} {'last answer to exit':>20s}  (medians)")
    for label, runs in times.items():
        first, tail = zip(*runs, strict=True)
        name = f"{label}assay run ({n} tests)"
        print(f"{name:40s} {statistics.median(first):14.3f} s {statistics.median(tail):18.3f} s")


def _big_run(src: str | None, data: Path, url: str, log: Path, tmp: str) -> tuple[float, float]:
    log.write_text("", encoding="utf-8")
    store = Path(tmp) / f"store-{time.monotonic_ns()}.db"
    argv = ("run", "--dataset", str(data), "--target", url, "--concurrency", "100", "--quiet")
    started = time.time()
    done = subprocess.run(
        from_source(src, *argv, "--store", f"sqlite:///{store}"),
        cwd=tmp,
        capture_output=True,
        check=False,
    )
    ended = time.time()
    if done.returncode not in (0, 1):
        raise SystemExit(f"assay run exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    records = [line.split("\t") for line in log.read_text(encoding="utf-8").splitlines() if line]
    first = min(float(arrived) for _, arrived, _ in records)
    last = max(float(answered) for _, _, answered in records)
    return first - started, ended - last


def measure(
    repeat: int, baseline_src: list[str], url: str, tmp: str
) -> dict[str, list[tuple[float, float]]]:
    data = Path(tmp) / "data.csv"
    data.write_text("Question,Answer\nwhat is 6 x 7?,42\nand 2 + 2?,4\n", encoding="utf-8")
    one = Path(tmp) / "one.csv"
    one.write_text("Question,Answer\nwhat is 6 x 7?,42\n", encoding="utf-8")
    cases: dict[str, Callable[[], tuple[float, float]]] = {
        "python -c pass": lambda: wall([PYTHON, "-c", "pass"], tmp)
    }
    trees: dict[str, str | None] = {"": None}
    trees.update({f"{Path(src).parent.name}: ": src for src in baseline_src})
    for label, src in trees.items():
        cases.update(
            {
                f"{label}python -c 'import assay.cli'": functools.partial(
                    wall, [PYTHON, "-c", importing(src, "assay.cli")], tmp
                ),
                f"{label}assay --help": functools.partial(wall, from_source(src, "--help"), tmp),
                f"{label}assay validate data.csv": functools.partial(
                    wall, from_source(src, "validate", str(data)), tmp
                ),
                f"{label}assay run (1 test, http)": functools.partial(
                    one_test_run, src, one, url, tmp
                ),
                f"{label}import assay.cli (-X importtime)": functools.partial(
                    import_time, importing(src, "assay.cli"), "assay.cli", tmp
                ),
            }
        )
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
    for _ in range(repeat):  # interleaved: a burst of load hits every case alike
        for name, run in cases.items():
            times[name].append(run())
    return times


if __name__ == "__main__":
    main()
