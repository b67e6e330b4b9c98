"""docs/importing.md's examples are true: each source file shown (a block tagged ```yaml
holodeck, ```csv rhesis, ```yaml promptfoo) imported through the real CLI gives exactly
the suite the page shows after it."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.importers.conftest import run_import

PAGE = Path(__file__).resolve().parents[2] / "docs" / "importing.md"
BLOCK = re.compile(r"```(\w+)(?: (\w+))?\n(.*?)```", re.S)
FILES = {"holodeck": "agent.yaml", "rhesis": "test-set.csv", "promptfoo": "promptfooconfig.yaml"}


def examples() -> list[tuple[str, str, str]]:
    """(kind, source text, the suite the page says it becomes)."""
    blocks = BLOCK.findall(PAGE.read_text())
    found = []
    for i, (_, kind, body) in enumerate(blocks):
        if kind in FILES:
            following = blocks[i + 1]
            assert following[0] == "yaml" and not following[1], f"{kind}: no suite after it"
            found.append((kind, body, following[2]))
    return found


def test_the_page_shows_each_importer() -> None:
    assert sorted(kind for kind, _, _ in examples()) == sorted(FILES)


@pytest.mark.parametrize(("kind", "source", "shown"), examples(), ids=lambda v: str(v)[:12])
def test_each_example_imports_to_the_suite_shown(
    kind: str, source: str, shown: str, write: Callable[[str, str], Path]
) -> None:
    run = run_import(kind, write(FILES[kind], source))
    assert run.code == 0, run.stderr
    assert run.loaded is not None
    assert run.suite == yaml.safe_load(shown)
