"""``equality`` scores a response that is exactly its ground truth without normalising either:
the same Score as normalising both and comparing (the measure before), on ordinary and
hostile texts, with every combination of options."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest

from assay._words import clipped
from assay.metrics.base import MetricContext, Score
from assay.metrics.comparison import REASON_CLIP, Equality, EqualityOptions

OPTIONS = [
    EqualityOptions(case_insensitive=a, strip_whitespace=b, strip_punctuation=c)
    for a, b, c in itertools.product((False, True), repeat=3)
]


class _Text(str):
    """A user's str subclass whose own ``==`` says yes to anything."""

    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class _Loud(str):
    def __eq__(self, other: object) -> bool:
        raise AssertionError("compared by its own __eq__")

    __hash__ = str.__hash__


TEXTS: list[Any] = [
    "42",
    "",
    " 42 ",
    "4 2",
    "42.",
    "Forty-Two",
    "forty-two",
    "caf\u00e9",
    "cafe\u0301",  # the same once NFC
    "\x00",
    "a\x00b",
    "\ud800",  # a lone surrogate
    "\ud800\udc00",
    "Stra\u00dfe",
    "STRASSE",
    "x" * 200,
    "\t\n42\u3000",
    "\U0001f600",
    _Text("42"),
    _Text("nothing alike"),
]


def _before(metric: Equality, ctx: MetricContext) -> Score:
    """The measure as it was: both texts normalised, always."""
    assert ctx.response is not None and ctx.ground_truth is not None
    if metric._normalize(ctx.response) == metric._normalize(ctx.ground_truth):
        return Score(1.0)
    return Score(
        0.0,
        reasoning=f"expected {clipped(ctx.ground_truth, REASON_CLIP)!r}, "
        f"got {clipped(ctx.response, REASON_CLIP)!r}",
    )


@pytest.mark.parametrize("options", OPTIONS, ids=repr)
def test_the_same_score_as_normalising_both(options: EqualityOptions) -> None:
    metric = Equality(options)
    for response, truth in itertools.product(TEXTS, repeat=2):
        ctx = MetricContext(input="q", response=response, ground_truth=truth)
        now, before = metric.measure(ctx), _before(metric, ctx)
        assert now == before, (response, truth)
        assert type(now.score) is float and type(now.passed) is type(before.passed)
        made = metric.result(now, time.perf_counter()).model_dump(exclude={"evaluation_time_ms"})
        was = metric.result(before, time.perf_counter())
        assert made == was.model_dump(exclude={"evaluation_time_ms"})


def test_a_str_subclass_is_not_asked_whether_it_equals() -> None:
    metric = Equality(EqualityOptions())
    ctx = MetricContext(input="q", response=_Loud("42"), ground_truth="42")
    assert metric.measure(ctx) == Score(1.0)  # normalised: plain strs compared
    ctx = MetricContext(input="q", response="42", ground_truth=_Loud("42"))
    assert metric.measure(ctx) == Score(1.0)
