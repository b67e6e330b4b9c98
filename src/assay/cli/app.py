"""The typer application every command module registers on, and the error boundary that
turns assay's exceptions into one clear message and an exit code (SPEC §1)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

from assay.errors import AssayError
from assay.secrets import REDACTOR

app = typer.Typer(
    name="assay",
    help="Test LLM agents and chatbots turn by turn.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

err_console = Console(stderr=True, highlight=False, soft_wrap=True)
out_console = Console(highlight=False, soft_wrap=True)

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Report an AssayError as its message (no traceback) and exit with its code."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except AssayError as exc:
            err_console.print(f"[bold red]error:[/] {escape(REDACTOR(str(exc)))}")
            raise typer.Exit(exc.exit_code) from None

    return wrapper
