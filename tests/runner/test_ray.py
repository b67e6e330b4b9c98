"""``assay run --executor ray``: the suite's shards as Ray tasks on a local Ray that assay
starts for the run (2 CPUs on this machine), results stored by the driver. The same
2,000-test suite gives the report one process gives; a Python agent beside the suite
imports on the Ray workers (the suite's folder is shipped as the job's working directory);
without Ray installed the option says how to install it.

Ray starts in seconds, so this module runs it twice and no more."""

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
memory = {}

def respond(query, session_id):
    said = memory.setdefault(session_id, [])
    said.append(query)
    return "first was " + said[0] if query == "first?" else "ok " + query
"""


def test_a_python_agent_beside_the_suite_runs_on_ray(tmp_path: Path) -> None:
    (tmp_path / "beside.py").write_text(AGENT)
    lines = ["name: py", "target: {python: 'beside:respond'}", "tests:"]
    lines += [f"  - {{name: s{i}, input: q{i}, ground_truth: 'ok q{i}'}}" for i in range(6)]
    lines += [
        "  - name: remembers",
        "    turns:",
        "      - {input: a, ground_truth: 'ok a'}",
        "      - {input: 'first?', ground_truth: 'first was a'}",
    ]
    (tmp_path / "suite.yaml").write_text("\n".join(lines) + "\n")
    done = run(tmp_path, "run", "suite.yaml", "--executor", "ray", "--out", "r.json")
    assert done.returncode == 0, done.stderr
    assert "running on one Ray task per CPU of the cluster" in done.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["summary"]["total_tests"] == 7 and report["summary"]["passed"] == 7


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
