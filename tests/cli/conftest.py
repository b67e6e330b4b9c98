from __future__ import annotations

import os
import resource
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
        *args: str,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 60,
        max_file_bytes: int | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``max_file_bytes``: no file the command writes may grow past it (RLIMIT_FSIZE;
        writing beyond fails with EFBIG): a disk that is full for it alone."""
        full_env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200", **(env or {})}
        return subprocess.run(
            [ASSAY, *args],
            cwd=cwd or tmp_path,
            env=full_env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            preexec_fn=None if max_file_bytes is None else _files_within(max_file_bytes),
        )

    return run


def _files_within(size: int) -> Callable[[], None]:
    """A child's ``preexec_fn``: no file it writes grows past ``size`` bytes."""
    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
