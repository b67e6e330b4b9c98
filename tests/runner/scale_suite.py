"""The 2,000-test suite the worker and Ray tests run against the stateful HTTP agent of
``tests.targets.agent_server`` (it answers ``turn N: QUERY (earlier: A | B)`` per session),
and the helpers they share: the CLI as a process, the store's rows counted, the report's
essence.

Expected by hand: 1,500 single-turn tests, even-numbered ones expecting the agent's exact
reply (pass) and odd-numbered ones expecting "nope" (fail); 500 three-turn tests whose
third turn expects the agent to recall both earlier turns of its session (pass): 1,250
passed, 750 failed.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ASSAY = str(Path(sys.executable).parent / "assay")
SINGLE, MULTI = 1_500, 500
TOTAL = SINGLE + MULTI
PASSED = SINGLE // 2 + MULTI
WAIT_S = 300.0  # a generous bound for a condition on a busy machine, never a measured time


def write_suite(
    folder: Path, url: str, single: int = SINGLE, multi: int = MULTI, patient: bool = False
) -> Path:
    """``patient``: a turn waits for its reply for an hour (a test that holds replies
    back then decides when they come, not a timeout)."""
    lines = ["name: scale", f"target: {{http: {{url: '{url}'}}}}", "tests:"]
    if patient:
        lines[1] = f"target: {{http: {{url: '{url}', timeout_s: 3600}}}}"
        lines.insert(2, "execution: {turn_timeout_s: 3600}")
    for i in range(single):
        truth = f"turn 1: q{i}" if i % 2 == 0 else "nope"
        lines.append(f"  - {{name: single-{i:04d}, input: q{i}, ground_truth: '{truth}'}}")
    for i in range(multi):
        lines += [
            f"  - name: multi-{i:04d}",
            "    turns:",
            f"      - {{input: a{i}, ground_truth: 'turn 1: a{i}'}}",
            f"      - {{input: b{i}, ground_truth: 'turn 2: b{i} (earlier: a{i})'}}",
            f"      - {{input: c{i}, ground_truth: 'turn 3: c{i} (earlier: a{i} | b{i})'}}",
        ]
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def start(folder: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [ASSAY, *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
    )


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = start(folder, *args)
    out, err = proc.communicate(timeout=WAIT_S)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def rows(db: Path) -> list[tuple[str, int]]:
    """(test_name, repeat_index) of every stored result, duplicates kept."""
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=30) as conn:
            query = "select test_name, repeat_index from assay_test_results"
            return [(str(name), int(r)) for name, r in conn.execute(query)]
    except sqlite3.OperationalError:  # not created yet
        return []


def run_id(db: Path) -> str:
    with sqlite3.connect(db, timeout=30) as conn:
        (rid,) = conn.execute("select id from assay_runs").fetchone()
    return str(rid)


def resume_completes(folder: Path, db: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``--resume`` the stored run and check that it ends with every test stored once."""
    resumed = run(folder, "run", "--resume", run_id(db)[:12], *args)
    assert resumed.returncode == 1, resumed.stderr  # the suite's failing tests, as designed
    stored = rows(db)
    assert len(stored) == TOTAL and len(set(stored)) == TOTAL
    return resumed


def wait_for(condition: Callable[[], bool], what: str) -> None:
    """Poll until ``condition`` holds (the machine's load only changes how long)."""
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.05)


def essence(report: dict[str, Any]) -> dict[str, Any]:
    """The report without what differs between two runs of the same suite: run ids, times,
    timings, and the session ids assay draws for each conversation."""
    drop = {
        "id",
        "timestamp",
        "started_at",
        "finished_at",
        "execution_time_ms",
        "total_duration_ms",
        "evaluation_time_ms",
        "latency_ms",
        "session_id",
        "run_id",
    }

    def clean(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: clean(v) for k, v in value.items() if k not in drop and "latency" not in k}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return dict(clean(report))
