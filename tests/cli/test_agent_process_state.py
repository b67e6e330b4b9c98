"""What an in-process agent does to its process does not move or lose the run's output:
``--out`` writes where the path pointed when the command started, though the agent changes
the working folder (a stale report where CI reads it would look like this run's), and the
summary and reports still go out when it closes ``sys.stdout`` or ``sys.stderr``."""

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


CLOSER = """
import sys

def respond(query, session_id):
    sys.stdout.close()
    sys.stderr.close()
    return "x"
"""


def test_an_agent_closing_the_streams_loses_no_output(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "closer.py").write_text(CLOSER)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\nho,y\n")
    proc = assay_cli("run", "--dataset", "d.csv", "--target", "closer:respond", "--out", "r.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # "x" is not "y": no crash, exit 3
    assert "2 tests: 1 passed, 1 failed, 0 errored, 0 not run" in proc.stdout
    assert "a bug in assay" not in proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted(r["passed"] for r in report["results"]) == [False, True]
