"""``counted_usage(counts, exact=True)`` (the caller made every count an exact int) makes
the record the checking path makes: the same values, types and fields set; and
``token_usage``'s plain path, which passes ``exact``, gives exact ints even where the
report's total is left out (a sum) or zero."""

from __future__ import annotations

from typing import Any

import pytest

from assay.net.usage import USAGE_FIELDS, counted_usage
from assay.targets.base import token_usage


def _shown(usage: Any) -> Any:
    return usage.__dict__, usage.__pydantic_fields_set__, [type(v) for v in usage.__dict__.values()]


@pytest.mark.parametrize(
    "values",
    [(0, 0, 0, 0, 0), (12, 1, 13, 0, 0), (2**64, -1, 0, 2**63 - 1, 7), (1, 2, 3, 4, 5)],
)
def test_exact_counts_make_the_checked_record(values: tuple[int, ...]) -> None:
    names = ["prompt_tokens", "completion_tokens", "total_tokens"]
    names += ["cache_creation_tokens", "cache_read_tokens"]
    assert set(names) == USAGE_FIELDS
    counts = dict(zip(names, values, strict=True))
    assert _shown(counted_usage(dict(counts), exact=True)) == _shown(counted_usage(counts))


@pytest.mark.parametrize(
    "raw",
    [
        {"prompt_tokens": 12, "completion_tokens": 1},
        {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 0},
        {"prompt_tokens": 2**64, "completion_tokens": 2**64},
        {},
    ],
)
def test_the_plain_path_gives_exact_ints(raw: dict[str, Any]) -> None:
    usage = token_usage(raw)
    assert usage is not None
    assert all(type(v) is int for v in usage.__dict__.values())
    total = raw.get("total_tokens") or raw.get("prompt_tokens", 0) + raw.get("completion_tokens", 0)
    assert usage.total_tokens == total
