"""Counts, clipped text and made-up names in words, as the terminal, the reports and
messages print them."""

from __future__ import annotations

from collections.abc import Container


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters when longer, its last one then an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counted(n: int, noun: str) -> str:
    """``1 test``, ``2 tests``, ``0 tests``: the noun in the singular for a count of one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def unused_name(base: str, taken: Container[str]) -> str:
    """``base``, or the first of ``base (2)``, ``base (3)``, ... not in ``taken``."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base} ({n})"
    return name
