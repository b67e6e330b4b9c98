"""Secrets written literally in a suite (a credential header's value, a URL's password),
not taken from ``${VAR}``, that a test's input and ground truth also quote: the suite as the
run stores and reports it (``run.config``) masks them there too, as the results do. The
real CLI runs against a loopback agent; neither the run nor ``assay runs``, ``assay report``
in any format or the dashboard's view of the run shows them, and the store's file bytes
hold none."""

from __future__ import annotations

import base64
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from assay.web import Settings, create_app
from tests.cli.conftest import ASSAY
from tests.targets.agent_server import agent_server

TOKEN = "literalsecret123"
PASSWORD = "pw12345"
BASIC = base64.b64encode(f"user:{PASSWORD}".encode()).decode()  # what the URL's user info sends
SECRETS = (TOKEN, PASSWORD, BASIC)
FORMATS = {"json": "r.json", "markdown": "r.md", "junit": "r.xml", "html": "r.html"}

SUITE = """\
name: "literal {token}"
target:
  http:
    url: http://user:{password}@{host}/chat
    headers: {{{header}: "{value}"}}
tests:
  - name: one
    input: "{token} {password}"
    ground_truth: "{token}"
  - name: two
    turns:
      - {{input: "my key is {token}"}}
      - {{input: "and {password}", ground_truth: "{password}"}}
"""


def cli(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "300"}
    return subprocess.run(
        [ASSAY, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
    )


def run_id(folder: Path) -> str:
    with sqlite3.connect(folder / ".assay" / "assay.db") as conn:
        (found,) = conn.execute("select id from assay_runs").fetchone()
    return str(found)


def dashboard(folder: Path, run: str) -> list[str]:
    """Every dashboard page and API answer about the run, from a server of its own (which
    knows no secret: what it shows is what the store holds)."""
    app = create_app(Settings(store_url=f"sqlite:///{folder / '.assay' / 'assay.db'}", root=folder))
    with TestClient(app, base_url="http://127.0.0.1:8484") as client:
        items = client.get(f"/api/runs/{run}/results").json()["items"]
        assert len(items) == 2
        paths = ["/api/runs", f"/api/runs/{run}", f"/api/runs/{run}/results", "/runs"]
        paths += [f"/runs/{run}", f"/runs/{run}/find?name=two", f"/compare?a={run}&b={run}"]
        for item in items:
            paths += [f"/api/runs/{run}/results/{item['id']}", f"/runs/{run}/tests/{item['id']}"]
        pages = [client.get(path) for path in paths]
        config = client.get(f"/api/runs/{run}").json()["run"]["config"]
    assert [page.status_code for page in pages] == [200] * len(paths), paths
    assert config["tests"][0] == {"name": "one", "input": "*** ***", "ground_truth": "***"}
    return [page.text for page in pages]


@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("X-Api-Key", TOKEN),  # sent beside the URL's Basic credentials: the agent answers
        ("Authorization", f"Bearer {TOKEN}"),  # the audit's suite: the turns fail, unsent
    ],
)
def test_literal_secrets_quoted_by_a_suite_are_masked_in_its_stored_copy(
    tmp_path: Path, header: str, value: str
) -> None:
    with agent_server() as server:
        host = server.url.removeprefix("http://")
        suite = SUITE.format(password=PASSWORD, host=host, header=header, value=value, token=TOKEN)
        (tmp_path / "s.yaml").write_text(suite)
        outs = [arg for fmt, out in FORMATS.items() for arg in ("--format", fmt, "--out", out)]
        ran = cli(tmp_path, "run", "s.yaml", "--verbose", *outs)
        sent = [seen.headers for seen in server.requests]
    assert ran.returncode == 1, ran.stderr  # every test failed or errored, and was reported
    run = run_id(tmp_path)
    report: dict[str, Any] = json.loads((tmp_path / "r.json").read_text())
    assert report["run"]["suite_name"] == "literal ***"
    config = report["run"]["config"]
    assert config["name"] == "literal ***"
    assert config["target"]["http"] == {
        "url": f"http://user:***@{host}/chat",
        "headers": {header: "***"},
    }
    assert config["tests"] == [
        {"name": "one", "input": "*** ***", "ground_truth": "***"},
        {
            "name": "two",
            "turns": [{"input": "my key is ***"}, {"input": "and ***", "ground_truth": "***"}],
        },
    ]
    results = {r["test_name"]: r for r in report["results"]}
    assert results["one"]["test_input"] == "*** ***"  # the results, masked as before
    assert results["two"]["turns"][1]["ground_truth"] == "***"
    if header == "X-Api-Key":  # the agent got the secrets, and echoed the input back
        assert [(h["X-Api-Key"], h["Authorization"]) for h in sent] == [
            (TOKEN, f"Basic {BASIC}")
        ] * 3
        assert results["one"]["agent_response"] == "turn 1: *** ***"
    else:  # aiohttp refuses an Authorization header beside a URL's credentials
        assert sent == [] and {r["status"] for r in report["results"]} == {"error"}
    shown = [ran.stdout, ran.stderr]
    for command in (["runs"], *(["report", "--format", fmt, run] for fmt in FORMATS)):
        done = cli(tmp_path, *command)
        assert done.returncode == 0, done.stderr
        shown += [done.stdout, done.stderr]
    assert run[:12] in shown[2] and "*** ***" in shown[4]  # `assay runs`; the JSON report
    shown += [(tmp_path / out).read_text() for out in FORMATS.values()]
    shown += dashboard(tmp_path, run)
    stored = [path for path in (tmp_path / ".assay").rglob("*") if path.is_file()]
    assert "assay.db" in [path.name for path in stored]
    for secret in SECRETS:
        assert not [text for text in shown if secret in text], secret
        for path in stored:  # the database and its logs, byte for byte
            assert secret.encode() not in path.read_bytes(), (secret, path.name)
