"""The ``assay`` command line: one module per command, all registered on ``app``."""

from assay.cli import (  # noqa: F401  (registers the commands)
    agent,
    demo,
    diff,
    importer,
    init,
    judge,
    report,
    run,
    runs,
    schema,
    serve,
    validate,
)
from assay.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
