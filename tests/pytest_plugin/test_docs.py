"""docs/pytest.md's example runs: its agent and suite written from the page's blocks (each
opens with ``# FILE``), each ``pytest`` command of the page run in a scratch folder with the
exit code its ``# exit N`` comment states, and the output the page shows found in what the
first command printed."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tests.cli.conftest import REPO
from tests.pytest_plugin.conftest import RunPytest

PAGE = REPO / "docs" / "pytest.md"
BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.S)
COMMAND = re.compile(r"^pytest (.*?)\s*# exit (\d)", re.M)


def blocks(lang: str) -> list[str]:
    return [body for kind, body in BLOCK.findall(PAGE.read_text()) if kind == lang]


def test_the_page_is_linked_from_the_guide() -> None:
    assert "(pytest.md)" in (REPO / "docs" / "index.md").read_text()


def test_the_example_runs_as_the_page_says(run_pytest: RunPytest, tmp_path: Path) -> None:
    for body in blocks("python") + blocks("yaml"):
        name = body.splitlines()[0].removeprefix("# ")
        (tmp_path / name).write_text(body)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.py", "suite.yaml"]
    commands = [
        (shlex.split(args), int(code)) for sh in blocks("sh") for args, code in COMMAND.findall(sh)
    ]
    assert len(commands) == 2
    outputs = []
    for args, code in commands:
        result = run_pytest(*args)
        assert result.returncode == code, result.out
        outputs.append(result.out)
    (shown,) = blocks("text")
    for line in shown.strip().splitlines():
        assert line.rstrip() in outputs[0], line
    # the second command: two tests picked, two workers, and the report of both
    assert "created: 2/2 workers" in outputs[1]
    report = json.loads((tmp_path / "report.json").read_text())
    assert [r["test_name"] for r in report["results"]] == ["france", "italy"]
    assert report["summary"]["passed"] == 2
