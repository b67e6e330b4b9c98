from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ASSAY = str(Path(sys.executable).parent / "assay")

RunCli = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def assay_cli(tmp_path: Path) -> RunCli:
    """Run the installed ``assay`` command as a user would, in a scratch folder."""

    def run(
        *args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60
    ) -> subprocess.CompletedProcess[str]:
        full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
        return subprocess.run(
            [ASSAY, *args],
            cwd=cwd or tmp_path,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    return run
