"""How many workers a run can use, and each one's share of it: the local pool and Ray both
spread a run so (``assay.runner.sharding`` chooses between them)."""

from __future__ import annotations

from dataclasses import replace

from assay.net.limits import shares
from assay.runner.plan import RunPlan
from assay.runner.shard import ShardSpec


def _smallest_in_flight(plan: RunPlan) -> int | None:
    target = plan.target
    spec = target.http or target.openai
    limits = [getattr(spec, "max_in_flight", None)]
    limits += [getattr(model, "max_in_flight", None) for model in (plan.judge, plan.simulator)]
    return min((limit for limit in limits if limit), default=None)


def cap(count: int, plan: RunPlan, total: int) -> int:
    """``count`` workers, but no more than the run's concurrency, its ``total`` results, or
    the smallest ``max_in_flight`` of an endpoint (each worker needs a slot of each)."""
    limit = _smallest_in_flight(plan)
    return min(count, plan.suite.execution.concurrency, max(total, 1), limit or count)


def split(spec: ShardSpec, count: int) -> list[ShardSpec]:
    """``spec`` for each of ``count`` workers: its number and its share of the run's
    concurrency (and, through ``workers``, of each endpoint limit)."""
    spec = replace(spec, workers=count)
    concurrency = shares(spec.plan.suite.execution.concurrency, count)
    return [spec.for_worker(i, share) for i, share in enumerate(concurrency)]
