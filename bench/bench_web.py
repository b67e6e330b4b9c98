"""Benchmark the dashboard (``assay serve``) over big stores, served for real.

- page time of a run of 10,000 tests: the run page (first and last page of tests, filtered
  by status, tag and text), the API's page of results, and the compare page of two such
  runs; against the baseline of loading the whole run (``Store.load_report``), which a
  dashboard without paging would do for every view;
- page time of a test with 50 turns (each with a tool call and two metrics);
- the server's memory (RSS, and its peak) with a store of 100 runs, after visiting the
  runs list and every run's page.

Each time is the median of several requests, in a separate ``assay serve`` process on
127.0.0.1 with a fresh SQLite store in a temporary folder.

    .venv/bin/python bench/bench_web.py            # about a minute
    .venv/bin/python bench/bench_web.py --quick    # 2,000 tests, 20 runs
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from assay.results.models import MetricResult, RunInfo, TestResult, ToolInvocation, TurnResult
from assay.results.rollup import rollup_multi_turn, single_turn_result, summarize
from assay.store import Store, open_store

ASSAY = str(Path(sys.executable).parent / "assay")
BATCH = 500
REQUESTS = 7  # per page; the median is reported


def turn(i: int, k: int = 0) -> TurnResult:
    good = (i + k) % 4 != 0
    return TurnResult(
        turn_index=k,
        input=f"question {i}.{k}: which hotels in Basel are under CHF {100 + i % 90}?",
        response=f"Hotel {i % 37} and Hotel {i % 41} are under CHF {100 + i % 90}.",
        ground_truth=f"Hotel {i % 37}",
        tool_calls=["search_hotels"],
        tool_invocations=[
            ToolInvocation(
                name="search_hotels",
                args={"location": "Basel", "max_price": 100 + i % 90},
                result={"hotels": [{"id": j, "name": f"Hotel {j}"} for j in range(8)]},
            )
        ],
        metric_results=[
            MetricResult(metric_name="equality", score=float(good), passed=good),
            MetricResult(metric_name="latency", score=1.0, passed=True, dimension="performance"),
        ],
        passed=good,
        execution_time_ms=100 + i % 50,
    )


def store_run(store: Store, run_id: str, started: str, results: list[TestResult]) -> None:
    store.create_run(
        RunInfo(
            id=run_id,
            suite_name="bench",
            status="running",
            started_at=started,
            assay_version="bench",
        )
    )
    for start in range(0, len(results), BATCH):
        store.add_results(run_id, list(enumerate(results[start : start + BATCH], start)))
    store.finish_run(run_id, "completed", summarize(results), started)


def big_run(n: int, shift: int) -> list[TestResult]:
    stamp = "2025-01-01T00:00:00+00:00"
    return [
        single_turn_result(
            f"test-{i}", turn(i + shift), stamp, tags=["fees"] if i % 10 == 0 else []
        )
        for i in range(n)
    ]


def long_test() -> TestResult:
    turns = [turn(7, k) for k in range(50)]
    return rollup_multi_turn("fifty-turns", turns, "2025-01-01T00:00:00+00:00")


def serve(store_url: str, folder: Path) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [ASSAY, "serve", "--store", store_url, "--port", "0"],
        cwd=folder,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    assert proc.stdout is not None
    found = re.search(r"http://127\.0\.0\.1:\d+", proc.stdout.readline())
    if not found:
        proc.kill()
        raise SystemExit("assay serve did not start")
    return proc, found.group(0)


def median_ms(url: str) -> tuple[float, int]:
    """The median time of REQUESTS requests (the first, cold, is left out), and the size."""
    times = []
    size = 0
    for _ in range(REQUESTS + 1):
        start = time.perf_counter()
        with urllib.request.urlopen(url, timeout=300) as response:
            size = len(response.read())
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:]), size


def first_ms(url: str) -> float:
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=300) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def rss_mib(pid: int) -> tuple[float, float]:
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    kib = [int(fields[name].split()[0]) for name in ("VmRSS", "VmHWM")]
    return kib[0] / 1024, kib[1] / 1024


def bench_pages(folder: Path, n: int) -> None:
    url = f"sqlite:///{folder / 'pages.db'}"
    with open_store(url) as store:
        store_run(store, "a" * 32, "2025-01-01T00:00:00+00:00", big_run(n, 0))
        store_run(store, "b" * 32, "2025-01-02T00:00:00+00:00", big_run(n, 1) + [long_test()])
        start = time.perf_counter()
        store.load_report("b" * 32)
        baseline = (time.perf_counter() - start) * 1000
    proc, base = serve(url, folder)
    try:
        with urllib.request.urlopen(f"{base}/api/runs/{'b' * 32}/results?q=fifty", timeout=60) as r:
            test_id = int(re.search(rb'"id":(\d+)', r.read()).group(1))  # type: ignore[union-attr]
        run = f"{base}/runs/{'b' * 32}"
        pages = [
            ("run page, first 50 tests", run),
            ("run page, last 50 tests", f"{run}?offset={n - 49}"),
            ("run page, status=failed", f"{run}?status=failed"),
            ("run page, tag=fees", f"{run}?tag=fees"),
            ("run page, text search", f"{run}?q=CHF+142"),
            ("API: 50 results as JSON", f"{base}/api/runs/{'b' * 32}/results"),
            ("compare page, 2 runs", f"{base}/compare?a={'a' * 32}&b={'b' * 32}"),
            ("test page, 50 turns", f"{run}/tests/{test_id}"),
        ]
        print(f"\n{n:,} tests a run; baseline: load_report of the run = {baseline:.0f} ms")
        print(f"{'page':32} {'first':>9} {'median':>9} {'x baseline':>11} {'size':>9}")
        for label, page in pages:
            cold = first_ms(page)
            ms, size = median_ms(page)
            print(
                f"{label:32} {cold:6.0f} ms {ms:6.0f} ms {ms / baseline:10.2f}x "
                f"{size / 1024:6.0f} KiB"
            )
        print(f"server RSS after these pages: {rss_mib(proc.pid)[0]:.0f} MiB")
    finally:
        proc.terminate()
        proc.wait(60)


def bench_memory(folder: Path, runs: int, tests: int) -> None:
    url = f"sqlite:///{folder / 'history.db'}"
    with open_store(url) as store:
        for k in range(runs):
            results = big_run(tests, k)
            store_run(
                store,
                f"{k:04d}" + "c" * 28,
                f"2025-02-{1 + k % 28:02d}T{k % 24:02d}:00:00+00:00",
                results,
            )
    proc, base = serve(url, folder)
    try:
        time.sleep(0.5)
        idle = rss_mib(proc.pid)
        median_ms(f"{base}/runs")
        for k in range(runs):
            with urllib.request.urlopen(f"{base}/runs/{k:04d}{'c' * 28}", timeout=60) as r:
                r.read()
        for offset in range(0, runs, 50):
            median_ms(f"{base}/runs?offset={offset}")
        ms, _ = median_ms(f"{base}/runs")
        after, peak = rss_mib(proc.pid)
        print(
            f"\nstore of {runs} runs x {tests} tests: server RSS idle {idle[0]:.0f} MiB, "
            f"after the runs list and every run page {after:.0f} MiB (peak {peak:.0f} MiB); "
            f"runs page median {ms:.0f} ms"
        )
    finally:
        proc.terminate()
        proc.wait(60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_pages(folder, 2_000 if args.quick else 10_000)
        bench_memory(folder, 20 if args.quick else 100, 100)


if __name__ == "__main__":
    main()
