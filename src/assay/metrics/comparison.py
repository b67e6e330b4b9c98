"""Comparison metrics: the response against the turn's ground truth (its Answer)."""

from __future__ import annotations

import math
import re
import string
from typing import ClassVar

from pydantic import Field, model_validator

from assay.metrics.base import Metric, MetricContext, MetricOptions, Score, register_metric

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}([,_\u202f ]\d{3})+(\.\d+)?$")


def parse_number(text: str, *, percent: bool = True, thousands: bool = True) -> float | None:
    """A whole string as a finite number: ``"5,120"`` and ``"14.14%"`` (= 0.1414) when allowed."""
    s = text.strip()
    scale = 1.0
    if percent and s.endswith("%"):
        s, scale = s[:-1].rstrip(), 0.01
    if thousands and _THOUSANDS.match(s):
        s = re.sub(r"[,_\u202f ]", "", s)
    try:
        value = float(s)
    except ValueError:
        return None
    return value * scale if math.isfinite(value) else None


class EqualityOptions(MetricOptions):
    case_insensitive: bool = False
    strip_whitespace: bool = True
    strip_punctuation: bool = False


@register_metric
class Equality(Metric):
    """1.0 when the response equals the ground truth after the configured normalisation."""

    name: ClassVar[str] = "equality"
    requires = frozenset({"response", "ground_truth"})
    Options = EqualityOptions

    def _normalize(self, text: str) -> str:
        opts = self.options
        assert isinstance(opts, EqualityOptions)
        if opts.strip_punctuation:
            text = text.translate(_PUNCTUATION)
        if opts.strip_whitespace:
            text = " ".join(text.split())
        if opts.case_insensitive:
            text = text.casefold()
        return text

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        equal = self._normalize(ctx.response) == self._normalize(ctx.ground_truth)
        return Score(
            1.0 if equal else 0.0,
            reasoning=None if equal else "response differs from the ground truth",
        )


class NumericOptions(MetricOptions):
    absolute_tolerance: float = Field(default=1e-6, ge=0)
    relative_tolerance: float = Field(default=0.0, ge=0)
    accept_percent: bool = True
    accept_thousands_separators: bool = True

    @model_validator(mode="after")
    def _finite(self) -> NumericOptions:
        if not (math.isfinite(self.absolute_tolerance) and math.isfinite(self.relative_tolerance)):
            raise ValueError("tolerances must be finite numbers")
        return self


@register_metric
class Numeric(Metric):
    """1.0 when the response, read as a number, is within either tolerance of the ground truth."""

    name: ClassVar[str] = "numeric"
    requires = frozenset({"response", "ground_truth"})
    Options = NumericOptions

    def read(self, text: str) -> float | None:
        opts = self.options
        assert isinstance(opts, NumericOptions)
        return parse_number(
            text, percent=opts.accept_percent, thousands=opts.accept_thousands_separators
        )

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        opts = self.options
        assert isinstance(opts, NumericOptions)
        expected = self.read(ctx.ground_truth)
        if expected is None:
            raise ValueError(f"the ground truth {ctx.ground_truth!r} is not a number")
        actual = self.read(ctx.response)
        if actual is None:
            return Score(0.0, reasoning=f"the response {ctx.response!r} is not a number")
        diff = abs(actual - expected)
        ok = diff <= opts.absolute_tolerance or diff <= opts.relative_tolerance * abs(expected)
        details = {"expected": expected, "actual": actual, "difference": diff}
        reason = None if ok else f"expected {expected:g}, got {actual:g} (off by {diff:g})"
        return Score(1.0 if ok else 0.0, reasoning=reason, details=details)
