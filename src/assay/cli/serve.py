"""``assay serve``: the web dashboard over the store the CLI writes (SPEC §8)."""

from __future__ import annotations

import typer

from assay.cli.app import app, out_console, user_errors
from assay.cli.runs import store_option
from assay.web.settings import DEFAULT_HOST, DEFAULT_PORT, TOKEN_ENV, Settings, check_token


@app.command()
@user_errors
def serve(
    store: str | None = store_option(),
    host: str = typer.Option(
        DEFAULT_HOST,
        "--host",
        help="the address to listen on; any but a loopback address needs a token",
    ),
    port: int = typer.Option(DEFAULT_PORT, "--port", min=0, max=65535, help="the port to use"),
    token: str | None = typer.Option(
        None,
        "--token",
        envvar=TOKEN_ENV,
        show_envvar=True,
        help="require this token for every page and API call (prefer the environment "
        "variable: a command line is visible to other users of the machine)",
    ),
) -> None:
    """Serve the web dashboard: upload and validate datasets, start runs and watch them,
    read every turn, compare runs. Ctrl-C stops it; the runs it started are interrupted,
    keep what they finished, and can be resumed."""
    settings = Settings(store_url=store, host=host, port=port, token=check_token(host, token))
    from assay.web.server import serve as serve_dashboard  # FastAPI is imported only here

    serve_dashboard(settings, out_console)
