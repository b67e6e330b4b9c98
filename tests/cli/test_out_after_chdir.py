"""``assay run --out`` writes where the path pointed when the command started: an
in-process agent that changes the working folder does not move the reports (a stale
report where CI reads it would look like this run's)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli

WANDERER = """
import os

def respond(query, session_id):
    os.makedirs("elsewhere", exist_ok=True)
    os.chdir("elsewhere")
    return "x"
"""


def test_reports_go_where_out_pointed_at_the_start(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "wanderer.py").write_text(WANDERER)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\n")
    (tmp_path / "report.json").write_text('{"stale": true}')
    proc = assay_cli(
        "run", "--dataset", "d.csv", "--target", "wanderer:respond",
        "--out", "report.json", "--out", "junit.xml",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "elsewhere").is_dir()  # the agent did move
    assert not (tmp_path / "elsewhere" / "report.json").exists()
    assert not (tmp_path / "elsewhere" / "junit.xml").exists()
    report = json.loads((tmp_path / "report.json").read_text())
    assert [r["passed"] for r in report["results"]] == [True]
    assert (tmp_path / "junit.xml").read_text().startswith("<?xml")
    assert f"wrote {tmp_path / 'report.json'}" in proc.stdout.replace("\n", "")
