"""Reporters: render a Report as JSON, Markdown, JUnit XML or HTML."""

from assay.reporters.html import render_html
from assay.reporters.json_report import render_json
from assay.reporters.junit import render_junit
from assay.reporters.markdown import render_markdown
from assay.reporters.registry import FORMATS, format_for_path, render, write_report

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
