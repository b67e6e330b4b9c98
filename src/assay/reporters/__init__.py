"""Reporters: render a Report as JSON, Markdown, JUnit XML or HTML."""

from assay.reporters.registry import FORMATS, format_for_path, render, write_report

__all__ = ["FORMATS", "format_for_path", "render", "write_report"]
