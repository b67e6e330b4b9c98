"""Run ``assay import`` as a user would, and load what it wrote with assay's own loader."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import assay

ASSAY = str(Path(sys.executable).parent / "assay")


@dataclass
class Run:
    code: int
    stderr: str
    suite: dict[str, Any] | None  # the suite as written (YAML), when one was
    loaded: assay.LoadedSuite | None  # the same, through assay.load_suite

    def test(self, name: str) -> dict[str, Any]:
        assert self.suite is not None
        return next(t for t in self.suite["tests"] if t["name"] == name)


def run_import(kind: str, source: Path, *extra: str) -> Run:
    out = source.parent / "imported.yaml"
    proc = subprocess.run(
        [ASSAY, "import", kind, str(source), "-o", str(out), "--force", *extra],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "300"},
    )
    assert "Traceback" not in proc.stderr, proc.stderr
    if proc.returncode != 0 or not out.exists():
        return Run(proc.returncode, proc.stderr, None, None)
    return Run(proc.returncode, proc.stderr, yaml.safe_load(out.read_text()), assay.load_suite(out))


@pytest.fixture
def write(tmp_path: Path):  # type: ignore[no-untyped-def]
    def _write(name: str, text: str) -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write
