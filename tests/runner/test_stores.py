"""The same run stored in SQLite and in the real PostgreSQL server reads back the same."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.conftest import ASSAY, REPO
from tests.runner.test_resume import essence

SUITE = REPO / "examples" / "calculator" / "suite.yaml"


def run_into(store: str, folder: Path) -> dict[str, object]:
    folder.mkdir()
    proc = subprocess.run(
        [ASSAY, "run", str(SUITE), "--store", store, "--quiet"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    runs = subprocess.run(
        [ASSAY, "runs", "--json", "--store", store],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    [run] = json.loads(runs.stdout)
    report = subprocess.run(
        [ASSAY, "report", run["id"], "--format", "json", "--store", store],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded: dict[str, object] = json.loads(report.stdout)
    return loaded


def test_sqlite_and_postgresql_store_the_same_results(tmp_path: Path, pg_url: str) -> None:
    lite = run_into(f"sqlite:///{tmp_path / 'lite' / 'assay.db'}", tmp_path / "lite")
    pg = run_into(pg_url, tmp_path / "pg")
    assert essence(lite) == essence(pg)
    assert len(essence(lite)) == 4
    assert _same_summary(lite, pg)  # execution times differ run to run


def _same_summary(a: dict[str, object], b: dict[str, object]) -> bool:
    skip = {"execution_time_ms", "total_duration_ms"}
    sa, sb = a["summary"], b["summary"]
    assert isinstance(sa, dict) and isinstance(sb, dict)
    return {k: v for k, v in sa.items() if k not in skip} == {
        k: v for k, v in sb.items() if k not in skip
    }
