"""The JSON report: the Report model, serialised as is (SPEC §5)."""

from __future__ import annotations

from assay.results.models import Report


def render_json(report: Report) -> str:
    return report.model_dump_json(indent=2) + "\n"
