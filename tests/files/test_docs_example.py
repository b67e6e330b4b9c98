"""The ``files:`` example of docs/suites.md runs as written: its suite and its agent, with
the files it names generated here, through the real CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.cli.conftest import RunCli
from tests.files.samples import write_samples

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "suites.md"


def _block(language: str, containing: str) -> str:
    blocks = re.findall(rf"```{language}\n(.*?)```", GUIDE.read_text(), re.S)
    [found] = [b for b in blocks if containing in b]
    return found


def test_the_files_example_of_the_guide_runs(tmp_path: Path, assay_cli: RunCli) -> None:
    (tmp_path / "suite.yaml").write_text(_block("yaml", "expenses-assistant"))
    (tmp_path / "expense_agent.py").write_text(_block("python", "def respond"))
    samples = write_samples(tmp_path / "docs")
    samples["png"].rename(tmp_path / "docs" / "receipt.png")
    done = assay_cli(
        "run", "suite.yaml", "--store", f"sqlite:///{tmp_path / 'runs.db'}",
        "--format", "json", "--out", "report.json",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads((tmp_path / "report.json").read_text())
    files = {r["test_name"]: [f["path"] for f in r["processed_files"]] for r in report["results"]}
    assert files == {
        "policy-question": ["docs/policy.md"],
        "contract-review": [
            "docs/policy.md",
            "docs/contract.pdf",
            "docs/expenses.xlsx",
            "docs/receipt.png",
        ],
    }
