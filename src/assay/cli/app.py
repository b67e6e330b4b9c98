"""The typer application every command module registers on, and the error boundary that
turns assay's exceptions into one clear message and an exit code (SPEC §1)."""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console

from assay._isolation import describe
from assay.cli._terminal import markup_safe
from assay.errors import AssayError
from assay.secrets import REDACTOR
from assay.version import __version__

app = typer.Typer(
    name="assay",
    help="Test LLM agents and chatbots turn by turn.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(given: bool) -> None:
    if given:
        typer.echo(f"assay {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: bool = typer.Option(
        False,
        "--version",
        callback=_print_version,
        is_eager=True,
        help="print assay's version and exit",
    ),
) -> None:
    """Test LLM agents and chatbots turn by turn."""


err_console = Console(stderr=True, highlight=False, soft_wrap=True)
out_console = Console(highlight=False, soft_wrap=True)

EXIT_COULD_NOT_RUN = 3
EXIT_INTERRUPTED = 130

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Report an AssayError as its message (no traceback) and exit with its code; anything
    else that escapes a command is assay failing to run: one line and exit 3, never 1 (which
    says that tests failed). ``ASSAY_DEBUG=1`` shows the traceback of such a failure."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except AssayError as exc:
            err_console.print(f"[bold red]error:[/] {markup_safe(REDACTOR(str(exc)))}")
            raise typer.Exit(exc.exit_code) from None
        except (typer.Exit, typer.Abort, typer.exceptions.TyperException):
            raise  # typer's own exits and usage errors
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        except Exception as exc:
            if os.environ.get("ASSAY_DEBUG"):
                err_console.print(REDACTOR(traceback.format_exc()), markup=False)
            message = " ".join(REDACTOR(describe(exc)).split())  # one line
            err_console.print(
                f"[bold red]error:[/] assay could not run: {markup_safe(message)} "
                "(a bug in assay: please report it; ASSAY_DEBUG=1 shows where)"
            )
            raise typer.Exit(EXIT_COULD_NOT_RUN) from None

    return wrapper
