"""The typer application every command module registers on, and the error boundary that
turns assay's exceptions into one clear message and an exit code (SPEC §1)."""

from __future__ import annotations

import functools
import importlib
import os
import traceback
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, get_origin

import typer
import typer.core
import typer.main
from rich.console import Console

from assay.cli._gc import collector_paused
from assay.cli._terminal import markup_safe
from assay.errors import AssayError
from assay.secrets import REDACTOR
from assay.version import __version__

try:  # typer's coercion of a parameter's value (typer 0.2x): see _CoercedWhenGiven
    from typer._coercion import build_runtime_param as _build_runtime_param
except ImportError:  # pragma: no cover - another typer: its own coercion, unchanged
    _build_runtime_param = None  # type: ignore[assignment]

# each command and the module that registers it on ``app``: imported when the command runs
# or is listed, so ``assay validate`` never pays for the store, aiohttp or the dashboard
COMMAND_MODULES = {
    "run": "assay.cli.run",
    "validate": "assay.cli.validate",
    "report": "assay.cli.report",
    "runs": "assay.cli.runs",
    "diff": "assay.cli.diff",
    "serve": "assay.cli.serve",
    "init": "assay.cli.init",
    "import": "assay.cli.importer",
    "schema": "assay.cli.schema",
    "demo": "assay.cli.demo",
    "agent": "assay.cli.agent",
    "judge": "assay.cli.judge",
}
# each command's help as its module registers it (its function's docstring; a test checks
# they agree): what ``assay --help`` lists, without importing any command's module
COMMAND_HELP = {
    "run": "Run a suite and report per-turn results.",
    "validate": "Check a dataset file and print its shape: MULTI-TURN or SINGLE-TURN, rows,\n"
    "conversations, the columns used, and warnings.",
    "report": "Render a stored run (`assay runs` lists their ids).",
    "runs": "List the stored runs, latest first.",
    "diff": "Compare two stored runs test by test and metric by metric, with a 95% interval "
    "on the\npass-rate and mean-score changes; exit 1 on a regression.",
    "serve": "Serve the web dashboard: upload and validate datasets, start runs and watch "
    "them,\nread every turn, compare runs. Ctrl-C stops it; the runs it started are "
    "interrupted,\nkeep what they finished, and can be resumed.",
    "init": "Write a starter suite, agent stub, multi-turn CSV and CI workflow that pass at once.",
    "import": "Convert another tool's tests into an assay suite, listing what could not be mapped.",
    "schema": "Print the JSON Schema of a suite file or a result record.",
    "demo": "Test the built-in travel agent with the example suite (no API key needed).",
    "agent": "Serve a built-in agent to try assay against.",
    "judge": "Check judge metrics against human labels.",
}


class LazyCommands(typer.core.TyperGroup):
    """The top-level group: it knows its commands by name (``COMMAND_MODULES``) and
    imports a command's module only when that command is looked up to run (or to show
    its own help). Listing them in the group's help imports none: each is listed from
    ``COMMAND_HELP``."""

    _listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMAND_MODULES)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False

    def get_help_option(self, ctx: Any) -> Any:
        option: Any = super().get_help_option(ctx)
        if option is not None and getattr(option, "_runtime_param", False) is None:
            option._runtime_param = _WHEN_GIVEN  # built only if --help has a value
        return option

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            if self._listing and cmd_name in COMMAND_HELP:
                # only its name and help are read: a stand-in, not kept
                return typer.core.TyperCommand(name=cmd_name, help=COMMAND_HELP[cmd_name])
            with collector_paused():
                importlib.import_module(COMMAND_MODULES[cmd_name])
                self.commands.update(_registered(cmd_name))
                if _build_runtime_param is not None:
                    # what typer's coercion of a value given imports (pydantic's adapters):
                    # imported here, with the command's modules, so that it is frozen with them
                    importlib.import_module("typer._adapters")
        return self.commands.get(cmd_name)


def _registered(name: str) -> dict[str, Any]:
    """The click command (or group) registered on ``app`` under ``name``, built as typer
    builds the ones it knows at start-up."""
    built: dict[str, Any] = {}
    for info in app.registered_commands:
        command_name = info.name or typer.main.get_command_name(info.callback.__name__)  # type: ignore[union-attr]
        if command_name == name:
            built[name] = typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    for group in app.registered_groups:
        if group.name == name:
            built[name] = typer.main.get_group_from_info(
                group,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
                suggest_commands=app.suggest_commands,
            )
    for command in built.values():
        coerce_when_given(command)
    return built


class _CoercedWhenGiven:
    """Stands in for typer's coercion of one parameter (``RuntimeParam``, a pydantic
    TypeAdapter built per parameter), building it only for a value that needs it: ``assay
    run`` has 27 options and a run gives a few. A parameter with no value (None) or an empty
    list gets what typer's coercion gives it without one (None, ``()``, ``[]``)."""

    __slots__ = ()

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        if value is None:  # RuntimeParam.coerce's answer, before it looks at the type
            return () if param.multiple or param.nargs == -1 else None
        if value == [] and get_origin(param.type_descriptor.annotation) is list:
            return []  # what the list's adapter makes of no value
        built = _build_runtime_param(param.type_descriptor)
        param._runtime_param = built  # the value given: typer's own coercion from now on
        return built.coerce(value, param=param, ctx=ctx)


_WHEN_GIVEN = _CoercedWhenGiven()


def coerce_when_given(command: Any) -> None:
    """Let ``command``'s parameters (and its sub-commands') build typer's coercion only for a
    value given (``_CoercedWhenGiven``). With a typer that coerces otherwise (no
    ``_runtime_param``), nothing changes."""
    if _build_runtime_param is None:
        return
    for param in command.params:
        if getattr(param, "_runtime_param", False) is None and hasattr(param, "type_descriptor"):
            param._runtime_param = _WHEN_GIVEN
    for sub in getattr(command, "commands", {}).values():
        coerce_when_given(sub)


app = typer.Typer(
    name="assay",
    cls=LazyCommands,
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


err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
out_console = Console(highlight=False, soft_wrap=True, emoji=False)

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
            from assay._isolation import describe  # asyncio: not needed until now

            if os.environ.get("ASSAY_DEBUG"):
                err_console.print(REDACTOR(traceback.format_exc()), markup=False)
            message = " ".join(REDACTOR(describe(exc)).split())  # one line
            err_console.print(
                f"[bold red]error:[/] assay could not run: {markup_safe(message)} "
                "(a bug in assay: please report it; ASSAY_DEBUG=1 shows where)"
            )
            raise typer.Exit(EXIT_COULD_NOT_RUN) from None

    return wrapper
