"""A suite whose agent fails the tests we name: the material of the selection and gate
tests. The agent answers each input in capitals (what every ground truth expects), except
the inputs listed in ``$WRONG`` (a wrong answer: the test fails), in ``$RAISE`` (it raises:
the test errors) and in ``$FLAKY`` (wrong on every other call: flaky under ``--repeat 2``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.conftest import RunCli

AGENT = """
import itertools, os

_calls = itertools.count()


def _listed(name, query):
    return query in os.environ.get(name, "").split(",")


def respond(query, session_id):
    if _listed("RAISE", query):
        raise RuntimeError("the agent broke on " + query)
    if _listed("WRONG", query):
        return "no idea"
    if _listed("FLAKY", query) and next(_calls) % 2:
        return "no idea"
    return query.upper()
"""

# name, input, tags
TESTS = [
    ("Refund-policy", "refund", ["billing"]),
    ("refund-when-late", "late", ["billing", "slow"]),
    ("flight-change", "change", ["travel"]),
    ("seat-window", "seat", ["Travel"]),
    ("baggage", "bags", []),
]
NAMES = [name for name, _, _ in TESTS]


def write_suite(folder: Path) -> Path:
    (folder / "agent.py").write_text(AGENT)
    lines = ["name: picking", "target: {python: 'agent:respond'}", "tests:"]
    for name, query, tags in TESTS:
        lines += [
            f"  - name: {name}",
            f"    input: {query}",
            f"    ground_truth: {query.upper()}",
            f"    tags: {json.dumps(tags)}",
        ]
    suite = folder / "suite.yaml"
    suite.write_text("\n".join(lines) + "\n")
    return suite


def report(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def ran(path: Path) -> list[str]:
    """The test names a JSON report holds, in order."""
    return [r["test_name"] for r in report(path)["results"]]


def run_id(assay_cli: RunCli) -> str:
    """The latest stored run's id."""
    listed = assay_cli("runs", "--json")
    assert listed.returncode == 0, listed.stderr
    latest: str = json.loads(listed.stdout)[0]["id"]
    return latest


def output(proc: subprocess.CompletedProcess[str]) -> str:
    return proc.stdout + proc.stderr
