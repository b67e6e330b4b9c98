"""Benchmark ``assay diff``'s intervals: the paired bootstrap over 10,000 shared tests.

Two runs of 10,000 tests, each test with a pass/fail, a 0/1 ``equality`` score and a
continuous ``similarity`` score, compared with ``diff_outcomes`` (the code under ``assay
diff`` and the dashboard) after the store has read them. The figures are the median of
three passes of: the whole comparison; one bootstrap of the pass-rate change (3 distinct
differences: multinomial counts); the same data resampled index by index (what a plain
bootstrap does, the baseline); one bootstrap of the continuous score (every difference
distinct: index draws).

    .venv/bin/python bench/bench_diff.py
"""

from __future__ import annotations

import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

from assay.store import MetricOutcome, TestOutcome
from assay.store.bootstrap import RESAMPLES, SEED, paired_bootstrap
from assay.store.compare import diff_outcomes

TESTS = 10_000


def _run(rng: random.Random, pass_p: float) -> list[TestOutcome]:
    out = []
    for i in range(TESTS):
        ok = rng.random() < pass_p
        metrics = {
            "equality": MetricOutcome(float(ok), ok),
            "similarity": MetricOutcome(rng.random(), None),
        }
        out.append(TestOutcome(f"test-{i}", 0, "passed" if ok else "failed", ok, metrics))
    return out


def _median(fn: Callable[[], object]) -> float:
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _plain(before: list[float], after: list[float]) -> None:
    diffs = np.asarray(after) - np.asarray(before)
    rng = np.random.default_rng(SEED)
    for _ in range(0, RESAMPLES, 200):
        diffs[rng.integers(0, len(diffs), size=(200, len(diffs)))].mean(axis=1)


def main() -> None:
    rng = random.Random(1)
    a, b = _run(rng, 0.8), _run(rng, 0.82)
    passed_a = [float(o.passed) for o in a]
    passed_b = [float(o.passed) for o in b]
    sim_a = [o.metrics["similarity"].score or 0.0 for o in a]
    sim_b = [o.metrics["similarity"].score or 0.0 for o in b]
    whole = _median(lambda: diff_outcomes("A", a, "B", b))
    counts = _median(lambda: paired_bootstrap(passed_a, passed_b))
    plain = _median(lambda: _plain(passed_a, passed_b))
    indices = _median(lambda: paired_bootstrap(sim_a, sim_b))
    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print(f"{TESTS:,} shared tests, {RESAMPLES:,} resamples, median of 3")
    print(f"whole diff (pass rate + 2 metrics + test by test): {whole:.2f} s")
    print(f"pass rate, multinomial counts: {counts * 1000:.1f} ms")
    print(f"pass rate, index draws (baseline): {plain * 1000:.0f} ms ({plain / counts:.0f}x)")
    print(f"continuous score, index draws: {indices * 1000:.0f} ms")


if __name__ == "__main__":
    main()
