"""Durations in whole milliseconds, as the turn-result contract writes them (``"duration_ms":
41``, ``"evaluation_time_ms": 0``): one rounding for every duration assay measures or reads."""

from __future__ import annotations

import math
import time
from typing import Any


def elapsed_ms(started: float) -> int:
    """Whole milliseconds since ``started`` (a ``time.perf_counter()``)."""
    return round((time.perf_counter() - started) * 1000)


def whole_ms(value: Any) -> Any:
    """A finite float read as whole milliseconds (``812.4`` → 812): what a report or store
    written before a duration became an integer holds, and what an agent may report; any
    other value is left to the field's own validation."""
    if type(value) is float and math.isfinite(value):
        return round(value)
    return value
