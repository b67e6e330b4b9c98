"""Comparison metrics: the response against the turn's ground truth (its Answer)."""

from __future__ import annotations

import math
import string
import unicodedata
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from assay._json import JsonPath, NotJson, load_reply
from assay._words import clipped
from assay.metrics._numbers import Number, find_numbers, read_number
from assay.metrics._text import shorten
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric
from assay.metrics.tools.matchers import show

_PUNCTUATION = str.maketrans("", "", string.punctuation)


REASON_CLIP = 80  # characters of each text quoted in a mismatch reason


# A reply full of numbers lists this many of them in the details (``count`` has them all).
NUMBERS_LISTED = 100


class EqualityOptions(MetricOptions):
    case_insensitive: bool = False
    strip_whitespace: bool = True
    strip_punctuation: bool = False


@metric("equality")
class Equality(Metric[EqualityOptions]):
    """1.0 when the response equals the ground truth after the configured normalisation."""

    requires = frozenset({"response", "ground_truth"})

    def _normalize(self, text: str) -> str:
        opts = self.options
        text = unicodedata.normalize("NFC", text)  # "é" written one way or the other
        if opts.strip_punctuation:
            text = text.translate(_PUNCTUATION)
        if opts.strip_whitespace:
            text = " ".join(text.split())
        if opts.case_insensitive:
            text = text.casefold()
        return text

    def measure(self, ctx: MetricContext) -> Score:
        response, truth = ctx.response, ctx.ground_truth
        assert response is not None and truth is not None
        # the same text is the same once normalised (an exact str: no __eq__ of its own)
        same = type(response) is str and type(truth) is str and response == truth
        if same or self._normalize(response) == self._normalize(truth):
            return _EQUAL
        expected, got = clipped(truth, REASON_CLIP), clipped(response, REASON_CLIP)
        return Score(0.0, reasoning=f"expected {expected!r}, got {got!r}")


_EQUAL = Score(1.0)  # frozen: one for every equal pair


def _unread(why: str) -> Score:
    """A number that could not be read: scored 0 and failed, with ``why`` as the error (as
    HoloDeck's numeric: ``{"numeric": 0.0, "passed": False, "error": ...}``)."""
    return Score(0.0, passed=False, error=why)


ExtractMode = Literal["first", "last", "closest"]


class NumericOptions(MetricOptions):
    absolute_tolerance: float = Field(default=1e-6, ge=0)
    relative_tolerance: float = Field(default=0.0, ge=0)
    accept_percent: bool = True
    accept_thousands_separators: bool = True
    # take the number out of prose; true means "closest" (see docs/metrics.md)
    extract: bool | ExtractMode = False
    response_path: str | None = None  # JSONPath into a JSON reply, e.g. $.result.total

    @model_validator(mode="after")
    def _finite(self) -> NumericOptions:
        if not (math.isfinite(self.absolute_tolerance) and math.isfinite(self.relative_tolerance)):
            raise ValueError("tolerances must be finite numbers")
        return self

    @field_validator("response_path")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is not None:
            JsonPath(value)  # a ValueError saying what is wrong with it
        return value

    @property
    def extract_mode(self) -> ExtractMode | None:
        if self.extract is False:
            return None
        return "closest" if self.extract is True else self.extract


