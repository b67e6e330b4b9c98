"""A metric whose details come from outside assay (a plugin's class, a user's grader) gets
them copied plain within ``plain_json``'s limits: details that share their parts (``v = [v,
v]`` over and over) or contain themselves fail that metric with the reason, instead of being
walked path by path when the result is stored (2**40 values for 40 levels: the run stops).
Found by review."""

from __future__ import annotations

from typing import Any

from assay.metrics.base import Metric, MetricContext, MetricOptions, Score, _foreign
from assay.metrics.code_grader import Code
from assay.metrics.comparison import Equality
from assay.metrics.guard import score_inline
from assay.metrics.registry import FunctionMetric
from assay.results.models import MetricResult
from assay.runner.writer import encode_result
from tests.store.test_proved_rows import sent


def _shared(levels: int) -> list[Any]:
    value: list[Any] = [1]
    for _ in range(levels):
        value = [value, value]  # 2**levels leaves, 2 * levels + 1 objects
    return value


class _Plugin(Metric[MetricOptions]):
    name = "plugin_details"
    details: Any = None

    def measure(self, ctx: MetricContext) -> Score:
        return Score(1.0, details=self.details)


def _scored(details: Any) -> MetricResult:
    """The plugin's result, scored inline (in a task: the guard asks whether it is being
    cancelled)."""
    metric = _Plugin(MetricOptions())
    metric.details = details
    outcome = score_inline(metric, MetricContext(input="q", response="a"))
    assert isinstance(outcome, MetricResult)
    return outcome


async def test_details_sharing_their_parts_past_the_limit_fail_only_that_metric() -> None:
    failed = _scored({"tree": _shared(21)})  # 2,097,152 leaves: over the 1,000,000 values
    assert failed.passed is False and failed.details is None
    assert failed.error is not None
    assert "the metric's details cannot be recorded as JSON" in failed.error
    assert "more than 1,000,000 values" in failed.error


async def test_details_containing_themselves_fail_that_metric() -> None:
    cyclic: dict[str, Any] = {"a": 1}
    cyclic["self"] = cyclic
    failed = _scored(cyclic)
    assert failed.error is not None and "contains itself (a cycle)" in failed.error


async def test_foreign_details_within_the_limits_are_kept_as_a_plain_copy() -> None:
    shared = _shared(3)
    details = {"tree": shared, "n": 2**40, "odd": object}
    kept = _scored(details)
    assert kept.error is None and kept.passed is True
    assert kept.details is not None
    assert kept.details["tree"] == shared and kept.details["tree"] is not shared
    assert kept.details["n"] == 2**40 and kept.details["odd"] == str(object)
    stored, payload, _ = encode_result(sent(metric_results=[kept]))
    assert b'"tree":[[[[1],[1]],[[1],[1]]]' in payload  # stored as the tree it stands for


def test_only_metrics_running_foreign_code_copy_their_details() -> None:
    assert _foreign(_Plugin) and _foreign(Code) and _foreign(FunctionMetric)
    assert not _foreign(Equality)
