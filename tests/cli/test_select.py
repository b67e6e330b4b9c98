"""``assay run -k / --tag / --only-failed`` through the real CLI: which tests run, a
selection of nothing refused (exit 2, nothing stored), and a re-run of the failures that
``assay diff`` compares with the run it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.cli.picking import NAMES, output, ran, run_id, write_suite


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    return write_suite(tmp_path)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        # case-insensitive, as pytest's -k: "refund" finds Refund-policy too
        ("refund", ["Refund-policy", "refund-when-late"]),
        ("refund and not late", ["Refund-policy"]),
        ("seat or bag", ["seat-window", "baggage"]),
        # not binds tighter than and, and than or: (not refund) and (not change)
        ("not refund and not change", ["seat-window", "baggage"]),
        ("(flight or seat) and not change", ["seat-window"]),
        ("REFUND-POLICY or -window", ["Refund-policy", "seat-window"]),
        ("not not seat", ["seat-window"]),
        ("'when-late' or \"Bag\"", ["refund-when-late", "baggage"]),  # quoted names
    ],
)
def test_k_selects_by_name(
    assay_cli: RunCli, suite: Path, tmp_path: Path, expression: str, expected: list[str]
) -> None:
    out = tmp_path / "report.json"
    proc = assay_cli("run", str(suite), "-k", expression, "--out", str(out))
    assert proc.returncode == 0, output(proc)
    assert ran(out) == expected


def test_tag_runs_tests_with_any_of_the_tags(
    assay_cli: RunCli, suite: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report.json"
    proc = assay_cli("run", str(suite), "--tag", "slow", "--tag", "travel", "--out", str(out))
    assert proc.returncode == 0, output(proc)
    # seat-window is tagged "Travel": tags compare without case
    assert ran(out) == ["refund-when-late", "flight-change", "seat-window"]
    both = assay_cli("run", str(suite), "--tag", "billing", "-k", "not late", "--out", str(out))
    assert both.returncode == 0, output(both)
    assert ran(out) == ["Refund-policy"]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["-k", "refund and seat"], "-k 'refund and seat'"),
        (["--tag", "nope"], "--tag 'nope'"),
        (["-k", "seat", "--tag", "billing"], "-k 'seat' --tag 'billing'"),
    ],
)
def test_a_selection_of_nothing_is_refused(
    assay_cli: RunCli, suite: Path, args: list[str], named: str
) -> None:
    proc = assay_cli("run", str(suite), *args)
    assert proc.returncode == 2, output(proc)
    assert f"no test matches {named} (of 5 tests)" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert json.loads(assay_cli("runs", "--json").stdout) == []  # no empty run stored


@pytest.mark.parametrize(
    ("expression", "where"),
    [
        ("refund and", "expected a name, 'not' or '(' at the end (column 11)"),
        ("(seat or bags", "expected ')' at the end (column 14)"),
        ("seat bags", "expected 'and', 'or' or the end at column 6, got 'bags'"),
        ("or seat", "expected a name, 'not' or '(' at column 1, got 'or'"),
        ('"seat', "an unclosed quote at column 1"),
    ],
)
def test_an_unreadable_k_names_where(
    assay_cli: RunCli, suite: Path, expression: str, where: str
) -> None:
    proc = assay_cli("run", str(suite), "-k", expression)
    assert proc.returncode == 2
    assert f"-k: cannot read {expression!r}: {where}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_only_failed_reruns_the_failures_as_a_run_diff_compares(
    assay_cli: RunCli, suite: Path, tmp_path: Path
) -> None:
    broken = {"WRONG": "change", "RAISE": "bags"}
    first = assay_cli("run", str(suite), env=broken)
    assert first.returncode == 1
    assert "5 tests: 3 passed, 1 failed, 1 errored, 0 not run" in first.stdout
    failed_run = run_id(assay_cli)

    # the agent fixed; no suite given: the run's own suite is re-run, only its failures
    out = tmp_path / "rerun.json"
    again = assay_cli("run", "--only-failed", failed_run[:8], "--out", str(out))
    assert again.returncode == 0, output(again)
    assert ran(out) == ["flight-change", "baggage"]
    rerun = run_id(assay_cli)
    assert rerun != failed_run

    diff = assay_cli("diff", failed_run, rerun, "--json")
    assert diff.returncode == 0, output(diff)
    compared = json.loads(diff.stdout)
    assert [c["test_name"] for c in compared["improvements"]] == ["flight-change", "baggage"]
    assert [c["status_a"] for c in compared["improvements"]] == ["failed", "error"]
    assert compared["regressions"] == []
    removed = [t["test_name"] for t in compared["removed_tests"]]
    assert removed == [n for n in NAMES if n not in ("flight-change", "baggage")]


def test_only_failed_with_a_suite_and_k(assay_cli: RunCli, suite: Path, tmp_path: Path) -> None:
    assay_cli("run", str(suite), env={"WRONG": "change,seat,late"})
    out = tmp_path / "rerun.json"
    proc = assay_cli(
        "run", str(suite), "--only-failed", run_id(assay_cli), "-k", "not late", "--out", str(out)
    )
    assert proc.returncode == 0, output(proc)
    assert ran(out) == ["flight-change", "seat-window"]


def test_only_failed_refuses_a_bad_run_and_a_run_with_no_failures(
    assay_cli: RunCli, suite: Path
) -> None:
    unknown = assay_cli("run", str(suite), "--only-failed", "0123456789abcdef")
    assert unknown.returncode == 2
    assert "--only-failed: no stored run '0123456789abcdef'" in unknown.stderr
    assert "Traceback" not in unknown.stderr

    green = assay_cli("run", str(suite))
    assert green.returncode == 0
    passed_run = run_id(assay_cli)
    nothing = assay_cli("run", "--only-failed", passed_run)
    assert nothing.returncode == 2
    assert f"run {passed_run[:12]} has no failed or errored test" in nothing.stderr
