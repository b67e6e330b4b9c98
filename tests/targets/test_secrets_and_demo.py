"""Secrets in target headers never leave the process; the demo target and the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.errors import ConfigError, TargetError
from assay.net import check_reachable
from assay.target_config import HttpTarget as HttpConfig
from assay.target_config import TargetConfig
from assay.targets import make_target
from assay.targets.base import TurnRequest
from assay.targets.factory import DemoTarget, parse_target_option
from assay.targets.http import HttpTarget
from assay.targets.openai import OpenAITarget
from tests.targets.agent_server import FAST_RETRY, AgentServer, free_port

ASSAY = Path(sys.executable).parent / "assay"
TOKEN = "tok-4f9c2e1d8b7a"  # what the agent server will echo back


def turn(text: str, index: int = 0, session_id: str = "s-1") -> TurnRequest:
    return TurnRequest(input=text, session_id=session_id, turn_id=str(index + 1), turn_index=index)


async def test_secret_header_values_are_redacted_from_errors(
    server: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_TEST_TOKEN_A", "tok-a-91e0c3")
    target = HttpTarget(
        HttpConfig(
            url=server.url + "/echo-headers",
            headers={
                "X-Api-Key": "${ASSAY_TEST_TOKEN_A}",  # substituted here: a secret
                "Authorization": "Bearer literal-sk-77aa",  # a credential header
            },
        ),
        FAST_RETRY,
    )
    with pytest.raises(TargetError) as info:
        await target.session("s").send(turn("x"))
    await target.aclose()
    message = str(info.value)
    assert message.startswith(f"HTTP 401 from {server.url}/echo-headers: ")
    assert "X-Api-Key=***" in message  # the server did echo the value: it was masked
    assert "tok-a-91e0c3" not in message
    assert "literal-sk-77aa" not in message


def test_secrets_stay_out_of_cli_output_and_report(server: AgentServer, tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"""
name: secret-check
target:
  http:
    url: {server.url}/echo-headers
    headers: {{Authorization: "Bearer ${{SECRET_TOKEN}}", X-Trace: "${{SECRET_TOKEN}}"}}
    timeout_s: 2
tests:
  - name: one
    input: hello
  - name: two
    turns:
      - input: first
      - input: second
"""
    )
    report = tmp_path / "r.json"
    done = subprocess.run(
        [str(ASSAY), "run", str(suite), "--out", str(report)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, "SECRET_TOKEN": TOKEN, "NO_COLOR": "1"},
    )
    written = report.read_text()
    assert done.returncode == 1, done.stderr
    assert TOKEN not in done.stdout
    assert TOKEN not in done.stderr
    assert TOKEN not in written
    # the server did send the token back in its errors, and they reached the report masked
    results = json.loads(written)["results"]
    assert results[0]["errors"][0].startswith(f"HTTP 401 from {server.url}/echo-headers: ")
    assert "Authorization=***" in results[0]["errors"][0]
    assert "X-Trace=***" in results[0]["errors"][0]


def test_start_failure_exits_3_through_the_cli(tmp_path: Path) -> None:
    port = free_port()
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"name: down\ntarget: {{http: {{url: 'http://127.0.0.1:{port}/chat'}}}}\n"
        "tests: [{name: one, input: hi}]\n"
    )
    done = subprocess.run(
        [str(ASSAY), "run", str(suite)], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert done.returncode == 3
    assert f"cannot reach http://127.0.0.1:{port}/chat: connection refused" in done.stderr
    assert "Traceback" not in done.stderr


async def test_make_target_builds_each_kind() -> None:
    http_target = make_target(parse_target_option("http://127.0.0.1:9/chat"), retries=5)
    assert isinstance(http_target, HttpTarget)
    assert http_target.retry.retries == 5
    openai_target = make_target(
        TargetConfig.model_validate(
            {"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key_env": None}}
        )
    )
    assert isinstance(openai_target, OpenAITarget)
    assert openai_target.url == "http://127.0.0.1:9/v1/chat/completions"
    assert isinstance(make_target(parse_target_option("demo")), DemoTarget)
    assert make_target(parse_target_option("tests.vectors.agents:scripted")) is not None
    for wrong in ("ftp://x", "127.0.0.1:8000", "agent.py"):
        with pytest.raises(ConfigError, match="expected an http"):
            parse_target_option(wrong)


async def test_the_demo_target_serves_the_travel_agent_until_closed() -> None:
    target = make_target(TargetConfig(demo="travel"), retries=FAST_RETRY)
    await target.start()
    try:
        url = target.description.split("(")[1].rstrip(")")
        session = target.session("demo-1")
        reply = await session.send(turn("What time is my upcoming flight?"))
    finally:
        await target.aclose()
    assert reply.text == "Your upcoming flight is LX0112 CDG→BSL at 12:09 PM."
    assert [t.name for t in reply.tool_invocations] == ["fetch_user_flight_information"]
    with pytest.raises(Exception, match="connection refused"):
        await check_reachable(url)  # aclose stopped the server
