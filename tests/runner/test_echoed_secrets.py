"""A ${VAR} secret that JSON escapes (it holds ``"`` and ``\\``), echoed by an agent in its
reply, tool arguments, tool result and tool error, is masked on the values before anything
is serialised: it reaches no report format, not the store, not stdout or stderr."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

from tests.cli.conftest import ASSAY
from tests.targets.agent_server import Step, agent_server

TAIL = "s3cr3tTail"  # every escaped form of the secret still ends with this
SECRET = f'q"u\\o"te\\\\-{TAIL}'


def echoed(secret: str) -> Step:
    return Step(
        json={
            "response": f"you sent {secret}",
            "tool_invocations": [
                {
                    "name": "lookup",
                    "args": {"key": secret, secret: 1},
                    "result": {"nested": [f"x{secret}y"]},
                    "error": f"denied for {secret}",
                }
            ],
        }
    )


def test_an_echoed_secret_that_json_escapes_is_masked_everywhere(tmp_path: Path) -> None:
    with agent_server() as server:
        server.queue(echoed(SECRET), echoed(SECRET), echoed(SECRET))
        (tmp_path / "suite.yaml").write_text(
            "name: echo\n"
            "target:\n"
            "  http:\n"
            f"    url: {server.chat_url}\n"
            '    headers: {X-Session-Key: "${ECHO_SECRET}"}\n'
            "tests:\n"
            "  - {name: one, input: hi}\n"
            "  - name: two\n"
            "    turns: [{input: a}, {input: b}]\n"
        )
        env = {**os.environ, "ECHO_SECRET": SECRET, "NO_COLOR": "1", "COLUMNS": "300"}
        outs = ["r.json", "r.md", "r.xml", "r.html"]
        args = [arg for out in outs for arg in ("--out", out)]
        proc = subprocess.run(
            [ASSAY, "run", "suite.yaml", *args, "--format", "json", "--format", "markdown"]
            + ["--format", "junit", "--format", "html"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        shown = subprocess.run(  # the terminal table and a report printed to stdout
            [ASSAY, "report", "--format", "json", _run_id(tmp_path)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert server.requests[0].headers["X-Session-Key"] == SECRET  # it was sent, and echoed
    assert proc.returncode in (0, 1), proc.stderr  # the run completed and reported
    assert shown.returncode == 0 and shown.stdout.count("you sent ***") == 4  # 3 turns, 1 roll-up
    assert "you sent ***" in (tmp_path / "r.json").read_text()
    for name in outs:
        assert TAIL not in (tmp_path / name).read_text(), name
    for stream in (proc.stdout, proc.stderr, shown.stdout, shown.stderr):
        assert TAIL not in stream
    store = tmp_path / ".assay"
    for path in store.iterdir():  # the database file and its write-ahead log, byte for byte
        assert TAIL.encode() not in path.read_bytes(), path.name


def _run_id(folder: Path) -> str:
    with sqlite3.connect(folder / ".assay" / "assay.db") as conn:
        (run_id,) = conn.execute("select id from assay_runs").fetchone()
    return str(run_id)
