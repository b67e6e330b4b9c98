"""``token_usage`` reads a report only in assay's names with exact int counts in one pass
over its items (names and counts checked together); every report, of those names or
others, gives what the general reader (``read_usage`` with the lenient count) gives."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from pydantic import ValidationError

from assay.net.reply_fields import MalformedReply
from assay.net.usage import read_usage
from assay.targets.base import _loose_count, token_usage


def _general(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return None
    try:
        usage = read_usage(raw, _loose_count)
    except (TypeError, ValueError, ValidationError, MalformedReply):
        return None
    return usage.__dict__, usage.__pydantic_fields_set__, [type(v) for v in usage.__dict__.values()]


REPORTS: list[Any] = [
    {},
    {"prompt_tokens": 12, "completion_tokens": 1, "total_tokens": 13},
    {"prompt_tokens": 12, "completion_tokens": 1},
    {"prompt_tokens": 2**64, "completion_tokens": -1, "total_tokens": 0},
    {"prompt_tokens": 3, "cache_creation_tokens": 1, "cache_read_tokens": 2},
    {"prompt_tokens": 3, "completion_tokens": 2, "prompt_tokens_details": {"cached_tokens": 1}},
    {"prompt_tokens": 3, "completion_tokens": 2, "reasoning_tokens": 5},
    {"input_tokens": 7, "output_tokens": 3},
    {"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 2},
    {"prompt_tokens": 3, "input_tokens": 9},
    {"prompt_tokens": 3, 1: 2},
    {1: 2},
    {None: 0},
    {"prompt_tokens": True},
    {"prompt_tokens": "3", "completion_tokens": 1},
    {"prompt_tokens": 1.0},
    {"prompt_tokens": None},
    {"prompt_tokens": 3, "other": "x"},
    {"prompt_tokens": 3, "\x00": 1},
    {"prompt_tokens": 3, "\ud800": 1},
    {"total_tokens": 4},
    OrderedDict(prompt_tokens=1),
    [],
    None,
    "12",
]


@pytest.mark.parametrize("report", REPORTS, ids=repr)
def test_the_usage_the_general_reader_gives(report: Any) -> None:
    got = token_usage(report)
    shown = (
        None
        if got is None
        else (got.__dict__, got.__pydantic_fields_set__, [type(v) for v in got.__dict__.values()])
    )
    assert shown == _general(report)
