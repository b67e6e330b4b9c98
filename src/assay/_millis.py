"""Durations in whole milliseconds, as the turn-result contract writes them (``"duration_ms":
41``, ``"evaluation_time_ms": 0``): one rounding for the durations of the contract's records
(a goal trace's ``execution_stats.duration_ms`` keeps its fraction, as the source shows it)."""

from __future__ import annotations

import math
import time
from typing import Any


def elapsed_ms(started: float) -> int:
    """Whole milliseconds since ``started`` (a ``time.perf_counter()``)."""
    return round((time.perf_counter() - started) * 1000)


def whole_ms(value: Any) -> Any:
    """A number read as whole milliseconds (``812.4`` and ``"812.4"`` → 812): what a report
    or store written before a duration became an integer holds, and what an agent may
    report; NaN or infinity is no duration (None: the field's "not known"); any other value
    is left to the field's own validation (``"5ms"`` fails it, naming the field)."""
    if type(value) is str:
        try:
            value = float(value)
        except ValueError:
            return value
    if type(value) is float:
        return round(value) if math.isfinite(value) else None
    return value
