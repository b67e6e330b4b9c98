"""``assay schema NAME``: print a JSON Schema of a suite or a result record."""

from __future__ import annotations

import json

import typer

from assay.cli.app import app, user_errors
from assay.errors import ConfigError, Problem
from assay.results.schema import SCHEMA_MODELS, json_schema


@app.command()
@user_errors
def schema(
    name: str = typer.Argument(..., help=f"one of: {', '.join(SCHEMA_MODELS)}"),
) -> None:
    """Print the JSON Schema of a suite file or a result record."""
    if name not in SCHEMA_MODELS:
        raise ConfigError(
            [
                Problem(
                    "options",
                    "NAME",
                    f"unknown schema {name!r}; expected one of {', '.join(SCHEMA_MODELS)}",
                )
            ]
        )
    typer.echo(json.dumps(json_schema(name), indent=2))
