"""The ``assay`` command line: one module per command, each registered on ``app`` and
imported only when its command is run or listed (``app.COMMAND_MODULES``)."""

from assay.cli.app import app


def main() -> None:
    app()


__all__ = ["app", "main"]
