"""A command that fails, or only reads, leaves no store and no folder behind; a run id given
too short says so."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import RunCli


def test_an_invalid_suite_creates_no_store(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text("name: s\ntests:\n  - name: a\n    inptu: q\n")
    proc = assay_cli("run", "suite.yaml")
    assert proc.returncode == 2, proc.stderr
    assert "inptu" in proc.stderr
    assert not (tmp_path / ".assay").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["suite.yaml"]


def test_listing_a_mistyped_store_creates_nothing(assay_cli: RunCli, tmp_path: Path) -> None:
    typo = tmp_path / "typo" / "x.db"
    proc = assay_cli("runs", "--store", f"sqlite:///{typo}")
    assert proc.returncode == 0, proc.stderr
    assert "no runs stored" in proc.stdout
    assert not (tmp_path / "typo").exists()
    report = assay_cli("report", "0123456789", "--store", f"sqlite:///{typo}")
    assert report.returncode == 2 and "no stored run '0123456789'" in report.stderr
    assert not (tmp_path / "typo").exists()


def test_a_run_id_too_short_says_so(assay_cli: RunCli, tmp_path: Path) -> None:
    """(An ambiguous prefix: tests/store/test_store_api.py, where ids can be chosen.)"""
    (tmp_path / "echo.py").write_text("def respond(q, s):\n    return q\n")
    (tmp_path / "lab.csv").write_text("Question\nhello\n")
    store = f"sqlite:///{tmp_path / 'runs.db'}"
    ran = assay_cli("run", "--dataset", "lab.csv", "--target", "echo:respond", "--store", store)
    assert ran.returncode == 0, ran.stderr
    short = assay_cli("report", "ab", "--store", store)
    assert short.returncode == 2
    assert "'ab' is too short to name a run: give at least 6 characters" in short.stderr
