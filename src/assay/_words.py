"""Counts in words, as the terminal and the reports print them."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """``1 test``, ``2 tests``, ``0 tests``: the noun in the singular for a count of one."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
