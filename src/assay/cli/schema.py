"""``assay schema NAME``: print a JSON Schema of a suite or a result record."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from assay.cli._terminal import markup_safe
from assay.cli.app import app, err_console, user_errors
from assay.errors import ConfigError, Problem

# the names of assay.results.schema.SCHEMA_MODELS, without importing every model for --help
SCHEMA_NAMES = ("suite", "test-result", "turn-result", "report", "trace")


@app.command()
@user_errors
def schema(
    name: str = typer.Argument(..., help=f"one of: {', '.join(SCHEMA_NAMES)}"),
    plugin: list[str] = typer.Option(
        [],
        "--plugin",
        help="a module of your own that registers metrics (a suite's plugins: entry), "
        "imported from the current folder, so the suite schema knows them; repeatable",
    ),
) -> None:
    """Print the JSON Schema of a suite file or a result record."""
    from assay.results.schema import json_schema

    if name not in SCHEMA_NAMES:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "NAME",
                    f"unknown schema {name!r}; expected one of {', '.join(SCHEMA_NAMES)}",
                )
            ]
        )
    if plugin:
        from assay.plugins import load_plugins

        problems = load_plugins(plugin, "options", (Path.cwd(),))
        if problems:
            raise ConfigError([Problem(p.source, "--plugin", p.message) for p in problems])
    printed = json_schema(name)
    if name == "suite":
        from assay.registry import plugin_failures

        for failure in plugin_failures():  # the schema lacks their metrics: say why
            err_console.print(f"[yellow]warning:[/] {markup_safe(failure)}")
    typer.echo(json.dumps(printed, indent=2))
