"""Reporters: render a Report as JSON, Markdown, JUnit XML or HTML.

Each name below is imported when first used: ``assay run`` without ``--out`` reads
``assay.reporters.view`` (the terminal summary) and never pays for the renderers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names

if TYPE_CHECKING:
    from assay.reporters.html import render_html
    from assay.reporters.json_report import render_json
    from assay.reporters.junit import render_junit
    from assay.reporters.markdown import render_markdown
    from assay.reporters.registry import FORMATS, format_for_path, render, write_report

_LAZY = {
    "render_html": "assay.reporters.html",
    "render_json": "assay.reporters.json_report",
    "render_junit": "assay.reporters.junit",
    "render_markdown": "assay.reporters.markdown",
    "FORMATS": "assay.reporters.registry",
    "format_for_path": "assay.reporters.registry",
    "render": "assay.reporters.registry",
    "write_report": "assay.reporters.registry",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


__all__ = [
    "FORMATS",
    "format_for_path",
    "render",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "write_report",
]
