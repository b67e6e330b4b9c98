"""The ``assay`` command line: one module per command, each registered on ``app`` and
imported only when its command is run or listed (``app.COMMAND_MODULES``)."""

from assay.cli._gc import collector_paused, freeze_imports

with collector_paused():
    from assay.cli.app import app


def main() -> None:
    freeze_imports()
    app()


__all__ = ["app", "main"]
