"""``Metric.result`` makes a MetricResult without validating it only when every value is of
exactly its field's type; on any other value (a plugin's label, kind, dimension, threshold,
a user's score, reasoning or details) it gives what validating them gives, or the same
error, as the validating constructor it always took for them."""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict
from typing import Any

import pytest

from assay.metrics.base import Metric, MetricOptions, Score
from assay.results.models import MetricResult


class _Text(str):
    pass


def _metric(label: Any, kind: Any, dimension: Any, threshold: Any) -> Metric:
    class Plugin(Metric[MetricOptions]):
        name = "plugin"
        default_threshold = threshold

        @property
        def label(self) -> Any:
            return label

    Plugin.kind = kind
    Plugin.dimension = dimension
    Plugin.__module__ = "assay.metrics.test_only"  # assay's own: details not copied first
    return Plugin(MetricOptions())


def _validated(metric: Metric, score: Score, **extra: Any) -> MetricResult | str:
    """What ``result`` made before it had a fast path: the validating constructor."""
    threshold = metric.threshold
    passed = score.passed
    if passed is None:
        passed = score.score >= threshold if threshold is not None else score.score >= 1
    try:
        return MetricResult(
            metric_name=metric.label,
            kind=metric.kind,
            dimension=metric.dimension,
            score=score.score,
            threshold=threshold,
            passed=passed,
            reasoning=score.reasoning,
            details=score.details,
            evaluation_time_ms=0,
            **extra,
        )
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _made(metric: Metric, score: Score, **extra: Any) -> MetricResult | str:
    try:
        return metric.result(score, time.perf_counter(), **extra)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def _shown(result: MetricResult | str) -> Any:
    if isinstance(result, str):
        return result
    fields = dict(result.__dict__, evaluation_time_ms=0)
    return (
        repr(fields),
        [type(v) for v in fields.values()],
        sorted(result.model_fields_set),
        list(fields),
    )


LABELS = ["eq", _Text("eq"), 5, "é\x00\ud800"]
KINDS = ["standard", "judge", "other", _Text("tool")]
DIMENSIONS = ["comparison", None, 3, _Text("d")]
THRESHOLDS = [None, 0.5, 1, True, 2**64]
SCORES = [
    Score(1.0),
    Score(0.0, reasoning="no"),
    Score(1),  # type: ignore[arg-type]
    Score(True),  # type: ignore[arg-type]
    Score(float("nan")),
    Score(0.5, passed=False, reasoning=_Text("r")),
    Score(0.5, passed=1),  # type: ignore[arg-type]
    Score(1.0, details={"a": [1, {"b": None}], "\x00": "\ud800"}),
    Score(1.0, details={1: "x"}),  # type: ignore[dict-item]
    Score(1.0, details=OrderedDict(a=1)),
    Score(1.0, details={_Text("k"): 1}),
    Score(1.0, reasoning=3),  # type: ignore[arg-type]
    Score(-0.0, details={}),
]


@pytest.mark.parametrize(
    ("label", "kind", "dimension", "threshold"),
    list(itertools.product(LABELS, KINDS, DIMENSIONS, THRESHOLDS)),
)
def test_the_result_validation_would_make(
    label: Any, kind: Any, dimension: Any, threshold: Any
) -> None:
    metric = _metric(label, kind, dimension, threshold)
    for score in SCORES:
        assert _shown(_made(metric, score)) == _shown(_validated(metric, score)), score
    extra = {"model_used": "m", "retry_count": 2}
    assert _shown(_made(metric, SCORES[0], **extra)) == _shown(
        _validated(metric, SCORES[0], **extra)
    )


def test_details_are_copied_as_validation_copies_them() -> None:
    metric = _metric("eq", "standard", "comparison", None)
    details = {"a": [1]}
    made = metric.result(Score(1.0, details=details), time.perf_counter())
    assert made.details == details and made.details is not details
    assert made.details["a"] is details["a"]  # a shallow copy, as validation's
    assert made.details["a"] is _validated(metric, Score(1.0, details=details)).details["a"]  # type: ignore[union-attr]
