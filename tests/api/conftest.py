"""What the tests of ``assay.run`` share: a suite file for an agent, and a store of their own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.conftest import assay_cli  # noqa: F401  (a fixture: the installed CLI)
from tests.targets.agent_server import AgentServer, agent_server


@pytest.fixture
def agent() -> Iterator[AgentServer]:
    """The stateful test agent over HTTP on 127.0.0.1 (``tests.targets.agent_server``):
    it answers ``turn N: <query>``."""
    with agent_server() as served:
        yield served


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'runs.db'}"


def write_suite(folder: Path, url: str | None, names: list[str], **extra: Any) -> Path:
    """A suite of single-turn tests, one per name, each passing when the agent answers
    ``turn 1: <name>`` (the test agent's first reply in a session)."""
    suite: dict[str, Any] = {"name": "api", **extra}
    if url is not None:
        suite["target"] = {"http": {"url": url}}
    suite["tests"] = [
        {"name": name, "input": name, "ground_truth": f"turn 1: {name}", "metrics": ["equality"]}
        for name in names
    ]
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path
