"""What the tests of the pytest plugin share: pytest run in a subprocess as a user runs it
(the plugin loaded by its installed ``pytest11`` entry point), a Python agent that logs the
queries it is asked, and pytest's outcome per item read from its short summary (``-rA``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.api.conftest import agent, write_suite  # noqa: F401  (a fixture; a suite writer)

# a Python agent: right about France and Italy, wrong about anything else, and it raises on
# "boom"; every query it is asked is appended to asked.log next to it
AGENT = """
from pathlib import Path

ANSWERS = {"capital of France?": "Paris", "capital of Italy?": "Rome"}


def respond(query: str, session_id: str) -> str:
    with open(Path(__file__).with_name("asked.log"), "a") as log:
        log.write(query + "\\n")
    if query == "boom":
        raise RuntimeError("the backend is down")
    return ANSWERS.get(query, "I am not sure")


def always_paris(query: str, session_id: str) -> str:
    return "Paris"
"""

SUITE = """
name: capitals
target: {python: "agent:respond"}
tests:
  - name: france
    input: "capital of France?"
    ground_truth: Paris
    metrics: [equality]
  - name: spain
    input: "capital of Spain?"
    ground_truth: Madrid
    metrics: [equality]
  - name: italy dialogue
    turns:
      - {input: "capital of Italy?", ground_truth: Rome}
      - {input: "capital of Peru?", ground_truth: Lima}
    metrics: [equality]
  - name: crash
    input: boom
    ground_truth: Paris
    metrics: [equality]
"""

SUITE_OUTCOMES = {
    "suite.yaml::france": "PASSED",
    "suite.yaml::spain": "FAILED",
    "suite.yaml::italy dialogue": "FAILED",
    "suite.yaml::crash": "FAILED",
}

SUMMARY_LINE = re.compile(r"^(PASSED|FAILED|ERROR) (.+?)(?: - .*)?$", re.M)

RunPytest = Callable[..., "Outcome"]


@dataclass
class Outcome:
    returncode: int
    out: str

    @property
    def items(self) -> dict[str, str]:
        """Each item's outcome, by node id, from pytest's short test summary."""
        summary = self.out[self.out.index("short test summary info") :]
        return {nodeid: outcome for outcome, nodeid in SUMMARY_LINE.findall(summary)}

    def failure(self, name: str) -> str:
        """The failure text pytest printed for the item named ``name``."""
        start = self.out.index(f"_ assay test {name} _")
        end = self.out.index("\n___", start + 1) if "\n___" in self.out[start + 1 :] else None
        return self.out[start:end].partition("short test summary info")[0]


def python_suite(folder: Path) -> Path:
    (folder / "agent.py").write_text(AGENT)
    path = folder / "suite.yaml"
    path.write_text(SUITE)
    return path


def asked(folder: Path) -> list[str]:
    log = folder / "asked.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def run_pytest(tmp_path: Path) -> RunPytest:
    """``python -m pytest ARGS -rA`` in ``tmp_path``, with a store of its own there."""

    def run(*args: str, env: dict[str, str] | None = None) -> Outcome:
        full_env = {
            **os.environ,
            "NO_COLOR": "1",
            "COLUMNS": "200",
            "ASSAY_STORE": f"sqlite:///{tmp_path / 'runs.db'}",
            **(env or {}),
        }
        full_env.pop("PYTEST_ADDOPTS", None)
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-rA", "-p", "no:cacheprovider", *args],
            cwd=tmp_path,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        return Outcome(proc.returncode, proc.stdout + proc.stderr)

    return run
