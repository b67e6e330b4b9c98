"""Numbers as people write them: the number reader of assay, used by the ``numeric`` metric
and by the ``approx`` argument matcher, so they agree on what a number is. A whole string
(``"5,120"``, ``"14.14%"``) or every number in a sentence (``"Revenue was $5,120.50 in 2021,
up 14%"``). The ``fuzzy`` argument matcher reads numbers as HoloDeck's does instead
(``drop_fuzzy_separators``, ``read_fuzzy_number``), which is looser: see there.

Thousands separators are ``,``, ``_``, the no-break space (U+00A0) and the narrow no-break
space (U+202F), between groups of three digits (``"5,1,2,0"`` is not a number); a plain
space also groups thousands in a whole string, never in prose (where ``"3 100-dollar
bills"`` is two numbers). A decimal comma (``"3,5"``) is not read as 3.5. The minus sign
may be ``-``, U+2212 or an en dash. A trailing ``%`` (or the word ``percent``) marks a
percentage: its value is the number / 100.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

_MINUS = str.maketrans({"\u2212": "-", "\u2013": "-"})
_WHOLE_THOUSANDS = re.compile(r"^[+-]?\d{1,3}([,_\u00a0\u202f ]\d{3})+(\.\d+)?$")
_SEPARATORS = re.compile(r"[,_\u00a0\u202f ]")
# Bounded widths (64 digits, 12 thousands groups, a look of 64 characters ahead), so that
# scanning a reply costs a constant per character: an unbounded ``\d+`` backtracking under
# an unbounded look-ahead made a reply of digits quadratic.
_IN_PROSE = re.compile(
    r"(?<![\w.])(?P<sign>[-+\u2212])?"
    r"(?P<num>(?:\d{1,3}(?:[,\u00a0\u202f]\d{3}){1,12}|\d{1,64})(?:\.\d{1,64})?|\.\d{1,64})"
    r"(?P<exp>[eE][-+]?\d{1,64})?(?![\w.]{0,64}?\d)"
    r"(?P<pct>\s?%|\s(?:percent|per cent)\b)?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Number:
    """A number read from text: ``value`` is already scaled (``14%`` -> 0.14)."""

    value: float
    text: str
    percent: bool = False

    def readings(self) -> tuple[float, ...]:
        """What the number may mean: a percentage is also its bare number (14% -> 0.14, 14)."""
        return (self.value, self.value * 100) if self.percent else (self.value,)


def read_number(text: str, *, percent: bool = True, thousands: bool = True) -> Number | None:
    """A whole string as one finite number, or None."""
    s = text.strip().translate(_MINUS)
    is_percent = False
    if percent and s.endswith("%"):
        s, is_percent = s[:-1].rstrip(), True
    if thousands and _WHOLE_THOUSANDS.match(s):
        s = _SEPARATORS.sub("", s)
    if "_" in s:  # Python's digit grouping (float("1_000")), not a person's
        return None
    try:
        value = float(s)
    except ValueError:
        return None
    if not math.isfinite(value):
        return None
    return Number(value / 100 if is_percent else value, text.strip(), is_percent)


def number_value(value: Any) -> float | None:
    """A JSON value as a finite number: a number, or a string that reads as one (``"5,120"``,
    ``"14%"`` is 0.14); None for anything else (``true`` is not 1)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            number = float(value)
        except OverflowError:  # an int past a float's range
            return None
        return number if math.isfinite(number) else None
    if isinstance(value, str):
        found = read_number(value)
        return None if found is None else found.value
    return None


def find_numbers(text: str, *, percent: bool = True, thousands: bool = True) -> list[Number]:
    """Every number in ``text``, in order. ``thousands=False`` reads ``5,120`` as 5 and 120."""
    found: list[Number] = []
    for match in _IN_PROSE.finditer(text):
        digits = match.group("num")
        if not thousands and _SEPARATORS.search(digits):
            head = _SEPARATORS.split(digits)
            found.extend(Number(float(part), part) for part in head if part)
            continue
        literal = (match.group("sign") or "").translate(_MINUS) + _SEPARATORS.sub("", digits)
        literal += match.group("exp") or ""
        try:
            value = float(literal)
        except ValueError:  # pragma: no cover - the pattern only admits float syntax
            continue
        if not math.isfinite(value):
            continue
        is_percent = percent and match.group("pct") is not None
        found.append(Number(value / 100 if is_percent else value, match.group(0), is_percent))
    return found


# The ``fuzzy`` argument matcher's separators, as HoloDeck's (``tool-arg-matchers.md`` §3,
# ``_normalize``): a comma, an underscore and the narrow no-break space are dropped wherever
# they stand, between words as between digits ("Paris, France" reads "paris france",
# "12,34,567" reads 1234567).
_FUZZY_SEPARATORS = re.compile(r"[,_\u202f]")


def drop_fuzzy_separators(text: str) -> str:
    """``text`` without the ``fuzzy`` matcher's separators."""
    return _FUZZY_SEPARATORS.sub("", text)


def read_fuzzy_number(text: str) -> float | None:
    """A ``fuzzy`` matcher's normalised text as HoloDeck's fuzzy matcher reads a number
    (``_try_parse_number``): Python's ``float()`` of it once every space is removed
    (``"2 06588"`` is 206588), a trailing ``%`` meaning /100. Unlike ``read_number``, ``nan``
    and ``inf``/``infinity`` are numbers and a Unicode minus is not a minus, as in HoloDeck."""
    percent = text.endswith("%")
    if percent:
        text = text[:-1].strip()
    try:
        value = float(text.replace(" ", ""))
    except ValueError:
        return None
    return value / 100 if percent else value
