"""A result writer that dies mid-run (killed) fails the run with exit 3 and says how to
resume it; the resume stores every test, none twice."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tests.cli.conftest import RunCli

KILLER = """
import os, signal, time

def respond(query, session_id):
    if query == "kill":  # the run process's children: its forked result writer
        me = os.getpid()
        for task in os.listdir(f"/proc/{me}/task"):
            with open(f"/proc/{me}/task/{task}/children") as listed:
                for child in listed.read().split():
                    os.kill(int(child), signal.SIGKILL)
        time.sleep(0.2)  # let it go before the next result is handed over
    return "x"
"""


def test_a_killed_writer_fails_the_run_with_the_resume_command(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "killer.py").write_text(KILLER)
    rows = (
        "".join(f"q{i},x\n" for i in range(6)) + "kill,x\n" + "".join(f"r{i},x\n" for i in range(6))
    )
    (tmp_path / "d.csv").write_text("Question,Answer\n" + rows)
    store = f"sqlite:///{tmp_path / 's.db'}"
    args = ["--dataset", "d.csv", "--target", "killer:respond", "--store", store]
    first = assay_cli("run", *args, "--concurrency", "1", "--workers", "1")
    assert first.returncode == 3, first.stdout + first.stderr
    assert "the result writer stopped unexpectedly" in first.stderr
    found = re.search(r"(assay run --resume \S+ .*?) runs the tests without one", first.stderr)
    assert found is not None, first.stderr
    command = shlex.split(found[1])[1:]  # without "assay"
    assert "--store" in command and "--resume" in command
    # the resume runs every test without a result, the killing one too: made harmless first
    (tmp_path / "killer.py").write_text("def respond(query, session_id):\n    return 'x'\n")
    second = assay_cli(*command, "--out", "r.json")
    assert second.returncode == 0, second.stdout + second.stderr
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    names = sorted(r["test_name"] for r in results)
    assert len(names) == 13 and len(set(names)) == 13
