"""Report formats by name (a renderer each), and the format a file extension implies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay._atomic import write_atomically
from assay.errors import ConfigError, Problem
from assay.registry import Registry, UnknownName
from assay.reporters.html import render_html
from assay.reporters.json_report import render_json
from assay.reporters.junit import render_junit
from assay.reporters.markdown import render_markdown
from assay.results.models import Report

Renderer = Callable[[Report], str]

FORMATS: Registry[Renderer] = Registry("report format")
FORMATS.register("json", render_json)
FORMATS.register("markdown", render_markdown)
FORMATS.register("junit", render_junit)
FORMATS.register("html", render_html)
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
    try:
        FORMATS.get(fmt)
    except UnknownName as exc:
        raise ConfigError([Problem("options", "--format", str(exc))]) from None
    named = EXTENSIONS.get(path.suffix.lower())
    if named is not None and named != fmt:  # report.json holding HTML: a reader is misled
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--format",
                    f"--out {str(path)!r} names a {named} report by its extension, but its "
                    f"--format is {fmt}: drop the --format, or give the --out an extension "
                    f"{_extensions_of(fmt)} (or one that names no format)",
                )
            ]
        )
    return fmt


def _extensions_of(fmt: str) -> str:
    return " or ".join(ext for ext, name in EXTENSIONS.items() if name == fmt) or "of its own"


def render(report: Report, fmt: str) -> str:
    return FORMATS.get(fmt)(report)


def write_report(report: Report, path: Path, fmt: str) -> None:
    """Write the report to ``path``; a report already there is replaced only by a whole one
    (``write_atomically``)."""
    write_atomically(path, render(report, fmt))
