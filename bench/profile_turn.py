"""A real ``assay run --workers 1`` turn under callgrind, as a slope per function (with
``--workers N`` above 1, the driver's own work per result).

Starts ``mock_agent.py`` (0 ms, outside valgrind), writes single-turn datasets of SMALL and
BIG rows, and runs the real CLI (``assay run --dataset D --target URL --concurrency C
--quiet --workers 1``, from a source tree: ``--src``, default this checkout's ``src``) under
``valgrind --tool=callgrind`` at both sizes. Only the run process's own profile counts (the
forked result writer writes its own file, which is left out). ``callgrind_annotate`` reads
each profile, inclusive and exclusive; every function's cost at SMALL is subtracted from its
cost at BIG and divided by BIG - SMALL: start-up drops out and what is left is one turn.

``--bare`` profiles ``bare_loop.py`` (the plain aiohttp loop: same agent, same requests in
flight) the same way, and the table then shows each function's slope in both and their
difference: what assay adds, or saves, on top of aiohttp and the event loop per request.

    .venv/bin/python bench/profile_turn.py                      # 200 vs 1,000 tests, top 40
    .venv/bin/python bench/profile_turn.py --bare --top 80      # side by side with bare_loop.py
    .venv/bin/python bench/profile_turn.py --src /tmp/base/src  # another tree
    .venv/bin/python bench/profile_turn.py --keep /tmp/prof     # keep the callgrind files
    .venv/bin/python bench/profile_turn.py --against /tmp/base/src  # before/after, per function
    .venv/bin/python bench/profile_turn.py --calls              # cProfile's calls per turn
    .venv/bin/python bench/profile_turn.py --workers 2          # the driver's, per result

``--against DIR`` profiles a second tree the same way and prints both totals and each
function's exclusive slope in both, by the size of the change. ``--calls`` runs no
callgrind: the run under cProfile at both sizes, each Python function's calls per turn (a
count, exact) and its cProfile time (not: the profiler's own cost and the collector's pauses
land on whatever runs).

Inclusive costs are a function's outermost call's (its recursion levels are inside it);
exclusive ones are summed over its recursion levels and the files it is inlined from.

Function names are CPython's and the extensions' C functions (the interpreter loop, dict and
str functions, pydantic-core, the json encoder, the selector, the socket calls ...): Python
functions show only through the C functions they call. Counts are instructions (Ir), which
do not depend on the machine's load, so two trees compare run against run (with
``PYTHONHASHSEED=0``: random str hashes moved a tree's slope by up to 45k per turn). What
still moves them is timing: how many replies one pass of the event loop finds, when the
writer's hand-over goes out; repeat a run to see the spread (a few thousand per turn). The
trees are byte-compiled first (``compileall``), or the first run would pay for compiling.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_run import HERE, start_agent, write_dataset

RUN = "import sys; sys.path.insert(0, sys.argv.pop(1)); from assay.cli import main; main()"
# --calls: the same run under cProfile (no valgrind), its stats dumped at exit
CALLS = """import sys, atexit, cProfile
sys.path.insert(0, sys.argv.pop(1))
out = sys.argv.pop(1)
profiler = cProfile.Profile()
atexit.register(lambda: (profiler.disable(), profiler.dump_stats(out)))
from assay.cli import main
profiler.enable()
main()
"""
LINE = re.compile(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(?:\(\s*[\d,]+\)\s+)?(\S.*?)\s*$")


def profile(cmd: list[str], folder: Path, name: str, env: dict[str, str]) -> Path:
    """Runs cmd under callgrind; the run process's own profile (its pid's file)."""
    pattern = folder / f"{name}.%p"
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={pattern}", *cmd],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    code = proc.wait()
    assert code in (0, 1), (cmd, code)
    return folder / f"{name}.{proc.pid}"


def costs(path: Path, inclusive: bool) -> dict[str, int]:
    """Each function's instructions in one profile, by callgrind_annotate. Exclusive costs
    of one function are summed over the files it is inlined from and its recursion levels
    (callgrind's ``'2``, ``'3`` ...); an inclusive cost is the function's outermost (its
    deeper levels are inside it), the largest over the files it shows under."""
    out = subprocess.run(
        [
            "callgrind_annotate",
            f"--inclusive={'yes' if inclusive else 'no'}",
            "--threshold=100",
            str(path),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[str, int] = {}
    body = out.split("file:function", 1)[-1]
    for line in body.splitlines():
        match = LINE.match(line)
        if match is None:
            continue
        name, level = _short(match.group(2))
        cost = int(match.group(1).replace(",", ""))
        if inclusive:
            if not level:
                found[name] = max(found.get(name, 0), cost)
        else:
            found[name] = found.get(name, 0) + cost
    return found


def _short(name: str) -> tuple[str, bool]:
    """``file:function'N [object]`` as the function's name and whether it is a recursion
    level below the first; a function of an unknown file (``???``: an extension without
    symbols) is named by its object's base name and address."""
    place, _, obj = name.partition(" [")
    file, _, function = place.rpartition(":")
    function, quote, _ = function.partition("'")
    if file == "???":
        return f"{Path(obj.rstrip(']')).name}:{function}", bool(quote)
    return function, bool(quote)


def total(path: Path) -> int:
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise ValueError(f"no totals in {path}")


def slopes(small: Path, big: Path, turns: int, inclusive: bool) -> dict[str, float]:
    a, b = costs(small, inclusive), costs(big, inclusive)
    return {k: (b.get(k, 0) - a.get(k, 0)) / turns for k in a.keys() | b.keys()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", type=int, default=200)
    parser.add_argument("--big", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--src", default=str(HERE.parent / "src"))
    parser.add_argument("--bare", action="store_true", help="profile bare_loop.py too")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="above 1: the run process is the driver; its slope is what it does per result",
    )
    parser.add_argument("--keep", help="a folder to keep the callgrind files in")
    parser.add_argument("--against", help="another source tree, profiled the same way")
    parser.add_argument(
        "--calls",
        action="store_true",
        help="no callgrind: each Python function's calls (and cProfile time) per turn",
    )
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONHASHSEED"] = "0"  # str hashes, hence dict probe counts, the same every run
    sizes = (args.small, args.big)
    turns = args.big - args.small
    for tree in (args.src, args.against):  # else the first run compiles what it imports
        if tree:
            subprocess.run([sys.executable, "-m", "compileall", "-q", tree], env=env, check=True)
    agent, url = start_agent(0)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(args.keep or tmp)
            folder.mkdir(parents=True, exist_ok=True)
            files: dict[tuple[str, int], Path] = {}
            for n in sizes:
                data = Path(tmp) / f"d{n}.csv"
                write_dataset(data, n, 1)
                cmd = [sys.executable, "-c", RUN, str(Path(args.src).resolve()), "run"]
                cmd += ["--dataset", str(data), "--target", url]
                cmd += ["--concurrency", str(args.concurrency), "--quiet"]
                cmd += ["--workers", str(args.workers)]
                cmd += ["--store", f"sqlite:///{tmp}/s{n}.db"]
                if args.calls:
                    stats = folder / f"calls{n}.prof"
                    cmd[2:4] = [CALLS, str(Path(args.src).resolve()), str(stats)]
                    subprocess.run(cmd, env=env, check=False, capture_output=True)
                    files[("assay", n)] = stats
                    continue
                files[("assay", n)] = profile(cmd, folder, f"assay{n}", env)
                if args.against:
                    other = [*cmd[:3], str(Path(args.against).resolve()), *cmd[4:]]
                    other[-1] = f"sqlite:///{tmp}/o{n}.db"
                    files[("against", n)] = profile(other, folder, f"against{n}", env)
                if args.bare:
                    bare = [sys.executable, str(HERE / "bare_loop.py"), url, str(n)]
                    files[("bare", n)] = profile(
                        [*bare, str(args.concurrency)], folder, f"bare{n}", env
                    )
            if args.calls:
                calls(files, sizes, turns, args.top)
            elif args.against:
                against(files, sizes, turns, args.top)
            else:
                report(files, sizes, turns, args.bare, args.top)
    finally:
        agent.kill()


def calls(files: dict[tuple[str, int], Path], sizes: tuple[int, int], turns: int, top: int) -> None:
    """Each Python function's calls per turn, and its own and cumulative cProfile time."""
    import pstats

    small, big = (pstats.Stats(str(files[("assay", n)])).stats for n in sizes)  # type: ignore[attr-defined]
    rows = []
    for key, (_, calls_big, own_big, cum_big, _) in big.items():
        _, calls_small, own_small, cum_small, _ = small.get(key, (0, 0, 0.0, 0.0, None))
        per = (calls_big - calls_small) / turns
        if per > 0:
            own = (own_big - own_small) / turns * 1e6
            cum = (cum_big - cum_small) / turns * 1e6
            rows.append((own, per, cum, f"{Path(key[0]).name}:{key[1]}:{key[2]}"))
    print("calls per turn, own us, cumulative us (cProfile: its own overhead included)")
    for own, per, cum, name in sorted(rows, reverse=True)[:top]:
        print(f"{per:8.2f} {own:9.2f} {cum:9.2f}  {name}")


def against(
    files: dict[tuple[str, int], Path], sizes: tuple[int, int], turns: int, top: int
) -> None:
    """Both trees' totals per turn, and each function's exclusive slope in both."""
    got = {}
    for v in ("against", "assay"):
        whole = (total(files[(v, sizes[1])]) - total(files[(v, sizes[0])])) / turns
        print(f"{v}: {whole:,.0f} instructions per turn")
        got[v] = slopes(files[(v, sizes[0])], files[(v, sizes[1])], turns, False)
    a, b = got["against"], got["assay"]
    print("\nexclusive, per turn: --against, --src, difference")
    for name in sorted(a.keys() | b.keys(), key=lambda k: -abs(b.get(k, 0) - a.get(k, 0)))[:top]:
        before, after = a.get(name, 0), b.get(name, 0)
        print(f"{before:12,.0f} {after:12,.0f} {after - before:+12,.0f}  {name}")


def report(
    files: dict[tuple[str, int], Path], sizes: tuple[int, int], turns: int, bare: bool, top: int
) -> None:
    variants = ["assay", "bare"] if bare else ["assay"]
    for v in variants:
        whole = (total(files[(v, sizes[1])]) - total(files[(v, sizes[0])])) / turns
        print(f"{v}: {whole:,.0f} instructions per turn ({sizes[1]} vs {sizes[0]} tests)")
    for inclusive in (True, False):
        kind = "inclusive" if inclusive else "exclusive"
        got = {
            v: slopes(files[(v, sizes[0])], files[(v, sizes[1])], turns, inclusive)
            for v in variants
        }
        names = sorted(got["assay"], key=lambda k: -abs(got["assay"][k]))
        if bare:
            names = sorted(
                got["assay"].keys() | got["bare"].keys(),
                key=lambda k: -abs(got["assay"].get(k, 0) - got["bare"].get(k, 0)),
            )
            print(f"\n{kind}, per turn: assay, bare loop, assay - bare (by |difference|)")
        else:
            print(f"\n{kind}, per turn")
        for name in names[:top]:
            a = got["assay"].get(name, 0)
            if bare:
                b = got["bare"].get(name, 0)
                print(f"{a:12,.0f} {b:12,.0f} {a - b:+12,.0f}  {name}")
            else:
                print(f"{a:12,.0f}  {name}")


if __name__ == "__main__":
    main()
