"""``assay runs``: list the stored runs, latest first."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.markup import escape

from assay._defaults import DEFAULT_STORE_URL, STORE_URL_ENV
from assay.cli._terminal import markup_safe
from assay.cli.app import app, out_console, user_errors

ID_SHOWN = 12  # characters of a run id in the table; `--json` has the whole id
_STATUS_STYLE = {"completed": "green", "running": "cyan", "interrupted": "yellow", "failed": "red"}


def store_option() -> Any:
    """The ``--store URL`` option every stored-run command takes."""
    return typer.Option(
        None,
        "--store",
        help=f"the result store (default: ${STORE_URL_ENV}, else {DEFAULT_STORE_URL})",
    )


@app.command()
@user_errors
def runs(
    as_json: bool = typer.Option(False, "--json", help="print a JSON array"),
    store: str | None = store_option(),
    limit: int = typer.Option(50, "--limit", min=1, help="show at most this many runs"),
) -> None:
    """List the stored runs, latest first."""
    from rich.table import Table

    from assay.store import open_store

    with open_store(store) as opened:
        records = opened.list_runs(limit)
        where = opened.url
    if as_json:
        typer.echo(json.dumps([r.to_json() for r in records], indent=2))
        return
    if not records:
        out_console.print(f"no runs stored in {escape(where)} yet; `assay run SUITE.yaml` adds one")
        return
    table = Table(
        title=f"runs in {escape(where)}",
        title_justify="left",
        caption="`assay report ID` renders a run; `assay diff ID_A ID_B` compares two",
        caption_justify="left",
    )
    table.add_column("id", no_wrap=True)  # a prefix: report and diff accept one
    table.add_column("suite", overflow="fold")
    table.add_column("status", no_wrap=True)
    table.add_column("started (UTC)", no_wrap=True)
    for column in ("tests", "pass", "fail"):
        table.add_column(column, justify="right")
    for r in records:
        style = _STATUS_STYLE.get(r.status, "")
        table.add_row(
            r.id[:ID_SHOWN],
            markup_safe(r.suite_name),
            f"[{style}]{r.status}[/]",
            r.started_at[:16].replace("T", " "),
            str(r.total),
            str(r.passed),
            str(r.failed),
        )
    out_console.print(table)
