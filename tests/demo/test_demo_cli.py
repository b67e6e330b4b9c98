"""``assay agent travel``: a real process serving on 127.0.0.1, stopped with Ctrl-C."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Iterator

import pytest
from typer.testing import CliRunner

import assay.cli.agent  # noqa: F401  (registers the command)
from assay.cli.app import app
from assay.demo import serve_in_background

_CLI = "import assay.cli.agent; from assay.cli.app import app; app()"


@pytest.fixture
def cli_process() -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLI, "agent", "travel", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def test_serves_until_interrupted(cli_process: subprocess.Popen[str]) -> None:
    assert cli_process.stdout is not None
    first = cli_process.stdout.readline().strip()
    prefix = "serving the travel agent at http://127.0.0.1:"
    assert first.startswith(prefix), first
    assert first.endswith("/chat")
    assert cli_process.stdout.readline().strip() == "press Ctrl-C to stop"
    request = urllib.request.Request(
        first.removeprefix("serving the travel agent at "),
        data=json.dumps(
            {"query": "What time is my upcoming flight?", "session_id": "cli"}
        ).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        body = json.load(response)
    assert body["response"] == "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM."
    cli_process.send_signal(signal.SIGINT)
    out, err = cli_process.communicate(timeout=10)
    assert cli_process.returncode == 0, err
    assert out.strip().endswith("stopped")


def test_a_busy_port_is_a_clear_error() -> None:
    with serve_in_background() as url:
        port = url.rsplit(":", 1)[1]
        result = CliRunner().invoke(app, ["agent", "travel", "--port", port])
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.output
    assert "--port" in result.output
    assert "Traceback" not in result.output


def test_help_lists_the_travel_agent() -> None:
    result = CliRunner().invoke(app, ["agent", "--help"])
    assert result.exit_code == 0
    assert "travel" in result.output
