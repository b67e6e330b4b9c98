from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.net import reset_limiters
from tests.cli.conftest import assay_cli  # noqa: F401 (the CLI fixture, for the CLI tests here)
from tests.targets.agent_server import AgentServer, agent_server


@pytest.fixture
def server() -> Iterator[AgentServer]:
    with agent_server() as s:
        yield s


@pytest.fixture(autouse=True)
def _fresh_limiters() -> None:
    reset_limiters()
