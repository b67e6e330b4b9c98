"""Benchmark the deterministic metrics: turns scored per second, per metric and all together.

Generates 100,000 turns shaped like a travel agent's (a reply of 15-45 words with a price,
an ID and sometimes an e-mail address, a phone number or an API key; a short ground truth;
a latency), builds each metric as a suite would (``build_metric``), and scores every turn
with ``run_sync`` — the metric's work plus the ``MetricResult`` the runner stores — keeping
the best of three passes. The baseline is a metric that does nothing but return 1.0 through
the same path, so "x baseline" says how much each metric costs over the per-turn floor of
the protocol itself.

    .venv/bin/python bench/bench_metrics.py           # about a minute on 2 cores
    .venv/bin/python bench/bench_metrics.py --quick   # 10,000 turns
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from typing import Any, ClassVar

from assay.metrics import Metric, MetricContext, MetricOptions, Score, build_metric

METRICS: list[tuple[str, dict[str, Any]]] = [
    ("equality", {"case_insensitive": True}),
    ("numeric", {"extract": True}),
    ("contains", {"case_insensitive": True}),
    ("regex", {"pattern": r"\b(?:ID|id) ?\d+\b"}),
    ("fuzzy", {"threshold": 0.9}),
    ("token_f1", {}),
    ("rouge", {"type": "rougeL"}),
    ("pii", {}),
    ("secrets", {}),
    ("latency", {"max_ms": 2000}),
]

_FILLER = (
    "the hotel is near the old town and the station with breakfast included rooms "
    "available from Monday until Sunday your booking reference is confirmed please "
    "note that prices include taxes but not the city tax of a few francs per night"
)
WORDS = _FILLER.split()
HOTELS = ("Holiday Inn", "Hyatt", "Hilton", "Les Trois Rois", "Ibis", "Radisson")


class Baseline(Metric):
    """The floor: no work, one MetricResult."""

    name: ClassVar[str] = "baseline"
    requires = frozenset()

    def measure(self, ctx: MetricContext) -> Score:
        return Score(1.0)


def make_turn(rng: random.Random, i: int) -> MetricContext:
    hotel = rng.choice(HOTELS)
    price = rng.randrange(80, 2500)
    words = rng.sample(WORDS, rng.randrange(12, 40))
    reply = f"{hotel} (ID {i % 97}) costs {price:,} CHF for {rng.randrange(1, 14)} nights. "
    reply += " ".join(words) + "."
    extra = i % 10
    if extra == 0:
        reply += f" Questions? Write to guest{i}@example.com."
    elif extra == 1:
        reply += f" Call +41 61 {rng.randrange(100, 999)} {rng.randrange(10, 99)} 00."
    elif extra == 2:
        reply += " Debug: sk-" + "".join(rng.choices("abcdefXYZ0123456789", k=40))
    truth = str(price) if i % 2 else hotel
    return MetricContext(
        input=f"What does the cheapest hotel cost? ({i})",
        response=reply,
        ground_truth=truth,
        latency_ms=rng.uniform(100, 3000),
        turn_index=0,
        test_name=f"t{i}",
    )


def timed(metric: Metric, turns: list[MetricContext], repeat: int) -> float:
    """The best of ``repeat`` passes over every turn (the least disturbed by other load)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for ctx in turns:
            metric.run_sync(ctx)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 turns instead of 100,000")
    parser.add_argument("--turns", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3, help="passes per metric; best is kept")
    args = parser.parse_args()
    count = args.turns or (10_000 if args.quick else 100_000)

    rng = random.Random(7)
    turns = [make_turn(rng, i) for i in range(count)]
    print(
        f"{count:,} turns, best of {args.repeat} passes; "
        f"Python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores"
    )

    baseline = timed(Baseline(MetricOptions()), turns, args.repeat)
    print(f"\n{'metric':<12} {'seconds':>8} {'turns/s':>10} {'µs/turn':>8} {'x baseline':>10}")
    print(
        f"{'baseline':<12} {baseline:8.2f} {count / baseline:10,.0f} "
        f"{baseline / count * 1e6:8.1f} {1:9.1f}x"
    )
    total = 0.0
    for name, options in METRICS:
        seconds = timed(build_metric(name, options), turns, args.repeat)
        total += seconds
        print(
            f"{name:<12} {seconds:8.2f} {count / seconds:10,.0f} "
            f"{seconds / count * 1e6:8.1f} {seconds / baseline:9.1f}x"
        )
    print(
        f"\nall {len(METRICS)} metrics on every turn: {total:.1f} s, "
        f"{count / total:,.0f} turns/s ({total / count * 1e6:.0f} µs per turn)"
    )


if __name__ == "__main__":
    main()
