"""``assay validate FILE [--json]``: check a dataset file and print the shape a run will use
(SPEC §3). Exit 0 when the file is usable, 2 when it is not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from assay.cli._terminal import visible
from assay.cli.app import app, out_console, user_errors
from assay.errors import DatasetError

if TYPE_CHECKING:
    from assay.datasets import ShapeReport


@app.command()
@user_errors
def validate(
    file: Annotated[Path, typer.Argument(help="A dataset file: .csv, .xlsx or .jsonl.")],
    json_output: Annotated[
        bool, typer.Option("--json", help="Print the result as one JSON object, errors included.")
    ] = False,
) -> None:
    """Check a dataset file and print its shape: MULTI-TURN or SINGLE-TURN, rows,
    conversations, the columns used, and warnings."""
    from assay.datasets import validate_dataset  # imported when a file is checked

    if not json_output:
        _print_text(validate_dataset(file))
        return
    try:
        report = validate_dataset(file)
    except DatasetError as exc:
        _print_json(error_dict(str(file), exc))
        raise typer.Exit(exc.exit_code) from None
    _print_json(report.to_dict())


def error_dict(source: str, exc: DatasetError) -> dict[str, Any]:
    """The ``--json`` object for a file that cannot be used."""
    return {
        "file": source,
        "shape": None,
        "kind": None,
        "rows": None,
        "conversations": None,
        "columns": {},
        "ignored_columns": [],
        "warnings": [],
        "errors": [
            {"source": p.source, "path": p.path, "message": p.message, "text": str(p)}
            for p in exc.problems
        ],
    }


def _print_text(report: ShapeReport) -> None:
    lines = [report.shape_line(), report.columns_line()]
    if report.ignored_columns:
        lines.append("ignored columns: " + ", ".join(report.ignored_columns))
    lines += [f"warning: {warning}" for warning in report.warnings]
    for line in lines:
        out_console.print(visible(line), markup=False, highlight=False, emoji=False)


def _print_json(data: dict[str, Any]) -> None:
    out_console.print(
        visible(json.dumps(data, ensure_ascii=False)), markup=False, highlight=False, emoji=False
    )
