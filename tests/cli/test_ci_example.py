"""examples/ci/assay.yml's commands run: each ``run:`` step of the workflow, in order, with
bash as GitHub runs it (``bash -eo pipefail``), in a scratch checkout, against the built-in
travel agent on loopback, once as a push to main and then as pull requests. The ``uses:``
steps are GitHub's own actions; the one that matters here, restoring main's report from the
cache, is done by copying the folder the main job kept. Only the install step is skipped:
the test runs the assay installed here."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.conftest import REPO
from tests.cli.shell import bash, shell_env

WORKFLOW = REPO / "examples" / "ci" / "assay.yml"
# each `if:` of a run step, as it evaluates on a push to main and on a pull request
CONDITIONS = {
    "github.ref == 'refs/heads/main' && !cancelled()": {"main": True, "pull_request": False},
}


def _steps() -> list[dict[str, Any]]:
    data = yaml.safe_load(WORKFLOW.read_text())
    steps: list[dict[str, Any]] = data["jobs"]["assay"]["steps"]
    return steps


def _checkout(folder: Path) -> Path:
    """The repository as actions/checkout leaves it (the part the workflow reads)."""
    shutil.copytree(REPO / "examples" / "ci", folder / "examples" / "ci")
    return folder


def _run_job(folder: Path, event: str) -> tuple[list[int], str]:
    """The run steps' exit codes, in order, and the job summary they wrote. A step that
    fails skips the rest, except those whose condition runs after a failure too, as on
    GitHub."""
    summary = folder / "step-summary.md"
    env = shell_env(GITHUB_STEP_SUMMARY=str(summary))
    codes: list[int] = []
    failed = False
    for step in _steps():
        if "run" not in step or step.get("name") == "Install assay":
            continue
        condition = step.get("if")
        if condition is not None and not CONDITIONS[condition][event]:
            continue
        if failed and "cancelled()" not in str(condition) and "always()" not in str(condition):
            continue
        proc = bash(step["run"], folder, env)
        assert "Traceback" not in proc.stderr, proc.stderr
        codes.append(proc.returncode)
        failed = failed or proc.returncode != 0
    return codes, summary.read_text() if summary.exists() else ""


def test_the_workflow_installs_assay_and_runs_it_with_a_gate() -> None:
    runs = [s["run"] for s in _steps() if "run" in s]
    assert runs[0].startswith("pip install assay")
    assert "--fail-under 0.8" in runs[1] and "--baseline baseline/assay-report.json" in runs[1]


@pytest.fixture
def main_job(tmp_path: Path) -> Path:
    """A push to main: no baseline yet, so the pass rate alone gates; the report is kept."""
    main = _checkout(tmp_path / "main")
    codes, summary = _run_job(main, "main")
    assert codes == [0, 0]
    assert "pass rate 83.3% (5 of 6 tests) is at or above --fail-under 80.0%" in summary
    assert "did not pass now" not in summary  # no baseline on the first run
    assert (main / "baseline" / "assay-report.json").is_file()
    assert (main / "assay-report.md").is_file()
    return main / "baseline"


def _pull_request(tmp_path: Path, baseline: Path) -> Path:
    folder = _checkout(tmp_path / "pr")
    shutil.copytree(baseline, folder / "baseline")  # what actions/cache/restore does
    return folder


def test_a_pull_request_that_changes_nothing_passes(tmp_path: Path, main_job: Path) -> None:
    codes, summary = _run_job(_pull_request(tmp_path, main_job), "pull_request")
    assert codes == [0]  # the baseline step is main's only
    assert "### ✅ assay gate passed" in summary
    assert "- ✅ 0 tests that passed in assay-report.json (run " in summary


def test_a_pull_request_that_breaks_a_passing_test_fails(tmp_path: Path, main_job: Path) -> None:
    folder = _pull_request(tmp_path, main_job)
    suite = folder / "examples" / "ci" / "suite.yaml"
    # the change under review: booking by name now books the wrong hotel (as far as the
    # suite can tell): a test that passed on main fails
    suite.write_text(suite.read_text().replace("hotel_id: 1}", "hotel_id: 2}"))
    codes, summary = _run_job(folder, "pull_request")
    assert codes == [1]
    assert "### ❌ assay gate failed" in summary
    assert "- ❌ 1 test that passed in assay-report.json" in summary
    assert "regressed: `book-by-name`" in summary
    assert "- ❌ pass rate 66.7% (4 of 6 tests) is below --fail-under 80.0%" in summary
    # the failing-by-design test is no regression: it failed on main as well
    assert "car-rental-after-a-hotel-search`" not in summary.split("regressed:")[1].split("\n")[0]
