"""HoloDeck's code-grader vectors (justinbarias/holodeck,
tests/unit/lib/test_runner/test_code_grader.py, and its code-grader contract's sections 5
and 6), run through assay's ``{type: code}`` metric with the fixture graders of
``tests.vectors.graders``. Where assay differs on purpose (docs/metrics.md, code graders),
the assertion says so."""

from __future__ import annotations

import asyncio
from typing import Any

from assay.metrics import build_metric
from assay.results.models import MetricResult
from tests.metrics._helpers import context


def invoke(grader: str, threshold: float | None = None, **options: Any) -> MetricResult:
    """``invoke_grader(grader, ctx, metric_name=..., threshold=threshold)``."""
    if threshold is not None:
        options["threshold"] = threshold
    metric = build_metric("code", {"grader": f"tests.vectors.graders:{grader}", **options})
    return asyncio.run(metric.evaluate(context("a", "gt")))


def test_invoke_with_grader_result() -> None:
    result = invoke("returns_grader_result")
    assert (result.kind, result.score, result.passed) == ("code", 1.0, True)
    assert (result.reasoning, result.details) == ("fixture result", {"foo": "bar"})
    assert result.error is None


def test_return_true_and_false_shortcuts() -> None:
    assert (invoke("returns_true").score, invoke("returns_true").passed) == (1.0, True)
    assert (invoke("returns_false").score, invoke("returns_false").passed) == (0.0, False)


def test_return_float_threshold_derivation() -> None:
    assert (invoke("returns_float", 0.7).score, invoke("returns_float", 0.7).passed) == (
        0.75,
        True,
    )
    assert invoke("returns_float", 0.8).passed is False
    assert invoke("returns_float", 0.8).threshold == 0.8


def test_return_float_default_gate() -> None:
    # HoloDeck: "default gate is 0.5; 0.75 passes" (contract section 5); the threshold
    # recorded stays null, as HoloDeck records it
    result = invoke("returns_float")
    assert (result.score, result.passed, result.threshold) == (0.75, True, None)
    assert invoke("returns_a_low_score").passed is False
    # a GraderResult (here a Score) without `passed` is derived the same way
    assert invoke("returns_a_score_without_a_verdict").passed is True


def test_exception_captured_on_metric_result() -> None:
    result = invoke("raises_value_error")
    assert (result.score, result.passed) == (0.0, False)
    assert result.error == "ValueError: intentional fixture failure"


def test_fail_on_error_false_leaves_a_raising_grader_unjudged() -> None:
    # assay's own option (docs/metrics.md): HoloDeck's fail_on_error: true stops the test
    # case instead; assay's false records the error without a verdict
    result = invoke("raises_value_error", fail_on_error=False)
    assert (result.score, result.passed) == (None, None)
    assert result.error == "ValueError: intentional fixture failure"


def test_a_dict_return_is_a_verdict_in_assay() -> None:
    # HoloDeck: test_non_standard_return_treated_as_error (an error, score 0.0). assay
    # reads a dict on purpose, a documented superset (docs/metrics.md)
    result = invoke("returns_dict")
    assert (result.score, result.passed, result.error) == (0.9, True, None)
