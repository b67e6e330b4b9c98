"""``assay import holodeck|rhesis|promptfoo FILE -o SUITE.yaml``: another tool's tests as an
assay suite, and what could not be mapped, item by item.

Exit 0 when tests were imported (whatever could not be mapped is listed on standard error),
2 when the file cannot be read or nothing in it could be mapped.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from assay._atomic import write_atomically
from assay.cli._out import cannot_write, check_out
from assay.cli._terminal import markup_safe
from assay.cli.app import app, err_console, user_errors
from assay.errors import ConfigError, Problem

if TYPE_CHECKING:
    from assay.importers import Unmapped


class Kind(StrEnum):
    holodeck = "holodeck"
    rhesis = "rhesis"
    promptfoo = "promptfoo"


def _report(title: str, entries: list[Unmapped]) -> None:
    if not entries:
        return
    err_console.print(f"[yellow]{title} ({len(entries)}):[/]")
    for entry in entries:
        line = f"  {entry.item}: {entry.what}: {entry.why}"
        err_console.print(markup_safe(line))


@app.command("import")
@user_errors
def import_(
    kind: Kind = typer.Argument(..., help="the tool the tests come from"),
    file: Path = typer.Argument(
        ..., help="agent.yaml (holodeck), a test set (rhesis), promptfooconfig.yaml (promptfoo)"
    ),
    out: Path | None = typer.Option(None, "-o", "--out", help="the suite to write (else stdout)"),
    force: bool = typer.Option(False, "--force", help="overwrite --out if it exists"),
) -> None:
    """Convert another tool's tests into an assay suite, listing what could not be mapped."""
    if out is not None:  # checked before the file is read
        check_out(out, "the suite")
        if out.exists() and not force:
            message = f"{str(out)!r} exists; pass --force to overwrite it"
            raise ConfigError([Problem("options", "--out", message)])
    from assay.importers import IMPORTERS, suite_yaml

    imported = IMPORTERS[kind.value](file).checked()
    _report("not mapped", imported.unmapped)
    _report("mapped approximately", imported.approximate)
    if not imported.tests:
        raise ConfigError(
            [Problem(str(file), "", "nothing in it could be mapped to an assay test")]
        )
    text = suite_yaml(imported)
    if out is None:
        typer.echo(text, nl=False)
    else:
        try:
            write_atomically(out, text)  # as --out of assay run and report
        except OSError as exc:
            raise cannot_write(out, exc.strerror or str(exc), "the suite") from None
    where = "standard output" if out is None else str(out)
    count = len(imported.tests)
    err_console.print(
        f"imported {count} {'test' if count == 1 else 'tests'} from {markup_safe(str(file))} into "
        f"{markup_safe(where)}"
    )
