"""docs/python-api.md's examples run: every Python block of the page, in order, in one
namespace, as a script (or a notebook: top-level ``await`` is allowed) in a scratch folder
holding a copy of ``examples/``."""

from __future__ import annotations

import ast
import asyncio
import re
import shutil
import sys
import types
from pathlib import Path

import pytest

from tests.cli.conftest import REPO

PAGE = REPO / "docs" / "python-api.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def blocks() -> list[str]:
    return BLOCK.findall(PAGE.read_text())


def test_the_page_is_linked_from_the_guide_and_the_readme() -> None:
    assert "(python-api.md)" in (REPO / "docs" / "index.md").read_text()
    assert "(docs/python-api.md)" in (REPO / "README.md").read_text()


def test_every_python_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", f"sqlite:///{tmp_path / 'default.db'}")
    page = types.ModuleType("__main__")  # a script's (or a notebook's) own module
    monkeypatch.setitem(sys.modules, "__main__", page)
    found = blocks()
    assert len(found) >= 8

    async def run_all() -> None:
        for i, block in enumerate(found):
            code = compile(block, f"python-api.md#{i}", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
            result = eval(code, page.__dict__)  # an awaitable when the block awaits
            if asyncio.iscoroutine(result):
                await result

    asyncio.run(run_all())
    out = capsys.readouterr().out
    assert "18 tests, 11 passed" in out  # the travel example: counted in test_process.py
    assert "questions:c1 [True, False]" in out
    assert "{'tests': 2, 'passed': 1}" in out
    assert "options: concurrency: Input should be greater than or equal to 1 (got 0)" in out
