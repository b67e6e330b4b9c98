"""A report that cannot be written whole (the disk full) leaves the previous report as it
was, and no file beside it: ``assay run --out`` and ``assay report --out``. The disk is
"full" for assay's process by RLIMIT_FSIZE: no file it writes may grow past LIMIT bytes
(writing beyond fails with EFBIG, "File too large"), and each report is larger."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from tests.cli.conftest import RunCli

AGENT = 'def respond(query, session_id):\n    return "Paris " + "x" * 200_000\n'
SUITE = (
    "name: wide\ntarget: {python: 'agent:respond'}\n"
    "metrics: [{metric: contains, value: Paris}]\ntests:\n  - {name: a, input: a}\n"
)
LIMIT = 64 * 1024
PREVIOUS = '{"previous": "good report"}\n'


def wide_suite(folder: Path) -> None:
    (folder / "agent.py").write_text(AGENT)
    (folder / "suite.yaml").write_text(SUITE)
    (folder / "out").mkdir()
    (folder / "out" / "report.json").write_text(PREVIOUS)


def test_a_run_whose_report_does_not_fit_keeps_the_previous_one(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    wide_suite(tmp_path)
    # an in-memory store: the report is the only file the run writes
    args = ["run", "suite.yaml", "--store", "sqlite://", "--out", "out/report.json"]
    proc = assay_cli(*args, timeout=120, max_file_bytes=LIMIT)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert re.search(
        r"cannot write the report to '\S+/out/report.json': File too large", proc.stderr
    )
    # the run was only in memory: no `assay report` command can bring it back
    assert "in-memory store, so it is gone" in proc.stderr
    assert "assay report" not in proc.stderr
    assert (tmp_path / "out" / "report.json").read_text() == PREVIOUS
    assert os.listdir(tmp_path / "out") == ["report.json"]  # nothing half-written left


def test_a_stored_report_that_does_not_fit_keeps_the_previous_one(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    wide_suite(tmp_path)
    store = f"sqlite:///{tmp_path / 's.db'}"
    run = assay_cli("run", "suite.yaml", "--store", store)
    assert run.returncode == 0, run.stdout + run.stderr
    [stored] = json.loads(assay_cli("runs", "--json", "--store", store).stdout)

    args = ["report", stored["id"], "--store", store, "--out", "out/report.json"]
    proc = assay_cli(*args, timeout=120, max_file_bytes=LIMIT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert re.search(r"cannot write a report to 'out/report.json': File too large", proc.stderr)
    assert (tmp_path / "out" / "report.json").read_text() == PREVIOUS
    assert os.listdir(tmp_path / "out") == ["report.json"]

    # with room, it is replaced by the whole report
    assert assay_cli(*args).returncode == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["results"][0]["agent_response"].startswith("Paris xxx")
    assert os.listdir(tmp_path / "out") == ["report.json"]
