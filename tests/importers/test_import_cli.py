"""``assay import`` as a command: standard output without -o, no silent overwrite."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import yaml

from assay import parse_suite
from tests.importers.conftest import ASSAY

PROMPTFOO = (
    "prompts: ['{{q}}']\ntests:\n  - vars: {q: hi}\n    assert: [{type: equals, value: hello}]\n"
)


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ASSAY, "import", *args], capture_output=True, text=True, timeout=60, cwd=cwd, check=False
    )


def test_without_out_the_suite_goes_to_standard_output(
    write: Callable[[str, str], Path], tmp_path: Path
) -> None:
    source = write("promptfooconfig.yaml", PROMPTFOO)
    proc = _run("promptfoo", str(source), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Imported by `assay import promptfoo`")
    loaded = parse_suite(yaml.safe_load(proc.stdout), "stdout")
    assert [t.turns[0].ground_truth for t in loaded.cases] == ["hello"]
    assert "imported 1 test from" in proc.stderr


def test_an_existing_suite_is_not_overwritten_without_force(
    write: Callable[[str, str], Path], tmp_path: Path
) -> None:
    source = write("promptfooconfig.yaml", PROMPTFOO)
    mine = write("suite.yaml", "name: mine\n")
    refused = _run("promptfoo", str(source), "-o", str(mine), cwd=tmp_path)
    assert refused.returncode == 2 and "exists; pass --force" in refused.stderr
    assert mine.read_text() == "name: mine\n"
    forced = _run("promptfoo", str(source), "-o", str(mine), "--force", cwd=tmp_path)
    assert forced.returncode == 0 and mine.read_text().startswith("# Imported")


def test_an_unknown_kind_or_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    assert _run("deepeval", "x.yaml", cwd=tmp_path).returncode == 2
    missing = _run("holodeck", "nope.yaml", cwd=tmp_path)
    assert missing.returncode == 2 and "nope.yaml: file not found" in missing.stderr
