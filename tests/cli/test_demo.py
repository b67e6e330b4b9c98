"""``assay demo`` (what ``make demo`` runs): the travel example against the built-in agent."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli


def test_demo_runs_stores_and_shows_passes_and_failures(assay_cli: RunCli, tmp_path: Path) -> None:
    proc = assay_cli("demo")
    assert proc.returncode == 0, proc.stderr  # the demo ran; its verdicts are its content
    out = proc.stdout
    assert "16 tests: 11 passed, 5 failed" in out
    # a documented flaw, caught by an argument matcher, explained per turn
    assert "car-rental-after-a-hotel-search" in out
    assert 'turn 1: arg \'location\' mismatch: expected "Geneva", got "Basel"' in out
    report = tmp_path / ".assay" / "demo-report.html"
    assert report.is_file() and "lab2:session_002" in report.read_text()
    runs = json.loads(assay_cli("runs", "--json").stdout)
    assert len(runs) == 1 and runs[0]["status"] == "completed"
