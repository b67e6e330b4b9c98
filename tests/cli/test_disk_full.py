"""A store whose disk fills mid-run fails the run (exit 3) with the resume command, and
keeps no stand-in for the result it could not write: the resume runs that test again and
stores its real result. The disk is "full" for the run's process by RLIMIT_FSIZE (no file
of it may grow past a size: writing beyond fails with EFBIG, which SQLite reports as a disk
I/O error): room for small results, none for the one big reply."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from assay.store import open_store
from tests.cli.conftest import RunCli
from tests.store.conftest import run_info

AGENT = """
def respond(query, session_id):
    return "Paris " + ("x" * 8_000_000 if query == "big" else query)
"""
NAMES = ["a", "b", "c", "big", "d", "e", "f"]
ROOM = 2_000_000  # bytes any file may grow to past the store's size: a small result's rows fit


def test_a_result_the_full_disk_refused_is_run_again_on_resume(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    tests = "".join(f"  - {{name: {name}, input: {name}}}\n" for name in NAMES)
    (tmp_path / "suite.yaml").write_text(
        "name: full\ntarget: {python: 'agent:respond'}\nexecution: {concurrency: 1}\n"
        f"metrics: [{{metric: contains, value: Paris}}]\ntests:\n{tests}"
    )
    db = tmp_path / "s.db"
    url = f"sqlite:///{db}"
    with open_store(url) as store:  # its tables made by a first write
        store.create_run(run_info("an-earlier-run"))
    limit = db.stat().st_size + ROOM
    run = assay_cli("run", "suite.yaml", "--store", url, timeout=120, max_file_bytes=limit)
    assert run.returncode == 3, run.stdout + run.stderr
    assert "disk I/O error" in run.stderr
    found = re.search(r"(assay run --resume \S+ .*?) runs the tests without one", run.stderr)
    assert found is not None, run.stderr

    resumed = assay_cli(*shlex.split(found[1])[1:], "--out", "r.json")  # room again
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    assert sorted(r["test_name"] for r in results) == sorted(NAMES)
    big = next(r for r in results if r["test_name"] == "big")
    assert big["passed"] and big["errors"] == []
    assert len(big["agent_response"]) == len("Paris ") + 8_000_000
