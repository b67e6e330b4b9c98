"""What an in-process agent does to its process does not move or lose the run's output:
``--out`` writes where the path pointed when the command started, though the agent changes
the working folder (a stale report where CI reads it would look like this run's), and the
summary and reports still go out when it closes or replaces ``sys.stdout`` or ``sys.stderr``;
work it leaves running on threads of its own does not keep ``assay run`` from exiting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


REPLACER = """
import io
import sys

def respond(query, session_id):
    sys.stdout = io.StringIO()
    sys.stderr = io.StringIO()
    return "x"
"""


def test_an_agent_replacing_the_streams_loses_no_output(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "replacer.py").write_text(REPLACER)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\nho,y\n")
    proc = assay_cli("run", "--dataset", "d.csv", "--target", "replacer:respond", "--out", "r.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # before: nothing printed at all, the summary and this line gone into the agent's buffer
    assert "2 tests: 1 passed, 1 failed, 0 errored, 0 not run" in proc.stdout
    assert f"wrote {tmp_path / 'r.json'}" in proc.stdout.replace("\n", "")
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted(r["passed"] for r in report["results"]) == [False, True]


# an agent whose background work never ends: a job handed to a module-level pool (telemetry
# style; Python's exit joins a pool's busy workers, daemon or not), or a non-daemon thread
POOLED = """
import threading
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=1)
_NEVER = threading.Event()

def respond(query, session_id):
    _POOL.submit(_NEVER.wait)
    return "x"
"""
THREADED = """
import threading

_NEVER = threading.Event()

async def respond(query, session_id):
    threading.Thread(target=_NEVER.wait, daemon=False).start()
    return "x"
"""
# one whose pool is idle once each call is answered: Python's exit ends such workers at once
IDLE_POOL = """
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=2)

def respond(query, session_id):
    return _POOL.submit(str, "x").result()
"""


@pytest.mark.parametrize(("agent", "left"), [(POOLED, "1 thread"), (THREADED, "2 threads")])
def test_threads_the_agent_leaves_running_do_not_keep_the_run_from_exiting(
    assay_cli: RunCli, tmp_path: Path, agent: str, left: str
) -> None:
    (tmp_path / "lingering.py").write_text(agent)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\nho,y\n")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    # before: it never exited, after its summary and report
    args = ("--dataset", "d.csv", "--target", "lingering:respond", "--out", "r.json")
    proc = assay_cli("run", *args, "--store", store)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the run's own code: "y" failed
    assert "2 tests: 1 passed, 1 failed, 0 errored, 0 not run" in proc.stdout
    assert proc.stderr.splitlines()[-1] == (
        f"warning: the agent's or a grader's code left {left} running; assay exited without "
        f"waiting for {'it' if left == '1 thread' else 'them'}"
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted(r["passed"] for r in report["results"]) == [False, True]
    stored = assay_cli("report", report["run"]["id"], "--store", store)
    assert stored.returncode == 0, stored.stderr
    stored_report = json.loads(stored.stdout)  # every result stored, the run completed
    assert stored_report["run"]["status"] == "completed"
    assert sorted(r["passed"] for r in stored_report["results"]) == [False, True]


def test_an_idle_pool_of_the_agent_s_is_no_thread_left_running(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "pooled.py").write_text(IDLE_POOL)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\n")
    proc = assay_cli("run", "--dataset", "d.csv", "--target", "pooled:respond")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stderr
