"""Running the dashboard: bind, serve until Ctrl-C, then let the runs it started stop cleanly
(each gets one SIGINT, stores what it has and is marked interrupted, as under the CLI)."""

from __future__ import annotations

import socket
from types import FrameType

import uvicorn
from rich.console import Console

from assay.web._runs import Runs
from assay.web.app import create_app
from assay.web.settings import ServeError, Settings

GRACEFUL_S = 5  # open pages and event streams get this long to finish when stopping


class _Server(uvicorn.Server):
    """uvicorn's server, which on Ctrl-C first interrupts the runs it started."""

    def __init__(self, config: uvicorn.Config, runs: Runs, console: Console) -> None:
        super().__init__(config)
        self.runs = runs
        self.console = console

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        signalled = self.runs.interrupt_all()
        if signalled:
            self.console.print(
                f"stopping: interrupting {len(signalled)} run(s); what they finished is stored "
                "and they can be resumed",
                markup=False,
            )
        super().handle_exit(sig, frame)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so a taken port is one clear message."""
    address = host.strip("[]")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        return socket.create_server((address, port), family=family, backlog=128)
    except OSError as exc:
        raise ServeError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; "
            "choose another --port, or stop what uses it"
        ) from None


def serve(settings: Settings, console: Console) -> None:
    """Serve the dashboard in the foreground until Ctrl-C."""
    app = create_app(settings)
    state = app.state.dashboard
    sock = bind(settings.host, settings.port)
    port = sock.getsockname()[1]
    shown = f"[{settings.host}]" if ":" in settings.host else settings.host
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, timeout_graceful_shutdown=GRACEFUL_S
    )
    console.print(
        f"assay dashboard on http://{shown}:{port}/ (store {state.store.url})"
        + ("; sign in with your token" if settings.token else "")
        + "\nCtrl-C to stop",
        markup=False,
        highlight=False,
    )
    try:
        _Server(config, state.runs, console).run(sockets=[sock])
    finally:
        sock.close()
        for job in state.runs.wait_all():
            console.print(
                f"run {(job.run_id or '?')[:12]} is still storing its results in the background",
                markup=False,
            )
