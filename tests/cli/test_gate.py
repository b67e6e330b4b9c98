"""``assay run --fail-under / --baseline --max-regressions`` through the real CLI: the gate
decides the exit code, at its boundaries; regressions count only tests that passed in the
baseline (a stored run or a JSON report); flaky tests are set apart; the job summary is
appended to ``$GITHUB_STEP_SUMMARY``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.store import open_store
from tests.cli.conftest import RunCli
from tests.cli.picking import output, run_id, write_suite


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path)


# 5 tests; "bags" raising makes baggage error: 4 of 5 pass, a pass rate of exactly 0.8
ONE_ERROR = {"RAISE": "bags"}


@pytest.mark.parametrize(
    ("rate", "code"),
    [("0.8", 0), ("80%", 0), ("0.79", 0), ("0.81", 1), ("80.5%", 1), ("1", 1), ("0", 0)],
)
def test_fail_under_at_its_boundary(assay_cli: RunCli, suite: Path, rate: str, code: int) -> None:
    proc = assay_cli("run", str(suite), "--fail-under", rate, env=ONE_ERROR)
    assert proc.returncode == code, output(proc)
    assert "pass rate 80.0% (4 of 5 tests)" in proc.stdout
    assert ("gate passed (exit 0)" if code == 0 else "gate failed (exit 1)") in proc.stdout


def test_without_a_gate_the_errored_test_fails_the_run(assay_cli: RunCli, suite: Path) -> None:
    """The run the boundary test gates: exit 1 without the gate, so the gate decided."""
    proc = assay_cli("run", str(suite), env=ONE_ERROR)
    assert proc.returncode == 1
    assert "gate" not in proc.stdout


@pytest.mark.parametrize("rate", ["1.5", "-0.1", "ninety", "150%", ""])
def test_a_bad_rate_is_bad_input_before_the_run(assay_cli: RunCli, suite: Path, rate: str) -> None:
    proc = assay_cli("run", str(suite), "--fail-under", rate)
    assert proc.returncode == 2
    assert f"--fail-under: give a rate from 0 to 1 (0.9) or a percentage (90%), got {rate!r}" in (
        proc.stderr
    )
    assert json.loads(assay_cli("runs", "--json").stdout) == []


@pytest.fixture
def baseline(assay_cli: RunCli, suite: Path, tmp_path: Path) -> dict[str, str]:
    """A run in which flight-change already fails: its id and its JSON report."""
    report = tmp_path / "main-report.json"
    proc = assay_cli("run", str(suite), "--out", str(report), env={"WRONG": "change"})
    assert proc.returncode == 1
    return {"id": run_id(assay_cli), "report": str(report)}


# now flight-change (failing in the baseline) and seat-window (passing there) fail, and
# baggage errors: two regressions, seat-window and baggage; flight-change is not one
NOW_BROKEN = {"WRONG": "change,seat", "RAISE": "bags"}


@pytest.mark.parametrize("given_as", ["id", "report"])
@pytest.mark.parametrize(("allowed", "code"), [(2, 0), (1, 1), (0, 1)])
def test_max_regressions_counts_only_baseline_passes(
    assay_cli: RunCli,
    suite: Path,
    baseline: dict[str, str],
    given_as: str,
    allowed: int,
    code: int,
) -> None:
    proc = assay_cli(
        "run",
        str(suite),
        "--baseline",
        baseline[given_as],
        "--max-regressions",
        str(allowed),
        env=NOW_BROKEN,
    )
    assert proc.returncode == code, output(proc)
    label = f"run {baseline['id'][:12]}"
    if given_as == "report":
        label = f"main-report.json ({label})"
    within = "within" if code == 0 else "more than"
    assert (
        f"2 tests that passed in {label} did not pass now ({within} --max-regressions {allowed})"
    ) in proc.stdout
    assert "regressed: seat-window, baggage" in proc.stdout


def test_baseline_alone_allows_no_regression(
    assay_cli: RunCli, suite: Path, baseline: dict[str, str]
) -> None:
    # flight-change failed in the baseline and still fails: not a regression, exit 0
    same = assay_cli("run", str(suite), "--baseline", baseline["id"], env={"WRONG": "change"})
    assert same.returncode == 0, output(same)
    assert "0 tests that passed in" in same.stdout
    worse = assay_cli("run", str(suite), "--baseline", baseline["id"], env={"WRONG": "seat"})
    assert worse.returncode == 1
    assert "1 test that passed in" in worse.stdout


def test_both_gates_must_hold(assay_cli: RunCli, suite: Path, baseline: dict[str, str]) -> None:
    args = ["run", str(suite), "--baseline", baseline["report"], "--max-regressions", "2"]
    # 2 of 5 pass: the regressions are within bounds, the pass rate is not
    low = assay_cli(*args, "--fail-under", "0.5", env=NOW_BROKEN)
    assert low.returncode == 1, output(low)
    assert "gate: ok 2 tests that passed" in low.stdout
    assert "gate: FAIL pass rate 40.0% (2 of 5 tests) is below --fail-under 50.0%" in low.stdout
    enough = assay_cli(*args, "--fail-under", "0.4", env=NOW_BROKEN)
    assert enough.returncode == 0, output(enough)


def test_flaky_tests_are_set_apart(assay_cli: RunCli, suite: Path, tmp_path: Path) -> None:
    base = assay_cli("run", str(suite), "--repeat", "2")
    assert base.returncode == 0, output(base)
    steady = run_id(assay_cli)
    # seat-window passes on one repetition and fails on the other: noise, not a regression
    proc = assay_cli(
        "run", str(suite), "--repeat", "2", "--baseline", steady, env={"FLAKY": "seat"}
    )
    assert proc.returncode == 0, output(proc)
    assert "0 tests that passed in" in proc.stdout
    assert "flaky in either run, not counted: seat-window" in proc.stdout
    # the same test failing on both repetitions is one regression, counted once
    broken = assay_cli(
        "run", str(suite), "--repeat", "2", "--baseline", steady, env={"WRONG": "seat"}
    )
    assert broken.returncode == 1
    assert "1 test that passed in" in broken.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "the baseline is not JSON: give a report written by --out X.json"),
        ('{"run": {"id": "x"}}', "results: required field is missing"),
        ('{"results": []}', "no run (nor HoloDeck's holodeck_version)"),
        (
            '{"run": {"id": "x"}, "results": [{"test_name": null, "passed": true}]}',
            "results[0] has no test_name",
        ),
        (
            '{"run": {"id": "x"}, "results": [{"test_name": "a", "status": "fine", '
            '"passed": true}]}',
            "results[0].status",
        ),
    ],
)
def test_a_bad_baseline_file_is_bad_input(
    assay_cli: RunCli, suite: Path, tmp_path: Path, content: str, message: str
) -> None:
    bad = tmp_path / "baseline.json"
    bad.write_text(content)
    proc = assay_cli("run", str(suite), "--baseline", str(bad))
    assert proc.returncode == 2, output(proc)
    assert str(bad) in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(assay_cli("runs", "--json").stdout) == []  # refused before the run


def test_bad_baseline_references(assay_cli: RunCli, suite: Path) -> None:
    missing = assay_cli("run", str(suite), "--baseline", "main.json")
    assert missing.returncode == 2
    assert "--baseline: no report file 'main.json'" in missing.stderr
    unknown = assay_cli("run", str(suite), "--baseline", "0123456789abcdef")
    assert unknown.returncode == 2
    assert "--baseline: no stored run '0123456789abcdef'" in unknown.stderr
    alone = assay_cli("run", str(suite), "--max-regressions", "1")
    assert alone.returncode == 2
    assert "--max-regressions: counts regressions against a baseline" in alone.stderr


def test_a_baseline_of_another_suite_is_refused_before_the_run(
    assay_cli: RunCli, suite: Path, tmp_path: Path
) -> None:
    """A baseline with none of this run's test names compares nothing: the gate would pass
    while every test fails. Refused (exit 2) before the run, as a -k of nothing is."""
    other = tmp_path / "other.yaml"
    other.write_text(
        "name: other\ntarget: {python: 'agent:respond'}\ntests:\n"
        "  - {name: unrelated, input: x, ground_truth: X}\n"
    )
    report = tmp_path / "other.json"
    made = assay_cli("run", str(other), "--out", str(report))
    assert made.returncode == 0, output(made)
    other_id = run_id(assay_cli)
    everything_fails = {"WRONG": "refund,late,change,seat,bags"}
    for given, label in ((other_id, f"run {other_id[:12]}"), (str(report), "other.json (run")):
        proc = assay_cli("run", str(suite), "--baseline", given, env=everything_fails)
        assert proc.returncode == 2, output(proc)
        assert f"--baseline: {label}" in proc.stderr
        assert (
            "shares no test name with this run's 5 tests (it has 1 other test), so the gate "
            "would compare nothing"
        ) in " ".join(proc.stderr.split())
        assert "gate passed" not in proc.stdout
        assert [r["id"] for r in json.loads(assay_cli("runs", "--json").stdout)] == [other_id]
    # one test in common is a comparison: the gate runs
    shared = assay_cli("run", str(suite), "-k", "baggage", "--baseline", str(report))
    assert shared.returncode == 2  # baggage is not in the other suite either
    other.write_text(other.read_text() + "  - {name: baggage, input: bags, ground_truth: BAGS}\n")
    assert assay_cli("run", str(other)).returncode == 0
    overlapping = assay_cli(
        "run", str(suite), "--baseline", run_id(assay_cli), env={"RAISE": "bags"}
    )
    assert overlapping.returncode == 1, output(overlapping)
    assert "1 test that passed in" in overlapping.stdout


@pytest.mark.parametrize("status", ["interrupted", "running", "failed"])
def test_a_baseline_run_that_did_not_complete_is_refused(
    assay_cli: RunCli, suite: Path, baseline: dict[str, str], tmp_path: Path, status: str
) -> None:
    """An interrupted (or killed: still "running") baseline holds some tests' results, or
    none: the tests without one would not be compared. Refused, naming its status."""
    with open_store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}") as store:
        store.set_status(baseline["id"], status)
    stored = assay_cli("run", str(suite), "--baseline", baseline["id"], env=NOW_BROKEN)
    assert stored.returncode == 2, output(stored)
    assert (
        f"--baseline: run {baseline['id'][:12]} is {status}, not completed (5 test results): "
        f"a gate compares with a finished run: finish it (assay run --resume "
        f"{baseline['id'][:12]}) or give a completed run"
    ) in " ".join(stored.stderr.split())
    data = json.loads(Path(baseline["report"]).read_text())
    data["run"]["status"] = status
    data["results"] = data["results"][:1]
    Path(baseline["report"]).write_text(json.dumps(data))
    reported = assay_cli("run", str(suite), "--baseline", baseline["report"], env=NOW_BROKEN)
    assert reported.returncode == 2, output(reported)
    assert (
        f"main-report.json (run {baseline['id'][:12]}) is {status}, not completed (1 test "
        "result)" in " ".join(reported.stderr.split())
    )
    assert len(json.loads(assay_cli("runs", "--json").stdout)) == 1  # the baseline only


def test_an_infrastructure_failure_keeps_exit_3(assay_cli: RunCli, suite: Path) -> None:
    """A gate does not turn "could not run" into a pass: the store cannot be created."""
    proc = assay_cli(
        "run", str(suite), "--fail-under", "0", "--store", "sqlite:////proc/nope/assay.db"
    )
    assert proc.returncode == 3, output(proc)


def test_the_job_summary_is_appended(assay_cli: RunCli, suite: Path, tmp_path: Path) -> None:
    summary = tmp_path / "step-summary.md"
    summary.write_text("## an earlier step\n")
    env = {"GITHUB_STEP_SUMMARY": str(summary), **ONE_ERROR}
    gated = assay_cli("run", str(suite), "--fail-under", "0.8", env=env)
    assert gated.returncode == 0, output(gated)
    plain = assay_cli("run", str(suite), env=env)
    assert plain.returncode == 1
    text = summary.read_text()
    assert text.startswith("## an earlier step\n### ✅ assay gate passed\n")
    assert "- ✅ pass rate 80.0% (4 of 5 tests) is at or above --fail-under 80.0%" in text
    assert text.count("## ❌ assay: picking") == 2  # the Markdown report, once per run
    assert text.count("assay gate") == 1  # the ungated run adds its report only
    assert "`baggage`" in text or "baggage" in text


def test_strict_with_a_passing_gate_says_the_exit_it_ends_with(
    assay_cli: RunCli, suite: Path
) -> None:
    """``--strict`` exits 1 when a test was not run, gate or no gate (docs/ci.md); the
    verdict line says so instead of "gate passed (exit 0)" before an exit 1."""
    text = suite.read_text() + "  - name: nothing-checked\n    input: hello\n"
    suite.write_text(text)  # no ground truth: its equality does not run
    summary = {"GITHUB_STEP_SUMMARY": str(suite.parent / "summary.md")}
    proc = assay_cli("run", str(suite), "--fail-under", "0.5", "--strict", env=summary)
    assert proc.returncode == 1, output(proc)
    assert "gate passed, but --strict: 1 test not run (exit 1)" in proc.stdout
    assert "(exit 0)" not in proc.stdout
    summary = (suite.parent / "summary.md").read_text()  # the CI job summary says it too
    assert summary.startswith("### ❌ assay gate passed, but --strict: 1 test not run\n")
    relaxed = assay_cli("run", str(suite), "--fail-under", "0.5")
    assert relaxed.returncode == 0 and "gate passed (exit 0)" in relaxed.stdout