@metric("numeric")
class Numeric(Metric[NumericOptions]):
    """1.0 when the response, read as a number, is within either tolerance of the ground truth.

    With ``extract`` the number is taken out of prose (by default the one closest to the
    expected value); with ``response_path`` it is picked out of a JSON reply first.
    """

    requires = frozenset({"response", "ground_truth"})

    def __init__(self, options: NumericOptions) -> None:
        super().__init__(options)
        self.opts = options
        self.path = None if options.response_path is None else JsonPath(options.response_path)

    def missing_input(self, ctx: MetricContext) -> str | None:
        """As every metric's, and a ground truth without a digit (``Paris``): there is no
        expected number to compare with, so the metric is not run, with the reason (SPEC
        §5), where a suite applies it to every test. One with a digit that does not read as
        a number (``5,12O``, ``14%`` with accept_percent off) is scored 0 with the reason,
        as HoloDeck's: a typo in an Answer fails its test."""
        missing = super().missing_input(ctx)
        truth = ctx.ground_truth
        if missing is None and truth is not None and not any(c.isdigit() for c in truth):
            return f"the ground truth {shorten(truth)} is not a number"
        return missing

    def read(self, text: str) -> float | None:
        found = self._read_whole(text)
        return None if found is None else found.value

    def _read_whole(self, text: str) -> Number | None:
        opts = self.opts
        return read_number(
            text, percent=opts.accept_percent, thousands=opts.accept_thousands_separators
        )

    def _candidates(self, response: str) -> list[Number]:
        opts = self.opts
        text = response
        if self.path is not None:
            assert opts.response_path is not None
            value = self.path.first(load_reply(response))
            if isinstance(value, int | float) and not isinstance(value, bool):
                return [Number(float(value), show(value))] if math.isfinite(value) else []
            if not isinstance(value, str):
                raise NotJson(f"{opts.response_path} is {show(value)}, not a number")
            text = value
        if opts.extract_mode is None:
            whole = self._read_whole(text)
            return [whole] if whole is not None else []
        return find_numbers(
            text, percent=opts.accept_percent, thousands=opts.accept_thousands_separators
        )

    def _not_a_number(self, what: str, text: str) -> str:
        """Why ``text`` did not read as a number: an option that is off, when the text
        reads with it on (as HoloDeck's numeric says), else that it is not one."""
        opts, quoted = self.opts, f"{what} {shorten(text)}"
        if not opts.accept_percent and read_number(
            text, thousands=opts.accept_thousands_separators
        ):
            return f"{quoted} is a percentage, and accept_percent is false"
        if not opts.accept_thousands_separators and read_number(text, percent=opts.accept_percent):
            return f"{quoted} groups its thousands, and accept_thousands_separators is false"
        return f"{quoted} is not a number"

    def _difference(self, found: Number, expected: Number) -> float:
        """The smallest gap between any reading of ``found`` and of ``expected``."""
        return min(abs(a - e) for a in found.readings() for e in expected.readings())

    def _within(self, found: Number, expected: Number) -> bool:
        """Within either tolerance for some reading: a percentage written on one side only
        also counts as its bare number (14% matches 0.14 and 14)."""
        atol, rtol = self.opts.absolute_tolerance, self.opts.relative_tolerance
        return any(
            abs(a - e) <= atol or abs(a - e) <= rtol * abs(e)
            for a in found.readings()
            for e in expected.readings()
        )

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        opts = self.opts
        expected = self._read_whole(ctx.ground_truth)
        if expected is None:
            return _unread(self._not_a_number("the ground truth", ctx.ground_truth))
        try:
            candidates = self._candidates(ctx.response)
        except NotJson as exc:
            return Score(0.0, reasoning=str(exc))
        if not candidates:
            if opts.extract_mode:
                return _unread(f"the response {shorten(ctx.response)} contains no number")
            return _unread(self._not_a_number("the response", ctx.response))
        mode = opts.extract_mode
        if mode == "first":
            chosen = candidates[0]
        elif mode == "last":
            chosen = candidates[-1]
        else:
            good = [n for n in candidates if self._within(n, expected)]
            chosen = (
                good[0] if good else min(candidates, key=lambda n: self._difference(n, expected))
            )
        ok = self._within(chosen, expected)
        diff = self._difference(chosen, expected)
        details: dict[str, Any] = {
            "expected": expected.value,
            "actual": chosen.value,
            "difference": diff,
        }
        if mode is not None:  # the first ones: a reply of numbers must not make the result huge
            details["found"] = [n.text for n in candidates[:NUMBERS_LISTED]]
            details["count"] = len(candidates)
        reason = (
            None if ok else f"expected {expected.value:g}, got {chosen.value:g} (off by {diff:g})"
        )
        return Score(1.0 if ok else 0.0, reasoning=reason, details=details)
