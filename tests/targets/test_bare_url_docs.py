"""docs/targets.md says what a bare ``--target URL`` sends and reads; this holds the doc to
what ``assay run`` does against a real server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.targets.agent_server import AgentServer, Step

DOC = Path(__file__).resolve().parents[2] / "docs" / "targets.md"
ASSAY = str(Path(sys.executable).parent / "assay")


def documented() -> tuple[dict[str, object], dict[str, object]]:
    section = DOC.read_text().split("### A bare `--target URL`")[1].split("\n## ")[0]
    request, reply = (json.loads(b) for b in re.findall(r"```json\n(.*?)```", section, re.S))
    return request, reply


def test_the_documented_request_and_reply_are_what_a_bare_url_target_uses(
    server: AgentServer, tmp_path: Path
) -> None:
    request, reply = documented()
    server.queue(Step(json=reply), Step(json=reply))
    (tmp_path / "lab.csv").write_text(
        "session_id,turn_id,Question,Answer,expected_tool_calls\n"
        "s1,1,I like a cheap hotel.,x,\n"
        f's1,2,{request["query"]},{reply["response"]},"[{{""name"": ""book_hotel"", '
        '""arguments"": {""hotel_id"": 8}}]"\n'
    )
    proc = subprocess.run(
        [ASSAY, "run", "--dataset", "lab.csv", "--target", server.chat_url, "--out", "r.json"],
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr  # turn 1's answer is wrong on purpose
    first, second = (r for r in server.requests if r.method == "POST")
    assert first.headers["Content-Type"] == "application/json"
    # the documented keys and types, the turn ids as strings, one session id per conversation
    assert second.body.keys() == request.keys()
    assert second.body["query"] == request["query"]
    assert (first.body["turn_id"], second.body["turn_id"]) == ("1", "2")
    assert first.body["session_id"] == second.body["session_id"]
    assert str(second.body["session_id"]).startswith("assay-")
    # the documented reply fills the turn: text, tool call (bytes measured), token usage
    result = json.loads((tmp_path / "r.json").read_text())["results"][0]
    turn = result["turns"][1]
    assert turn["response"] == reply["response"] and turn["passed"] is True
    (call,) = turn["tool_invocations"]
    assert (call["name"], call["args"], call["bytes"]) == ("book_hotel", {"hotel_id": 8}, 16)
    assert turn["token_usage"]["prompt_tokens"] == 180
