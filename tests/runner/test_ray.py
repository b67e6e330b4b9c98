"""``assay run --executor ray``: the suite's shards as Ray tasks on a local Ray that assay
starts for the run (2 CPUs on this machine), results stored by the driver. The same
2,000-test suite gives the report one process gives; a Python agent beside the suite
imports on the Ray workers (the suite's folder is shipped as the job's working directory);
a Ray task killed (SIGKILL) loses only the results it had not sent, which ``--resume``
runs; without Ray installed the option says how to install it.

Ray takes seconds to start, so this module starts it three times and no more."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.runner.scale_suite import PASSED, TOTAL, essence, run, write_suite
from tests.targets.agent_server import agent_server

pytest.importorskip("ray", reason="the test extras install Ray: pip install -e '.[test]'")


def test_ray_gives_the_one_process_report(tmp_path: Path) -> None:
    reports = {}
    with agent_server() as agent:
        for how in (("--workers", "1"), ("--executor", "ray")):
            folder = tmp_path / how[1]
            folder.mkdir()
            write_suite(folder, agent.chat_url)
            done = run(folder, "run", "suite.yaml", *how, "--out", "r.json")
            assert done.returncode == 1, done.stderr  # the odd single-turn tests fail
            reports[how[1]] = json.loads((folder / "r.json").read_text())
    one, ray = reports["1"], reports["ray"]
    assert one["summary"]["total_tests"] == TOTAL and one["summary"]["passed"] == PASSED
    names = [r["test_name"] for r in ray["results"]]
    assert len(names) == TOTAL and len(set(names)) == TOTAL
    assert essence(ray) == essence(one)


AGENT = """
import os

memory = {}

def respond(query, session_id):
    if query == "exit":
        os._exit(0)
    said = memory.setdefault(session_id, [])
    said.append(query)
    return "first was " + said[0] if query == "first?" else "ok " + query
"""
EXITED = "Agent invocation error: os._exit(0) (it would have ended the run)"


def test_a_python_agent_beside_the_suite_runs_on_ray(tmp_path: Path) -> None:
    """... and its ``os._exit`` fails its own turn, as in one process (before, it ended the
    Ray worker, and the task's tests not yet sent had no result)."""
    (tmp_path / "beside.py").write_text(AGENT)
    lines = ["name: py", "target: {python: 'beside:respond'}", "tests:"]
    lines += [f"  - {{name: s{i}, input: q{i}, ground_truth: 'ok q{i}'}}" for i in range(6)]
    lines += [
        "  - name: remembers",
        "    turns:",
        "      - {input: a, ground_truth: 'ok a'}",
        "      - {input: 'first?', ground_truth: 'first was a'}",
        "  - {name: exits, input: exit}",
    ]
    (tmp_path / "suite.yaml").write_text("\n".join(lines) + "\n")
    done = run(tmp_path, "run", "suite.yaml", "--executor", "ray", "--out", "r.json")
    assert done.returncode == 1, done.stderr
    assert "running on one Ray task per CPU of the cluster" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["total_tests"] == 8 and report["summary"]["passed"] == 7
    (exited,) = [r for r in report["results"] if r["test_name"] == "exits"]
    assert exited["status"] == "error" and exited["errors"] == [EXITED]


def test_without_ray_the_option_says_how_to_install_it(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(
        "name: x\ntarget: {http: {url: 'http://127.0.0.1:9/chat'}}\ntests: [{name: a, input: hi}]\n"
    )
    hide_ray = (
        "import sys; sys.modules['ray'] = None; from assay.cli import main; "
        "sys.argv = ['assay', 'run', 'suite.yaml', '--executor', 'ray']; main()"
    )
    done = subprocess.run(
        [sys.executable, "-c", hide_ray],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'assay[ray]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / ".assay").exists()  # refused before anything was stored


def test_a_killed_ray_task_loses_only_its_unsent_results(tmp_path: Path) -> None:
    from tests.runner.scale_suite import resume_completes, rows, start, wait_for
    from tests.runner.test_workers import HELD, hold_some

    with agent_server() as agent:
        write_suite(tmp_path, agent.chat_url, patient=True)
        # even positions: all in the first of two shards, which has 10 slots for them
        held = hold_some(agent)
        db = tmp_path / ".assay" / "assay.db"
        args = ("run", "suite.yaml", "--executor", "ray", "--workers", "2", "--concurrency", "20")
        proc = start(tmp_path, *args, "--quiet")
        wait_for(lambda: len(rows(db)) == TOTAL - HELD, "every test but the held ones stored")
        tasks = [
            int(p.name)
            for p in Path("/proc").iterdir()
            if p.name.isdigit() and _cmdline(p).startswith(b"ray::_shard_results")
        ]
        assert len(tasks) == 1, tasks  # the other shard has ended
        os.kill(tasks[0], 9)
        agent.end_pauses()
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 3, err
        assert "Ray task" in err and f"{HELD} tests have no result" in err
        stored = rows(db)
        assert len(stored) == TOTAL - HELD and not {n for n, _ in stored} & set(held)
        resume_completes(tmp_path, db, "--executor", "local")


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""


def _assay(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / "assay"), *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "200"},
        timeout=300,
        check=False,
    )


def test_a_ray_cluster_that_is_not_there_is_exit_3_and_the_address_alone_exit_2(
    tmp_path: Path,
) -> None:
    with agent_server() as server:  # the agent answers: only Ray is missing
        (tmp_path / "suite.yaml").write_text(
            f"name: x\ntarget: {{http: {{url: '{server.chat_url}'}}}}\n"
            "tests: [{name: a, input: hi}]\n"
        )
        alone = _assay(tmp_path, "run", "suite.yaml", "--ray-address", "auto")
        assert alone.returncode == 2, alone.stderr
        assert "add --executor ray" in alone.stderr
        absent = _assay(tmp_path, "run", "suite.yaml", "--executor", "ray", "--ray-address", "auto")
    assert absent.returncode == 3, absent.stdout + absent.stderr
    assert "could not start Ray (auto)" in absent.stderr
    assert "Traceback" not in absent.stderr


def test_the_help_names_the_ray_extra() -> None:
    shown = _assay(Path.cwd(), "run", "--help")
    assert "assay[ray]" in shown.stdout
