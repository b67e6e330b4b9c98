"""Goal tests through a real run: a suite file, a real HTTP agent on 127.0.0.1, the
scripted OpenAI-compatible server as contract model, simulated user and judge, and a real
SQLite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import assay
from assay.models._structured import forget_modes
from assay.net import reset_limiters
from assay.results.models import Report, TestResult
from tests.cli.conftest import assay_cli  # noqa: F401  (a fixture, for the CLI tests here)
from tests.fakes.llm_server import ScriptedLLM, scripted_llm
from tests.simulation.scripted import GoalModel
from tests.targets.agent_server import AgentServer, agent_server


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    reset_limiters()
    forget_modes()
    yield
    reset_limiters()
    forget_modes()


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    with agent_server() as server:
        yield server


@pytest.fixture
def model(llm: ScriptedLLM) -> GoalModel:
    scripted = GoalModel()
    llm.responder = scripted
    return scripted


def goal_suite(
    folder: Path,
    agent: AgentServer,
    llm: ScriptedLLM,
    tests: list[dict[str, Any]],
    **extra: Any,
) -> Path:
    suite = {
        "name": "goals",
        "target": {"http": {"url": agent.chat_url, "timeout_s": 5}},
        "judge": {"provider": "openai", "model": "judge-model", "base_url": llm.base_url},
        "execution": {"turn_timeout_s": 5, "retries": 0},
        "tests": tests,
        **extra,
    }
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def run_suite(path: Path, **request: Any) -> Report:
    url = f"sqlite:///{path.parent / '.assay' / 'assay.db'}"
    return assay.run(path, store=url, **request)


def only(report: Report) -> TestResult:
    assert len(report.results) == 1
    return report.results[0]
