"""Fixtures of the dataset-service and Rhesis vector tests (imported by them; no conftest, so
that the other vector tests keep their own): the CLI, a loopback agent, the sample files."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.conftest import assay_cli  # noqa: F401 (the CLI fixture, for the tests here)
from tests.targets.conftest import _fresh_limiters, server  # noqa: F401 (the agent's, too)

SAMPLES = Path(__file__).resolve().parent / "samples"


@pytest.fixture
def sample(tmp_path: Path) -> Callable[[str], Path]:
    """Copy a sample file into the test's scratch folder (where assay_cli runs) and return
    its path there."""

    def copy(name: str) -> Path:
        return Path(shutil.copy(SAMPLES / name, tmp_path / name))

    return copy
