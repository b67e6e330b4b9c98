"""HoloDeck's fixture graders (justinbarias/holodeck, tests/fixtures/graders/my_benchmarks.py)
written against assay's MetricContext: ``ctx.response`` for ``ctx.agent_response``, an
``assay.Score`` (``reasoning``) for a ``GraderResult`` (``reason``)."""

from __future__ import annotations

from typing import Any

from assay import MetricContext, Score


def raises_value_error(ctx: MetricContext) -> Score:
    raise ValueError("intentional fixture failure")


def returns_float(ctx: MetricContext) -> float:
    return 0.75


def returns_grader_result(ctx: MetricContext) -> Score:
    return Score(1.0, passed=True, reasoning="fixture result", details={"foo": "bar"})


def returns_dict(ctx: MetricContext) -> dict[str, Any]:
    return {"score": 0.9, "passed": True}


def returns_true(ctx: MetricContext) -> bool:
    return True


def returns_false(ctx: MetricContext) -> bool:
    return False


def returns_a_score_without_a_verdict(ctx: MetricContext) -> Score:
    return Score(0.75)


def returns_a_low_score(ctx: MetricContext) -> float:
    return 0.25
