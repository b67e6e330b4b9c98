"""The user guide's examples run as tests: every YAML block with a ``name:`` and ``tests:``
in docs/*.md must load as a suite."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from assay.cases import parse_suite

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCK = re.compile(r"```yaml\n(.*?)```", re.S)


def suite_blocks() -> list[tuple[str, str]]:
    found = []
    for page in sorted(DOCS.glob("*.md")):
        for i, block in enumerate(BLOCK.findall(page.read_text())):
            data = yaml.safe_load(block)
            if isinstance(data, dict) and "name" in data and "tests" in data:
                found.append((f"{page.name}#{i}", block))
    return found


def test_the_guide_has_suite_examples() -> None:
    assert len(suite_blocks()) >= 3


@pytest.mark.parametrize(("where", "block"), suite_blocks(), ids=lambda v: str(v)[:40])
def test_every_suite_example_loads(where: str, block: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", block):
        monkeypatch.setenv(name, "set-by-the-docs-test")
    loaded = parse_suite(yaml.safe_load(block), where)
    assert loaded.cases, f"{where} has no tests"


def test_the_shape_line_is_worded_as_datasets_md_says() -> None:
    from assay.datasets import ShapeReport

    guide = (DOCS / "datasets.md").read_text(encoding="utf-8")
    one = ShapeReport("lab2.csv", "MULTI-TURN", rows=2, conversations=1, column_map={})
    assert one.shape_line() == "MULTI-TURN — 2 rows, 1 conversations (grouped by session_id)"
    single = ShapeReport("lab1.csv", "SINGLE-TURN", rows=1, conversations=1, column_map={})
    assert single.shape_line() == "SINGLE-TURN — 1 rows"
    assert "`1 rows`, `1 conversations`" in guide.replace("\n", " ")
