"""How a run is spread: over how many worker processes (``--workers``) or Ray tasks
(``--executor ray``), and the driving of those workers for ``RunJob``.

The default is one worker per core when the run has more than WORKERS_FROM_TESTS tests
(below that, starting the workers costs more than they save), else the run stays in one
process. Never more workers than the concurrency, the tests, or the smallest
``max_in_flight`` of an endpoint (each worker needs at least one slot of it). Goal tests
and a Python agent defined in a script's ``__main__`` run in one process: the first need the
store as they run, the second cannot be imported by another interpreter.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from assay.cases.models import TestCase
from assay.config import WORKERS_FROM_TESTS
from assay.errors import ConfigError, Problem
from assay.run_options import RunOptions
from assay.runner.plan import RunPlan
from assay.runner.pool import EncodedSink, LocalPool, Lost, Probe
from assay.runner.shard import ShardSpec, Slot
from assay.runner.spread import cap, split
from assay.secrets import REDACTOR

RAY_INSTALL = "pip install 'assay[ray]'"


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class Sharding:
    """The run's workers: ``workers`` of them (None: as many as the Ray cluster has CPUs),
    and why, as the terminal says it."""

    executor: str = "local"
    workers: int | None = 1
    why: str = ""
    ray_address: str | None = None

    @property
    def sharded(self) -> bool:
        return self.executor == "ray" or (self.workers or 1) > 1


def _refuse(flag: str, why: str) -> ConfigError:
    return ConfigError([Problem("options", flag, why)])


def choose(options: RunOptions, plan: RunPlan, cases: list[TestCase], total: int) -> Sharding:
    """The workers for a run of ``total`` results (tests x repeat) at ``concurrency``."""
    one_process = None
    if any(case.type == "goal" for case in cases):
        one_process = "goal tests run in one process (they use the store as they run)"
    elif (plan.target.python or "").startswith("__main__:"):
        one_process = "a Python agent defined in __main__ cannot be imported by a worker"
    if options.executor == "ray":
        _import_ray()
        if one_process:
            raise _refuse("--executor", f"{one_process}; run it with --executor local")
        count = options.workers and cap(options.workers, plan, total)
        why = (
            f"{count} Ray task{'s' * (count != 1)}"
            if count
            else "one Ray task per CPU of the cluster"
        )
        if count and options.workers and count < options.workers:
            why += " (capped by the concurrency, the tests or max_in_flight)"
        return Sharding("ray", count, why, options.ray_address)
    if options.workers is None:
        count = cores() if total > WORKERS_FROM_TESTS else 1
        why = f"one per core, for {total:,} tests"
        if count == 1 or one_process:
            return Sharding()
    else:
        count, why = options.workers, "--workers"
        if count > 1 and one_process:
            raise _refuse("--workers", f"{one_process}; run it with --workers 1")
    capped = cap(count, plan, total)
    if capped < count:
        why += f", capped at {capped} by the concurrency, the tests or max_in_flight"
    if capped == 1:
        return Sharding(why=f"one process ({why})" if count > 1 else "")
    return Sharding("local", capped, f"{capped} worker processes ({why})")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise _refuse(
            "--executor", f"--executor ray needs Ray, which is not installed: {RAY_INSTALL}"
        ) from None
    return ray


async def drive(
    sharding: Sharding,
    plan: RunPlan,
    cases: list[TestCase],
    run_id: str,
    cache_path: str | None,
    work: list[tuple[int, TestCase, int]],
    on_encoded: EncodedSink,
    ready: Probe,
) -> Lost:
    """Run ``work`` on the workers, each result to ``on_encoded``, once ``ready`` (the
    target's probe) has returned; what was lost."""
    index = {id(case): i for i, case in enumerate(cases)}
    slots: list[Slot] = [(position, index[id(case)], r) for position, case, r in work]
    secrets = sorted(REDACTOR.secrets)
    if sharding.executor == "ray":
        from assay.runner.ray_pool import RayPool

        spec = ShardSpec(plan, cases, run_id, 0, 1, plan.suite.execution.concurrency, secrets)
        pool = RayPool(spec, sharding.workers, sharding.ray_address, on_encoded)
        await ready()
        return await pool.run(slots)
    spec = ShardSpec(plan, cases, run_id, 0, 1, 1, secrets, cache_path)
    return await LocalPool(split(spec, sharding.workers or 1), on_encoded).run(slots, ready)
