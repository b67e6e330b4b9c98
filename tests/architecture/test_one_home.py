"""Each of these concepts has one home in ``src/assay``: no other module holds its logic.
(Before, two or three copies had drifted apart into user-visible bugs; see the tests named
in each row for the behaviour the one home pins.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "assay"

# (what, a pattern only its home may hold, the home)
HOMES = [
    # the ${VAR} / ${VAR:-default} rule: tests/targets/test_env_vars.py
    ("${VAR} references", r"\\\$\\\{\[A-Za-z_\]", "_env_vars.py"),
    # JSONPath: one compiled form, for the http target and the metrics
    ("JSONPath parsing", r"jsonpath_ng", "_json.py"),
    # a reply's code fence (metrics' json_valid, models' structured replies)
    ("code fences", r"_FENCE\b|```\[", "_json.py"),
    # JSON text read within the limits (datasets, JSONL lines)
    ("bounded JSON", r"except RecursionError:\s*\n\s*raise ValueLimitError", "_json.py"),
    # the price table: tests/metrics/test_metrics_performance.py (one table)
    ("model prices", r'"gpt-4o-mini"', "pricing.py"),
    # column names of ground-truth files: tests/datasets/test_dataset_columns.py
    ("dataset column aliases", r'"Expected_Answer"|"expected_answer"', "datasets/columns.py"),
    # reading numbers (thousands groups, U+2212): tests/metrics/test_metrics_numeric.py
    ("thousands separators", r"\\u202f", "metrics/_numbers.py"),
    # a file written for the user replaced whole or not at all: tests/cli/test_out_replaced.py
    ("replacing a written file", r"os\.replace\(", "_atomic.py"),
]


@pytest.mark.parametrize(("what", "pattern", "home"), HOMES, ids=[h[0] for h in HOMES])
def test_one_home(what: str, pattern: str, home: str) -> None:
    found = sorted(
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if re.search(pattern, path.read_text(encoding="utf-8"))
    )
    assert found == [home], f"{what} should live in {home} only"
