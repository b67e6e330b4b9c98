"""A resume keeps the options that decide which tests run and how often (--repeat, --limit,
-k, --tag, --only-failed), and compares those given again by the value they take: an option
left out at the start is its default (--repeat: the suite's execution.repeat). A different
one is refused, naming how the run was started, as it would be typed."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.runner.test_resume import run_id, stored
from tests.runner.test_resume_safety import EARLY, LATE, gated_suite, start, wait_for_results

FIX = "Resume with no arguments, or start a new run."


def write_suite(folder: Path, execution: str = "") -> None:
    """Three tests (tagged Slow, fast and none) that an echoing agent passes."""
    (folder / "echo.py").write_text("def respond(query, session_id):\n    return query\n")
    (folder / "suite.yaml").write_text(
        f"name: s\ntarget: {{python: 'echo:respond'}}\n{execution}tests:\n"
        "  - {name: alpha, input: a, ground_truth: a, tags: [Slow]}\n"
        "  - {name: beta, input: b, ground_truth: b, tags: [fast]}\n"
        "  - {name: gamma, input: c, ground_truth: c}\n"
    )


def started(assay_cli: RunCli, *options: str) -> str:
    """The id of a run of the suite with ``options``, stored and finished (a finished run is
    resumed as an interrupted one is: its checks are the same, with nothing left to run)."""
    proc = assay_cli("run", "suite.yaml", *options)
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(assay_cli("runs", "--json").stdout)[0]["id"])


def refused(assay_cli: RunCli, rid: str, flag: str, how: str, *given: str) -> None:
    proc = assay_cli("run", "--resume", rid, *given)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip() == (
        f"error: options: {flag}: cannot resume run {rid[:12]} with a different {flag}: it was "
        f"started {how}. {FIX}"
    )


def resumed(assay_cli: RunCli, rid: str, *given: str) -> str:
    proc = assay_cli("run", "--resume", rid, "--quiet", *given)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


def test_repeat_equal_to_the_suites_is_the_same_repeat(assay_cli: RunCli, tmp_path: Path) -> None:
    write_suite(tmp_path)  # no execution.repeat: 1
    rid = started(assay_cli)
    assert resumed(assay_cli, rid, "--repeat", "1").startswith("3 tests: 3 passed")
    how = "without --repeat, so with the suite's execution.repeat: 1"
    refused(assay_cli, rid, "--repeat", how, "--repeat", "2")


def test_repeat_is_compared_with_the_suites_execution_repeat(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    write_suite(tmp_path, "execution: {repeat: 2}\n")
    rid = started(assay_cli)
    assert resumed(assay_cli, rid, "--repeat", "2").startswith("6 tests: 6 passed")
    how = "without --repeat, so with the suite's execution.repeat: 2"
    refused(assay_cli, rid, "--repeat", how, "--repeat", "1")  # 1 is the default, not this run's


def test_a_repeat_given_at_the_start_wins_over_the_suites(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    write_suite(tmp_path, "execution: {repeat: 2}\n")
    rid = started(assay_cli, "--repeat", "3")
    assert resumed(assay_cli, rid, "--repeat", "3").startswith("9 tests: 9 passed")
    refused(assay_cli, rid, "--repeat", "with --repeat 3", "--repeat", "2")


@pytest.mark.parametrize(
    ("flag", "given"),
    [
        ("-k", ("-k", "alpha")),
        ("--tag", ("--tag", "fast")),
        ("--limit", ("--limit", "2")),
        ("--only-failed", ("--only-failed", "RUN")),
    ],
)
def test_a_selection_not_given_at_the_start_is_named_as_left_out(
    assay_cli: RunCli, tmp_path: Path, flag: str, given: tuple[str, str]
) -> None:
    write_suite(tmp_path)
    rid = started(assay_cli)
    option, value = given
    refused(assay_cli, rid, flag, f"without {flag}", option, rid if value == "RUN" else value)


def test_a_selection_given_at_the_start_is_named_as_typed(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    write_suite(tmp_path)
    rid = started(assay_cli, "-k", "alpha or beta", "--tag", "Slow", "--tag", "fast")
    assert resumed(assay_cli, rid, "-k", "alpha or beta").startswith("2 tests: 2 passed")
    # tags select as a set, without case: the same tags in another order and case
    assert resumed(assay_cli, rid, "--tag", "FAST", "--tag", "slow").startswith("2 tests")
    refused(assay_cli, rid, "-k", "with -k 'alpha or beta'", "-k", "alpha")
    refused(assay_cli, rid, "--tag", "with --tag Slow --tag fast", "--tag", "fast")


def test_an_interrupted_run_resumes_given_the_default_repeat(tmp_path: Path) -> None:
    """The audit's case: a run stopped by SIGTERM, resumed with ``--repeat 1``."""
    db = gated_suite(tmp_path)  # execution.repeat left out: 1
    first = start(tmp_path, "run", "suite.yaml", "--quiet")
    wait_for_results(db, first, at_least=EARLY)
    os.killpg(first.pid, signal.SIGTERM)
    _, err = first.communicate(timeout=60)
    assert first.returncode == 130, err
    (tmp_path / "open-the-gate").touch()
    again = start(tmp_path, "run", "--resume", run_id(db), "--repeat", "1", "--quiet")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, out + err
    assert f"{EARLY + LATE} tests: {EARLY + LATE} passed" in out
    assert stored(db) == EARLY + LATE


def test_k_is_compared_by_what_it_selects(assay_cli: RunCli, tmp_path: Path) -> None:
    """-k matches names without case, so its words compare without case (and without the
    spacing or quotes they were typed with); its operators are words only in lower case."""
    write_suite(tmp_path)
    rid = started(assay_cli, "-k", "Alpha or beta")
    assert resumed(assay_cli, rid, "-k", "ALPHA or 'Beta'").startswith("2 tests: 2 passed")
    refused(assay_cli, rid, "-k", "with -k 'Alpha or beta'", "-k", "alpha OR beta")
    refused(assay_cli, rid, "-k", "with -k 'Alpha or beta'", "-k", "alpha and beta")


def test_only_failed_is_compared_by_the_run_it_names(assay_cli: RunCli, tmp_path: Path) -> None:
    """A run id and a prefix of it name the same run: either may start and the other resume."""
    write_suite(tmp_path)
    (tmp_path / "echo.py").write_text("def respond(query, session_id):\n    return 'x'\n")
    assert assay_cli("run", "suite.yaml").returncode == 1
    failing = str(json.loads(assay_cli("runs", "--json").stdout)[0]["id"])
    write_suite(tmp_path)  # the agent mended: the re-runs pass
    for at_start, at_resume in [(failing[:12], failing), (failing, failing[:8])]:
        rid = started(assay_cli, "--only-failed", at_start)
        assert resumed(assay_cli, rid, "--only-failed", at_resume).startswith("3 tests: 3 passed")
    refused(assay_cli, rid, "--only-failed", f"with --only-failed {failing}", "--only-failed", rid)
