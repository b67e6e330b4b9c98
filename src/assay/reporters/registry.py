"""Report formats by name, and the format a file extension implies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.errors import ConfigError, Problem
from assay.reporters.html import render_html
from assay.reporters.json_report import render_json
from assay.reporters.junit import render_junit
from assay.reporters.markdown import render_markdown
from assay.results.models import Report

Renderer = Callable[[Report], str]

FORMATS: dict[str, Renderer] = {
    "json": render_json,
    "markdown": render_markdown,
    "junit": render_junit,
    "html": render_html,
}
EXTENSIONS = {
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".xml": "junit",
    ".html": "html",
    ".htm": "html",
}


def format_for_path(path: Path, explicit: str | None = None) -> str:
    fmt = explicit or EXTENSIONS.get(path.suffix.lower())
    if fmt is None:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--out",
                    (
                        f"cannot tell the report format of {str(path)!r} from its extension; "
                        f"pass --format ({', '.join(sorted(FORMATS))})"
                    ),
                )
            ]
        )
    if fmt not in FORMATS:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--format",
                    (
                        f"unknown report format {fmt!r}; "
                        f"expected one of {', '.join(sorted(FORMATS))}"
                    ),
                )
            ]
        )
    return fmt


def render(report: Report, fmt: str) -> str:
    return FORMATS[fmt](report)


def write_report(report: Report, path: Path, fmt: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(report, fmt), encoding="utf-8")
