"""``assay init``: a starter that passes at once through the real CLI, a dataset that
validates as multi-turn, a GitHub Actions workflow whose command runs, and no overwriting."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import yaml

from tests.cli.conftest import RunCli

FILES = ["suite.yaml", "agent.py", "conversations.csv", ".github/workflows/assay.yml"]


def test_init_then_run_in_an_empty_folder_passes(assay_cli: RunCli, tmp_path: Path) -> None:
    made = assay_cli("init")
    assert made.returncode == 0, made.stderr
    assert all((tmp_path / name).is_file() for name in FILES)
    ran = assay_cli("run", "suite.yaml")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    last = ran.stdout.strip().splitlines()[-1]
    assert last == "5 tests: 5 passed, 0 failed, 0 errored, 0 not run — 7 turns"
    assert "mean scores: contains 1.00, equality 1.00" in ran.stdout  # checks really ran


def test_assay_run_without_a_suite_runs_the_folders_suite_yaml(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    assert assay_cli("init").returncode == 0
    ran = assay_cli("run")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "5 tests: 5 passed" in ran.stdout
    (tmp_path / "suite.yaml").unlink()
    refused = assay_cli("run")
    assert refused.returncode == 2
    assert "give a suite file (no suite.yaml here), or --dataset FILE" in refused.stderr


def test_the_starter_checks_the_agent_it_points_at(assay_cli: RunCli, tmp_path: Path) -> None:
    """A green starter is only worth something if a wrong agent turns it red."""
    assay_cli("init")
    agent = tmp_path / "agent.py"
    agent.write_text(agent.read_text().replace("is {found['status']}", "is lost"))
    ran = assay_cli("run", "suite.yaml")
    assert ran.returncode == 1
    assert "expected: Order A1001 is shipped." in ran.stdout


def test_the_starter_dataset_validates_as_multi_turn(assay_cli: RunCli, tmp_path: Path) -> None:
    assay_cli("init")
    shape = assay_cli("validate", "conversations.csv")
    assert shape.returncode == 0, shape.stderr
    first = shape.stdout.splitlines()[0]
    assert first.startswith("MULTI-TURN — ")
    assert first == "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"


def _workflow(path: Path) -> dict[Any, Any]:
    data = yaml.safe_load(path.read_text())
    assert isinstance(data, dict)
    return data


def test_the_workflow_is_github_actions_yaml_whose_command_runs(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    assay_cli("init")
    flow = _workflow(tmp_path / ".github" / "workflows" / "assay.yml")
    triggers = flow.get("on", flow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert set(triggers) == {"push", "pull_request"}
    (job,) = flow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    for step in job["steps"]:
        assert ("uses" in step) != ("run" in step), step  # each step does one thing
        assert set(step) <= {"name", "uses", "with", "run", "if", "env", "working-directory"}
    runs = [step["run"] for step in job["steps"] if "run" in step]
    assert any(shlex.split(r)[:2] == ["pip", "install"] and "assay" in r for r in runs)
    (command,) = [r for r in runs if r.startswith("assay run")]
    argv = shlex.split(command)
    ran = assay_cli(*argv[1:])  # the workflow's own command, in the starter folder
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (tmp_path / "assay-report.xml").read_text().startswith("<?xml")
    assert "assay: my-agent" in (tmp_path / "assay-report.md").read_text()


def test_init_refuses_to_overwrite_unless_forced(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("name: mine\ntests: []\n")
    refused = assay_cli("init")
    assert refused.returncode == 2
    assert "suite.yaml already exist" in refused.stderr and "--force" in refused.stderr
    assert (tmp_path / "suite.yaml").read_text() == "name: mine\ntests: []\n"
    assert not (tmp_path / "agent.py").exists()  # nothing was written
    forced = assay_cli("init", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "suite.yaml").read_text().startswith("# A starter suite")


def test_init_makes_a_new_folder(assay_cli: RunCli, tmp_path: Path) -> None:
    made = assay_cli("init", "bot")
    assert made.returncode == 0, made.stderr
    assert "cd bot && assay run suite.yaml" in made.stdout
    assert assay_cli("run", "suite.yaml", cwd=tmp_path / "bot").returncode == 0
