"""``assay report RUN_ID``: render a stored run as JSON, Markdown, JUnit XML or HTML."""

from __future__ import annotations

from pathlib import Path

import typer

from assay.cli._out import cannot_write, check_out
from assay.cli._terminal import for_stdout, markup_safe
from assay.cli.app import app, err_console, user_errors
from assay.cli.runs import store_option

FORMAT_NAMES = "json|markdown|junit|html"  # assay.reporters.FORMATS, without importing Jinja2


@app.command()
@user_errors
def report(
    run_id: str = typer.Argument(..., help="a run id, or a unique prefix of 6+ characters"),
    fmt: str | None = typer.Option(
        None, "--format", help=f"{FORMAT_NAMES} (default: from --out's extension, or json)"
    ),
    out: Path | None = typer.Option(None, "--out", help="write here instead of standard output"),
    store: str | None = store_option(),
) -> None:
    """Render a stored run (`assay runs` lists their ids)."""
    if out is not None:  # checked before the store is opened and the report rendered
        check_out(out)
    from assay.reporters import format_for_path, render, write_report
    from assay.store import open_store

    chosen = (
        format_for_path(out, fmt) if out is not None else format_for_path(Path("-"), fmt or "json")
    )
    with open_store(store) as opened:
        stored = opened.load_report(run_id)
    if out is None:
        typer.echo(for_stdout(render(stored, chosen)), nl=False)
        return
    try:
        write_report(stored, out, chosen)
    except OSError as exc:  # refused on writing (no permission, a full disk): bad --out
        raise cannot_write(out, exc.strerror or str(exc)) from None
    err_console.print(f"wrote {markup_safe(str(out))}")
