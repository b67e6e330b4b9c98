"""Shell commands as a CI runner or a reader of the docs types them: bash, in a scratch
folder, with this checkout's ``assay`` first on PATH and no ASSAY_/GITHUB_ variable of the
machine running the tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.cli.conftest import ASSAY


def shell_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASSAY_", "GITHUB_"))}
    path = f"{Path(ASSAY).parent}{os.pathsep}{env.get('PATH', '')}"
    return env | {"PATH": path, "NO_COLOR": "1", "COLUMNS": "200"} | extra


def bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``script`` as GitHub Actions runs a step: ``bash --noprofile --norc -eo pipefail``."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
