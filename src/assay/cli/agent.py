"""``assay agent travel``: serve the built-in travel agent over HTTP in the foreground."""

from __future__ import annotations

import threading
from typing import Annotated

import typer

from assay.cli.app import app, out_console, user_errors
from assay.errors import ConfigError

# The defaults SPEC §4 documents; assay.demo is imported only when the command runs.
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765

agent_app = typer.Typer(
    name="agent",
    help="Serve a built-in agent to try assay against.",
    no_args_is_help=True,
)
app.add_typer(agent_app, name="agent")


@agent_app.command("travel")
@user_errors
def travel(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = DEFAULT_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on; 0 picks a free one.")] = (
        DEFAULT_PORT
    ),
) -> None:
    """Serve the deterministic travel agent (no API key): POST /chat, GET /health."""
    try:
        from assay.demo.server import serve_in_background  # only this command serves it

        with serve_in_background(host, port) as url:
            out_console.print(f"serving the travel agent at {url}/chat\npress Ctrl-C to stop")
            threading.Event().wait()
    except KeyboardInterrupt:
        out_console.print("stopped")
    except OSError as exc:
        raise ConfigError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
            "choose another address with --host or a free port with --port"
        ) from None
