"""How many agent requests a ``--resume`` repeats after ``assay run`` is killed (SIGKILL).

Each request a resume repeats is an agent side effect (a booking, an e-mail) that happens
twice. Those in flight when the run died cannot be helped; a result that had come back but
was not yet stored should be rare. Per scenario: start ``bench/mock_agent.py`` (fixed
latency) logging each request's arrival and answer time, run ``assay run --dataset ...
--concurrency C`` against it, SIGKILL the assay process at a random moment once about a
third of the tests have been answered (its result writer then stores what it was handed
and exits; with ``--group`` the writer is killed too, as when a whole process group dies),
resume the run, and count the resumed run's requests that the first run had already sent
("repeated").

assay has at most C conversations in flight; a request is in flight for assay until it has
read and scored the reply, which can be well after the agent sent it when assay is the
bottleneck (at C = 1000 here). So the figure to keep small is "over": repeated requests
beyond the C in flight (the aim: at most 5). "Answered" counts the repeated requests the
agent had answered before the kill, for information.

    python bench/bench_resume.py                    # concurrency 10, 100, 1000; 100 ms agent
    python bench/bench_resume.py --concurrency 10 --repeat 5 --group
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_run import ASSAY, free_port, write_dataset

HERE = Path(__file__).resolve().parent
SCENARIOS = [(10, 600), (100, 6_000), (1000, 30_000)]  # (concurrency, tests)
KILL_AT = 1 / 3  # share of the tests answered when the run is killed


def start_agent(latency_ms: float, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    agent = subprocess.Popen(
        [sys.executable, str(HERE / "mock_agent.py"), str(port), str(latency_ms), str(log)]
    )
    for _ in range(100):
        try:
            import urllib.request

            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=0.5).read()
            return agent, f"http://127.0.0.1:{port}/chat"
        except OSError:
            time.sleep(0.05)
    agent.kill()
    raise SystemExit("the mock agent did not start")


def read_log(log: Path) -> list[tuple[str, float, float]]:
    rows = []
    for line in log.read_text().splitlines():
        query, arrived, answered = line.split("\t")
        rows.append((query, float(arrived), float(answered)))
    return rows


def stored(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            return int(conn.execute("select count(*) from assay_test_results").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def wait_until_settled(db: Path) -> int:
    """The stored count once the orphaned writer has stored what it had (stable for 1 s)."""
    last, since = -1, time.monotonic()
    while time.monotonic() - since < 1.0:
        now = stored(db)
        if now != last:
            last, since = now, time.monotonic()
        time.sleep(0.05)
    return last


def scenario(concurrency: int, n: int, latency_ms: float, group: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        log, data, db = folder / "agent.log", folder / "data.csv", folder / "assay.db"
        log.touch()
        write_dataset(data, n, 1)
        agent, url = start_agent(latency_ms, log)
        store = ["--store", f"sqlite:///{db}"]
        try:
            run = subprocess.Popen(
                [ASSAY, "run", "--dataset", str(data), "--target", url, "--quiet"]
                + ["--concurrency", str(concurrency), *store],
                cwd=folder,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            while len(log.read_text().splitlines()) < n * KILL_AT and run.poll() is None:
                time.sleep(0.005)
            # at a random point of the agent's latency: not just as a wave of answers leaves
            time.sleep(random.uniform(0, latency_ms / 1000))
            killed_at = time.time()
            if group:
                os.killpg(run.pid, signal.SIGKILL)
            else:
                os.kill(run.pid, signal.SIGKILL)
            run.wait()
            at_kill = wait_until_settled(db)
            time.sleep(latency_ms / 1000 + 0.5)  # requests in flight get their answers logged
            first = read_log(log)
            with sqlite3.connect(db) as conn:
                (run_id,) = conn.execute("select id from assay_runs").fetchone()
            resumed = subprocess.run(
                [ASSAY, "run", "--resume", run_id, "--target", url, "--quiet", *store],
                cwd=folder,
                capture_output=True,
                text=True,
                check=False,
            )
            if resumed.returncode not in (0, 1):
                raise SystemExit(f"the resume failed ({resumed.returncode}): {resumed.stderr}")
            again = {query for query, _, _ in read_log(log)[len(first) :]}
        finally:
            agent.kill()
            agent.wait()
    answered = {q for q, _, done in first if done < killed_at}
    sent = {q for q, arrived, _ in first if arrived < killed_at}
    return {
        "stored": at_kill,
        "answered": len(answered),
        "repeated": len(again & sent),
        "repeated_answered": len(again & answered),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--concurrency", type=int)
    parser.add_argument("--n", type=int, help="tests (default: by concurrency)")
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario")
    parser.add_argument("--group", action="store_true", help="kill the writer process too")
    args = parser.parse_args()
    chosen = [s for s in SCENARIOS if args.concurrency in (None, s[0])]
    if args.concurrency and not chosen:
        chosen = [(args.concurrency, args.concurrency * 60)]
    for concurrency, n in chosen:
        runs = [
            scenario(concurrency, args.n or n, args.latency_ms, args.group)
            for _ in range(args.repeat)
        ]
        over = [max(0, r["repeated"] - concurrency) for r in runs]
        print(
            f"concurrency {concurrency:>4}, {args.n or n:,} tests, {args.latency_ms:.0f} ms agent"
            f"{', process group killed' if args.group else ''}: answered before the kill "
            f"{statistics.median(r['answered'] for r in runs):.0f}, stored "
            f"{statistics.median(r['stored'] for r in runs):.0f}; repeated "
            f"{[int(r['repeated']) for r in runs]} (of which the agent had answered before "
            f"the kill {[int(r['repeated_answered']) for r in runs]}); over the "
            f"{concurrency} in flight: median {statistics.median(over):.0f}, max {max(over):.0f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
