"""A run killed at any moment (SIGKILL) or interrupted (Ctrl-C) resumes to the same results as
an uninterrupted run: nothing stored is lost, nothing is duplicated."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ASSAY = str(Path(sys.executable).parent / "assay")

AGENT = """
import time
memory = {}

def respond(query, session_id):
    time.sleep(0.1)
    said = memory.setdefault(session_id, [])
    said.append(query)
    return "first was " + said[0] if query == "first?" else "ok " + query
"""


def write_suite(folder: Path) -> Path:
    lines = ["name: resumable", "target: {python: 'slow:respond'}", "tests:"]
    for i in range(30):  # odd ones fail: the agent never says "nope"
        truth = f"ok q{i}" if i % 2 == 0 else "nope"
        lines.append(f"  - {{name: single-{i:02d}, input: q{i}, ground_truth: '{truth}'}}")
    for i in range(10):
        lines.append(f"  - name: multi-{i:02d}")
        lines.append("    turns:")
        lines.append(f"      - {{input: a{i}, ground_truth: 'ok a{i}'}}")
        lines.append(f"      - {{input: b{i}, ground_truth: 'ok b{i}'}}")
        lines.append(f"      - {{input: 'first?', ground_truth: 'first was a{i}'}}")
    (folder / "slow.py").write_text(AGENT)
    path = folder / "suite.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def assay(folder: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [ASSAY, *args],
        cwd=folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )


def stored(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("select count(*) from assay_test_results").fetchone()[0])
    except sqlite3.OperationalError:  # not migrated yet
        return 0


def run_id(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        (rid,) = conn.execute("select id from assay_runs").fetchone()
    return str(rid)


def interrupt_after(folder: Path, how: signal.Signals, at_least: int) -> subprocess.Popen[str]:
    db = folder / ".assay" / "assay.db"
    proc = assay(folder, "run", "suite.yaml", "--concurrency", "4", "--quiet")
    deadline = time.monotonic() + 60
    while stored(db) < at_least and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.01)
    assert proc.poll() is None, "the run finished before it could be interrupted"
    proc.send_signal(how)
    proc.wait(timeout=30)
    return proc


def essence(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """What must match between runs: everything but ids, times and session ids."""
    return sorted(
        (
            r["test_name"],
            r["repeat_index"],
            r["passed"],
            r["status"],
            r["agent_response"],
            tuple((t["response"], t["passed"]) for t in r["turns"] or []),
            tuple((m["metric_name"], m["score"], m["passed"]) for m in r["metric_results"]),
        )
        for r in report["results"]
    )


def baseline(tmp_path: Path) -> list[tuple[Any, ...]]:
    folder = tmp_path / "baseline"
    folder.mkdir()
    write_suite(folder)
    proc = assay(folder, "run", "suite.yaml", "--concurrency", "4", "--out", "r.json")
    proc.communicate(timeout=120)
    assert proc.returncode == 1
    return essence(json.loads((folder / "r.json").read_text()))


def test_sigkill_then_resume_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    folder = tmp_path / "killed"
    folder.mkdir()
    write_suite(folder)
    db = folder / ".assay" / "assay.db"
    killed = interrupt_after(folder, signal.SIGKILL, at_least=8)
    assert killed.returncode == -signal.SIGKILL
    before = stored(db)
    assert 8 <= before < 40
    rid = run_id(db)
    proc = assay(folder, "run", "--resume", rid[:8], "--out", "r.json")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, err  # the odd single tests fail by design
    report = json.loads((folder / "r.json").read_text())
    assert len(report["results"]) == 40
    assert len({r["test_name"] for r in report["results"]}) == 40  # none duplicated
    assert stored(db) == 40
    assert report["run"]["id"] == rid and report["run"]["status"] == "completed"
    assert report["summary"]["total_tests"] == 40 and report["summary"]["passed"] == 25
    assert essence(report) == baseline(tmp_path)


def test_ctrl_c_leaves_an_interrupted_resumable_run(tmp_path: Path) -> None:
    write_suite(tmp_path)
    db = tmp_path / ".assay" / "assay.db"
    proc = interrupt_after(tmp_path, signal.SIGINT, at_least=4)
    err = proc.stderr.read() if proc.stderr else ""
    assert proc.returncode == 130, err
    rid = run_id(db)
    assert f"assay run --resume {rid[:12]}" in err
    runs = json.loads(assay(tmp_path, "runs", "--json").communicate(timeout=30)[0])
    assert runs[0]["status"] == "interrupted"
    resumed = assay(tmp_path, "run", "--resume", rid, "--quiet")
    out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 1, err
    assert "40 tests: 25 passed, 15 failed" in out
    assert stored(db) == 40


def test_resume_refuses_a_different_suite(tmp_path: Path) -> None:
    write_suite(tmp_path)
    done = assay(tmp_path, "run", "suite.yaml", "--limit", "2", "--quiet")
    done.communicate(timeout=60)
    rid = run_id(tmp_path / ".assay" / "assay.db")
    other = tmp_path / "other.yaml"
    other.write_text((tmp_path / "suite.yaml").read_text())
    proc = assay(tmp_path, "run", "other.yaml", "--resume", rid)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert f"cannot resume run {rid[:12]} with a different SUITE" in err
    (tmp_path / "suite.yaml").write_text((tmp_path / "suite.yaml").read_text() + "\n# edited\n")
    proc = assay(tmp_path, "run", "suite.yaml", "--resume", rid)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "changed since run" in err
