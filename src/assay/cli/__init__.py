"""The ``assay`` command line: one module per command, all registered on ``app``."""

from assay.cli import run, schema, validate  # noqa: F401  (registers the commands)
from assay.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
