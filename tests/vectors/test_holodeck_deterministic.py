"""HoloDeck's deterministic-evaluator vectors (justinbarias/holodeck,
tests/unit/lib/evaluators/test_deterministic.py), ported to assay's ``equality`` and
``numeric``: each row gives HoloDeck's options and assay is run with them written out
(``HOLODECK_DEFAULTS``: assay's own defaults differ on purpose, docs/metrics.md).

HoloDeck's evaluators return ``{"<metric>": 0.0 | 1.0, "passed": bool, "error": str | None}``;
assay's MetricResult carries the same three as ``score``, ``passed`` and ``error``."""

from __future__ import annotations

from typing import Any

import pytest

from assay.metrics import build_metric
from assay.results.models import MetricResult
from tests.metrics._helpers import context, score

# NumericEvaluator() and EqualityEvaluator() as HoloDeck constructs them
HOLODECK_DEFAULTS: dict[str, dict[str, Any]] = {
    "numeric": {
        "absolute_tolerance": 1e-6,
        "relative_tolerance": 0.0,
        "accept_percent": False,
        "accept_thousands_separators": False,
    },
    "equality": {"case_insensitive": False, "strip_whitespace": False, "strip_punctuation": False},
}


def evaluate(kind: str, response: str, ground_truth: str, **options: Any) -> MetricResult:
    return score(kind, response, ground_truth, **{**HOLODECK_DEFAULTS[kind], **options})


def assert_holodeck(result: MetricResult, passed: bool, error: bool) -> None:
    """HoloDeck's verdict: 1.0 and no error when it passed, else 0.0 (with an error when a
    side could not be read as a number)."""
    assert (result.score, result.passed) == ((1.0, True) if passed else (0.0, False))
    assert (result.error is not None) is error, result.error


# --- TestEqualityEvaluator --------------------------------------------------------------


def test_equality_strict_default() -> None:
    assert_holodeck(evaluate("equality", "Yes", "yes"), passed=False, error=False)
    assert_holodeck(evaluate("equality", "Yes", "Yes"), passed=True, error=False)


def test_equality_case_insensitive() -> None:
    still_miss = evaluate("equality", "Yes", "yes.", case_insensitive=True)
    assert_holodeck(still_miss, passed=False, error=False)
    hit = evaluate("equality", "Yes", "yes.", case_insensitive=True, strip_punctuation=True)
    assert_holodeck(hit, passed=True, error=False)


def test_equality_strip_whitespace() -> None:
    hit = evaluate("equality", " hello  world ", "hello world", strip_whitespace=True)
    assert_holodeck(hit, passed=True, error=False)


# --- TestNumericEvaluator ---------------------------------------------------------------


def test_numeric_default_tolerance() -> None:
    assert_holodeck(evaluate("numeric", "1.0000001", "1"), passed=True, error=False)
    assert_holodeck(evaluate("numeric", "1.1", "1"), passed=False, error=False)
    assert_holodeck(evaluate("numeric", "1.000001", "1"), passed=True, error=False)  # inclusive


def test_numeric_absolute_tolerance() -> None:
    tight = evaluate("numeric", "0.15", "0.14136", absolute_tolerance=0.001)
    assert_holodeck(tight, passed=False, error=False)
    loose = evaluate("numeric", "0.142", "0.14136", absolute_tolerance=0.01)
    assert_holodeck(loose, passed=True, error=False)


def test_numeric_relative_tolerance() -> None:
    hit = evaluate("numeric", "100.5", "100", relative_tolerance=0.01)
    assert_holodeck(hit, passed=True, error=False)


def test_numeric_accept_percent() -> None:
    bad = evaluate("numeric", "14.14%", "0.14136", absolute_tolerance=0.01)
    assert_holodeck(bad, passed=False, error=True)
    good = evaluate("numeric", "14.14%", "0.14136", absolute_tolerance=0.01, accept_percent=True)
    assert_holodeck(good, passed=True, error=False)


def test_numeric_accept_thousands_separators() -> None:
    bad = evaluate("numeric", "206,588", "206588")
    assert_holodeck(bad, passed=False, error=True)
    good = evaluate("numeric", "206,588", "206588", accept_thousands_separators=True)
    assert_holodeck(good, passed=True, error=False)


def test_numeric_non_numeric_inputs() -> None:
    result = evaluate("numeric", "abc", "5")
    assert_holodeck(result, passed=False, error=True)
    assert result.error is not None
    assert "abc" in result.error or "parse" in result.error.lower()


# --- the 15-row acceptance matrix (SC-008) -----------------------------------------------

MATRIX: list[tuple[str, dict[str, Any], str, str, bool]] = [
    ("equality", {}, "hello", "hello", True),
    ("equality", {}, "Hello", "hello", False),
    ("equality", {"case_insensitive": True}, "Hello", "hello", True),
    ("equality", {"strip_whitespace": True}, " a b ", "a b", True),
    ("equality", {"strip_punctuation": True}, "yes.", "yes", True),
    ("numeric", {}, "1", "1.0", True),
    ("numeric", {"accept_percent": True, "absolute_tolerance": 1e-3}, "50%", "0.5", True),
    ("numeric", {"accept_thousands_separators": True}, "1,000", "1000", True),
    ("numeric", {"absolute_tolerance": 0.01}, "1.02", "1", False),
    ("numeric", {"relative_tolerance": 0.1}, "110", "100", True),
    ("numeric", {"absolute_tolerance": 0.5}, "1.4", "1", True),
    ("numeric", {}, "50%", "0.5", False),
    ("numeric", {"absolute_tolerance": 0.25}, "0.5", "0.25", True),
    ("numeric", {}, "n/a", "5", False),
    ("numeric", {}, "25587", "25587", True),
]
# the rows HoloDeck fails on a parse: its error is set
PARSE_FAILURES = {("50%", "0.5"), ("n/a", "5")}


@pytest.mark.parametrize(("kind", "options", "response", "ground_truth", "passed"), MATRIX)
def test_acceptance_matrix(
    kind: str, options: dict[str, Any], response: str, ground_truth: str, passed: bool
) -> None:
    result = evaluate(kind, response, ground_truth, **options)
    error = kind == "numeric" and not options and (response, ground_truth) in PARSE_FAILURES
    assert_holodeck(result, passed, error)


# --- what HoloDeck's _try_parse_number refuses with the flags off --------------------------


@pytest.mark.parametrize(
    "response", ["1_000", "1,000", "1\u00a0000", "1\u202f000", "10_00", "1_0_0_0"]
)
def test_a_thousands_separator_with_the_flag_off_is_an_error(response: str) -> None:
    # HoloDeck rejects any of its four separators when the flag is off; Python's float()
    # alone would read "1_000" as 1000
    assert_holodeck(evaluate("numeric", response, "1000"), passed=False, error=True)


def test_a_ground_truth_that_is_not_a_number_leaves_numeric_not_run() -> None:
    # HoloDeck: {"numeric": 0.0, "passed": False, "error": ...} whichever side fails to parse;
    # assay differs on purpose for the ground truth (docs/results.md): a text Answer gives no
    # expected number, and SPEC §5 makes a metric without its input absent, not scored 0
    built = build_metric("numeric", HOLODECK_DEFAULTS["numeric"])
    assert built.missing_input(context("5", "five")) == "the ground truth 'five' is not a number"
    # the response side is HoloDeck's: read, failed, with an error
    assert_holodeck(evaluate("numeric", "five", "5"), passed=False, error=True)
