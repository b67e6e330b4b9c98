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


@pytest.mark.parametrize(
    ("name", "fmt", "named", "instead"),
    [
        ("r.json", "html", "json", ".html or .htm"),
        ("junit.xml", "markdown", "junit", ".md or .markdown"),
        ("r.MD", "junit", "markdown", ".xml"),
    ],
)
def test_a_format_the_extension_contradicts_is_refused(
    name: str, fmt: str, named: str, instead: str
) -> None:
    # it was written silently: report.json holding HTML, misleading whatever reads it
    with pytest.raises(ConfigError) as info:
        format_for_path(Path(name), fmt)
    assert [str(p) for p in info.value.problems] == [
        f"options: --format: --out {name!r} names a {named} report by its extension, but its "
        f"--format is {fmt}: drop the --format, or give the --out an extension {instead} (or "
        "one that names no format)"
    ]


def test_a_format_the_extension_agrees_with_is_taken() -> None:
    assert format_for_path(Path("r.htm"), "html") == "html"
    assert format_for_path(Path("r.markdown"), "markdown") == "markdown"


def test_write_report_in_every_format(report: Report, tmp_path: Path) -> None:
    for fmt in FORMATS:
        path = tmp_path / "out" / f"report.{fmt}"
        write_report(report, path, fmt)
        assert path.read_text(encoding="utf-8") == render(report, fmt)
        assert path.read_text(encoding="utf-8").endswith("\n")
