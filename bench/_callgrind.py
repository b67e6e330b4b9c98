"""Run a bench script's ``--run N`` under callgrind, collecting only inside its
``functools.reduce`` calls (callgrind's toggle), one profile dumped after each: the
instructions of each such call, in order. The script measures what it puts inside
``functools.reduce``; everything before (start-up, imports, warming) is left out."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path


def reduce_totals(script: str, src: str, n: int) -> list[int]:
    """The instructions of each ``functools.reduce`` call of ``script --run n``, run with
    ``src`` on PYTHONPATH and ``PYTHONHASHSEED=0``."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "cg.out"
        env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": src}
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                "--collect-atstart=no",
                "--toggle-collect=functools_reduce",
                "--dump-after=functools_reduce",
                sys.executable,
                script,
                "--run",
                str(n),
            ],
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        dumps = sorted(
            (p for p in Path(folder).iterdir() if re.fullmatch(r"cg\.out\.\d+", p.name)),
            key=lambda p: int(p.name.rsplit(".", 1)[1]),
        )
        totals = []
        for dump in dumps:
            for line in dump.read_text().splitlines():
                if line.startswith(("summary:", "totals:")):
                    totals.append(int(line.split()[1]))
                    break
        return totals
