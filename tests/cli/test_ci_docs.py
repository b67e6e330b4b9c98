"""docs/ci.md's examples are true: every command of its ``sh`` blocks runs, in order, in a
scratch folder holding a copy of ``examples/``, and exits with the code its ``# exit N``
comment says (``RUN_ID`` is the latest stored run's id); the verdict the page shows is the
one printed; its Python block runs and its gate passes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import ASSAY, REPO
from tests.cli.shell import bash, shell_env

PAGE = REPO / "docs" / "ci.md"
BLOCK = re.compile(r"```(sh|python)\n(.*?)```", re.S)
COMMAND = re.compile(r"^(assay .*?)\s+# exit (\d)$")
SHOWN_RUN = "3f9c2a1b7d4e"


def _commands() -> list[tuple[str, int]]:
    found = []
    for kind, body in BLOCK.findall(PAGE.read_text()):
        for line in body.splitlines() if kind == "sh" else []:
            match = COMMAND.match(line.strip())
            assert match, f"a command without its '# exit N': {line!r}"
            found.append((match[1], int(match[2])))
    return found


def _shown_verdict() -> str:
    """The indented block that starts with the totals line and ends with the verdict."""
    match = re.search(r"\n((?:    .*\n)*?    gate passed \(exit 0\)\n)", PAGE.read_text())
    assert match, "the page shows no verdict"
    return "\n".join(line[4:] for line in match[1].splitlines())


def test_the_page_is_linked_from_the_guide() -> None:
    assert "(ci.md)" in (REPO / "docs" / "index.md").read_text()


def test_every_command_and_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    env = shell_env()
    commands = _commands()
    assert len(commands) >= 10
    outputs = {}
    for command, code in commands:
        if "RUN_ID" in command:
            runs = subprocess.run(
                [ASSAY, "runs", "--json"], cwd=tmp_path, env=env, capture_output=True, text=True
            )
            command = command.replace("RUN_ID", json.loads(runs.stdout)[0]["id"])
        proc = bash(command, tmp_path, env)
        assert proc.returncode == code, f"{command}\n{proc.stdout}{proc.stderr}"
        assert "Traceback" not in proc.stderr
        outputs[command] = proc.stdout
    gated = outputs[
        "assay run examples/ci/suite.yaml --fail-under 0.8 --baseline main.json --quiet"
    ]
    printed = re.sub(r"\(run [0-9a-f]{12}\)", f"(run {SHOWN_RUN})", gated.strip())
    assert printed == _shown_verdict()

    monkeypatch.chdir(tmp_path)
    (python,) = [body for kind, body in BLOCK.findall(PAGE.read_text()) if kind == "python"]
    exec(compile(python, "ci.md", "exec"), {"__name__": "__main__"})
    out = capsys.readouterr().out.strip().splitlines()[-1]
    assert out.startswith("True 0 ['pass rate 66.7% (2 of 3 tests) is at or above")
    assert "'0 tests that passed in main.json (run " in out
