"""Benchmark the pattern detectors on hostile replies: milliseconds per MB of reply.

Each adversarial reply is about 1 MB of text built to make a backtracking pattern work as
hard as it can: long runs of the characters a pattern's repetitions accept, each run ending
just short of a match (``%%%…@`` for e-mail, digit runs, ``sk-sk-…``, a private-key header
followed by words, numbers glued to letters), plus an ordinary 1 MB reply for comparison.
Every detector metric (``pii``, ``secrets``, ``prompt_leakage``, ``numeric`` with
``extract``, ``json_valid`` with code fences) scores every reply with ``run_sync``, best of
three. "x ordinary" divides by the same metric on the ordinary reply: a linear scan stays
within a small factor of it whatever the input; a quadratic one grows with the size
(``--size 2`` doubles the replies to show it).

    .venv/bin/python bench/bench_detectors.py            # about a minute on 2 cores
    .venv/bin/python bench/bench_detectors.py --size 0.25
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from typing import Any

from assay.metrics import MetricContext, build_metric

MB = 1_000_000

METRICS: list[tuple[str, dict[str, Any]]] = [
    ("pii", {}),
    ("secrets", {}),
    ("prompt_leakage", {"canary": "ZEBRA-7731", "system_prompt": "You are a travel agent. " * 4}),
    ("numeric", {"extract": True}),
    ("json_valid", {"allow_code_fence": True}),
]


def repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


# name -> reply of ``size`` characters
REPLIES: dict[str, Callable[[int], str]] = {
    "ordinary prose": lambda n: repeat("Your booking at the Hyatt is confirmed for 2 nights. ", n),
    "%%%…@ (e-mail local part)": lambda n: repeat("%", n - 1) + "@",
    "a@a.a.a.… (e-mail labels)": lambda n: "a@" + repeat("a.", n - 2),
    "digits 1111…": lambda n: repeat("1", n),
    "digit groups 1 1 1 …": lambda n: repeat("1 ", n),
    "+1 (2) 33 44 … (phone)": lambda n: repeat("+1 (2) 33 44 55 ", n),
    "GB82 WEST 1234 … (IBAN)": lambda n: repeat("GB82 WEST 1234 ", n),
    "sk-sk-sk-… (API keys)": lambda n: repeat("sk-", n),
    "-----BEGIN A B C … (key header)": lambda n: repeat("-----BEGIN A B C D E F ", n),
    "aws_secret_key = … (label)": lambda n: repeat("aws_secret_key =   ", n),
    "1a1a1a… (numbers in words)": lambda n: repeat("1", n - 2) + "x1",
    "```\\n + blanks (code fence)": lambda n: "```\n" + repeat(" ", n - 4),
}


def seconds(metric: Any, ctx: MetricContext, passes: int = 3) -> float:
    best = float("inf")
    for _ in range(passes):
        t0 = time.perf_counter()
        metric.run_sync(ctx)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=float, default=1.0, help="reply size in MB")
    args = parser.parse_args()
    size = int(args.size * MB)
    print(f"python {sys.version.split()[0]}, {platform.machine()}, {os.cpu_count()} cores")
    print(f"replies of {size / MB:g} MB; ms per MB, best of 3\n")
    for name, options in METRICS:
        metric = build_metric(name, options)
        ordinary = None
        print(f"{name} {options if name != 'prompt_leakage' else '(canary, system_prompt)'}")
        for label, make in REPLIES.items():
            ctx = MetricContext(input="q", response=make(size), ground_truth="42")
            ms_per_mb = seconds(metric, ctx) * 1000 / (size / MB)
            ordinary = ordinary or ms_per_mb
            print(f"  {label:36s} {ms_per_mb:9.1f} ms/MB  {ms_per_mb / ordinary:6.1f}x ordinary")
        print()


if __name__ == "__main__":
    main()
