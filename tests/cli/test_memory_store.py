"""An in-memory store (``sqlite://``, ``sqlite:///:memory:``) keeps the run's results: the
writer stores them through the run's own connection, the only one that sees that database
(a connection of its own would open another, empty one and every result would be lost).
Through the real CLI and ``assay.run``, against a real HTTP agent on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import assay
from tests.api.conftest import write_suite
from tests.cli.conftest import RunCli
from tests.targets.agent_server import AgentServer, agent_server

NAMES = ["alpha", "beta", "gamma"]


@pytest.fixture
def server() -> Iterator[AgentServer]:
    with agent_server() as s:
        yield s


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///:memory:"])
def test_a_run_in_an_in_memory_store_reports_every_result(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer, url: str
) -> None:
    write_suite(tmp_path, server.chat_url, NAMES)
    proc = assay_cli("run", "suite.yaml", "--store", url, "--out", "mem.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no stored run" not in proc.stderr
    assert "3 tests: 3 passed, 0 failed" in proc.stdout
    report = json.loads((tmp_path / "mem.json").read_text())
    assert [r["test_name"] for r in report["results"]] == NAMES
    assert report["summary"]["passed"] == 3
    assert not list(tmp_path.glob("**/*.db"))  # nothing written to a file


def test_a_failing_test_in_an_in_memory_store_exits_1(
    assay_cli: RunCli, tmp_path: Path, server: AgentServer
) -> None:
    write_suite(tmp_path, server.chat_url, NAMES)
    text = (tmp_path / "suite.yaml").read_text().replace("'turn 1: beta'", "nope")
    (tmp_path / "suite.yaml").write_text(text)
    proc = assay_cli("run", "suite.yaml", "--store", "sqlite://", "--out", "mem.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "mem.json").read_text())
    assert {r["test_name"]: r["status"] for r in report["results"]} == {
        "alpha": "passed",
        "beta": "failed",
        "gamma": "passed",
    }


def test_the_python_api_returns_the_report_of_an_in_memory_store(
    tmp_path: Path, server: AgentServer
) -> None:
    suite = write_suite(tmp_path, server.chat_url, NAMES)
    report = assay.run(suite, store="sqlite://")
    assert [r.test_name for r in report.results] == NAMES
    assert (report.summary.total_tests, report.summary.passed) == (3, 3)
