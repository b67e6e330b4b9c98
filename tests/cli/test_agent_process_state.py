"""What an in-process agent does to its process does not move or lose the run's output:
``--out`` writes where the path pointed when the command started, though the agent changes
the working folder (a stale report where CI reads it would look like this run's), and the
summary and reports still go out when it closes or replaces ``sys.stdout`` or ``sys.stderr``;
work it leaves running on threads of its own gets a bounded grace to finish
(``ASSAY_EXIT_WAIT_S`` sets it here, so no test waits on a clock) and does not keep
``assay run`` from exiting."""

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
# an atexit handler of the agent's, which runs though threads are left behind
FLUSHED = """
import atexit
atexit.register(lambda: open({path!r}, "w").write("flushed"))
"""
# a telemetry-style upload on a module-level pool that is still busy when the run is over and
# finishes once assay waits for it (its grace, seen on the main thread's stack): no clock
UPLOADING = """
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=1)

def _assay_waits():
    frame = sys._current_frames().get(threading.main_thread().ident)
    while frame is not None and frame.f_code.co_name != "_waited_for":
        frame = frame.f_back
    return frame is not None

def _upload():
    while not _assay_waits():  # before: assay never waited, the process ended under it
        time.sleep(0.01)
    open({path!r}, "w").write("uploaded")

def respond(query, session_id):
    _POOL.submit(_upload)
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
    flushed = tmp_path / "flushed.txt"
    (tmp_path / "lingering.py").write_text(agent + FLUSHED.format(path=str(flushed)))
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\nho,y\n")
    store = f"sqlite:///{tmp_path / 'a.db'}"
    # before: it never exited, after its summary and report; the grace is 0 s here
    args = ("--dataset", "d.csv", "--target", "lingering:respond", "--out", "r.json")
    proc = assay_cli("run", *args, "--store", store, env={"ASSAY_EXIT_WAIT_S": "0"})
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the run's own code: "y" failed
    assert "2 tests: 1 passed, 1 failed, 0 errored, 0 not run" in proc.stdout
    assert proc.stderr.splitlines()[-1] == (
        f"warning: the agent's or a grader's code left {left} running after waiting 0 s; "
        f"assay exited without {'it' if left == '1 thread' else 'them'}"
    )
    assert flushed.read_text() == "flushed"  # its atexit handler ran all the same
    report = json.loads((tmp_path / "r.json").read_text())
    assert sorted(r["passed"] for r in report["results"]) == [False, True]
    stored = assay_cli("report", report["run"]["id"], "--store", store)
    assert stored.returncode == 0, stored.stderr
    stored_report = json.loads(stored.stdout)  # every result stored, the run completed
    assert stored_report["run"]["status"] == "completed"
    assert sorted(r["passed"] for r in stored_report["results"]) == [False, True]


def test_a_job_the_agent_leaves_running_completes_in_the_grace(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """A job still running when the run is over that ends within the grace is waited for,
    and the exit is then Python's own: the agent's atexit handler runs, no warning. Before,
    the process ended at once: neither file written."""
    uploaded, flushed = tmp_path / "uploaded.txt", tmp_path / "flushed.txt"
    agent = UPLOADING.format(path=str(uploaded)) + FLUSHED.format(path=str(flushed))
    (tmp_path / "uploading.py").write_text(agent)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\n")
    args = ("--dataset", "d.csv", "--target", "uploading:respond")
    proc = assay_cli("run", *args, env={"ASSAY_EXIT_WAIT_S": "600"})  # the job, not it, ends it
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 test: 1 passed" in proc.stdout
    assert "warning" not in proc.stderr
    assert uploaded.read_text() == "uploaded"
    assert flushed.read_text() == "flushed"


def test_an_idle_pool_of_the_agent_s_is_no_thread_left_running(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "pooled.py").write_text(IDLE_POOL)
    (tmp_path / "d.csv").write_text("Question,Answer\nhi,x\n")
    proc = assay_cli("run", "--dataset", "d.csv", "--target", "pooled:respond")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "warning" not in proc.stderr
