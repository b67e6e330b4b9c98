"""A tool result's ``bytes`` is the length of its JSON as HoloDeck measures it
(``len(json.dumps(result, default=str))``), however it is worked out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay.targets.base import result_bytes


@pytest.mark.parametrize(
    "result", [None, 0, 42, -7, 2**63, -(10**4000), "ünï", True, 1.5, {"a": [1, None]}]
)
def test_bytes_is_the_length_of_the_results_json(result: Any) -> None:
    assert result_bytes(result) == len(json.dumps(result))


def test_a_non_ascii_result_counts_its_json_escapes_as_holodeck() -> None:
    # '"Z\\u00fcrich"': HoloDeck's _safe_json_bytes, json's defaults (not UTF-8's 9)
    assert result_bytes("Zürich") == 13
    assert result_bytes({"city": "Zürich"}) == len('{"city": "Z\\u00fcrich"}') == 23
