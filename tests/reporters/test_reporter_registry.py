"""Every format is registered, picked by name or by the file's extension."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import ConfigError
from assay.reporters import FORMATS, format_for_path, render, write_report
from assay.results import Report


def test_four_formats() -> None:
    assert set(FORMATS) == {"json", "markdown", "junit", "html"}


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("r.json", "json"),
        ("r.md", "markdown"),
        ("r.markdown", "markdown"),
        ("r.xml", "junit"),
        ("r.html", "html"),
        ("R.HTM", "html"),
    ],
)
def test_extension_implies_the_format(name: str, fmt: str) -> None:
    assert format_for_path(Path(name)) == fmt


def test_explicit_format_wins_and_bad_ones_are_named() -> None:
    assert format_for_path(Path("summary.txt"), "markdown") == "markdown"
    with pytest.raises(ConfigError, match="--format"):
        format_for_path(Path("r.txt"))
    with pytest.raises(ConfigError, match="'pdf'"):
        format_for_path(Path("r.md"), "pdf")


def test_write_report_in_every_format(report: Report, tmp_path: Path) -> None:
    for fmt in FORMATS:
        path = tmp_path / "out" / f"report.{fmt}"
        write_report(report, path, fmt)
        assert path.read_text(encoding="utf-8") == render(report, fmt)
        assert path.read_text(encoding="utf-8").endswith("\n")
