"""The paired bootstrap: how sure is a change between two runs?

Two runs of the same tests differ by noise as well as by what changed: an agent that is
asked the same question twice does not always answer alike. For each test both runs share
we take the difference ``after - before`` (of whether it passed, or of a metric's score);
the change is their mean. To know how far that mean could be off, we resample the tests
with replacement many times and take the mean of each resample: the middle 95% of those
means is the interval. A change is *significant* when the interval excludes zero.

The resampling is seeded, so the same two runs always give the same interval (the CLI and
the dashboard agree to the last digit).

Drawing ``n`` tests with replacement only matters through *how many times each distinct
difference was drawn*, so when the differences take few distinct values (a pass-rate change
is -1, 0 or +1 per test) we draw those counts from a multinomial instead of ``n`` indices:
the same distribution, thousands of times cheaper. ``bench/bench_diff.py`` measures both.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

RESAMPLES = 5_000
SEED = 14
LEVEL = 0.95
# draw multinomial counts when distinct values x this factor <= tests: a binomial draw per
# distinct value costs about as much as this many index draws (measured in bench_diff.py)
_MULTINOMIAL_COST = 4
_CHUNK = 2_000_000  # index draws held in memory at once (16 MB)


@dataclass(frozen=True)
class Interval:
    """The mean change over the pairs and its bootstrap percentile interval."""

    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_bootstrap(
    before: Sequence[float],
    after: Sequence[float],
    *,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    level: float = LEVEL,
) -> Interval:
    """The mean of ``after[i] - before[i]`` with its ``level`` percentile interval over
    ``resamples`` resamples of the pairs (seeded: the same input gives the same interval).

    The interval's ends are order statistics of the sorted resample means: the
    ``floor(a * B)``-th and the ``(ceil((1 - a) * B) - 1)``-th (0-based) for
    ``a = (1 - level) / 2`` and ``B`` resamples."""
    if len(before) != len(after) or not before:
        raise ValueError("paired_bootstrap needs two equally long, non-empty sequences")
    import numpy as np  # here, not at import: `assay run` imports the store, never this

    diffs = np.asarray(after, dtype=float) - np.asarray(before, dtype=float)
    n = len(diffs)
    rng = np.random.default_rng(seed)
    values, counts = np.unique(diffs, return_counts=True)
    if len(values) * _MULTINOMIAL_COST <= n:
        draws = rng.multinomial(n, counts / n, size=resamples)
        means = draws @ values / n
    else:
        means = np.empty(resamples)
        step = max(1, _CHUNK // n)
        for start in range(0, resamples, step):
            size = min(step, resamples - start)
            means[start : start + size] = diffs[rng.integers(0, n, size=(size, n))].mean(axis=1)
    means.sort()
    tail = (1 - level) / 2
    low = float(means[int(np.floor(tail * resamples))])
    high = float(means[int(np.ceil((1 - tail) * resamples)) - 1])
    return Interval(mean=float(diffs.mean()), low=low, high=high)
