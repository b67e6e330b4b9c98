"""A lone surrogate from the agent (``"\\udc80"``: a JSON escape that is not half of a pair,
or a Python string read with ``surrogateescape``) costs nothing but itself: a tool result
holding one is measured and stored with U+FFFD in its place, like the reply's other fields,
and said in the result's warnings; a reply holding one is replayed to the agent, in a later
turn's history, with U+FFFD in its place, instead of failing every later turn unsent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.targets.base import result_bytes
from tests.cli.conftest import RunCli
from tests.fakes.llm_server import Completion, Fault, Scripted, ToolCall, scripted_llm
from tests.targets.agent_server import Step, agent_server

CLEANED = "tool_invocations[0].result: unpaired surrogate characters replaced with U+FFFD"


@pytest.mark.parametrize(
    ("result", "size"),
    [
        # json's escape of a lone surrogate is as long as U+FFFD's, stored in its place
        ("ok \udc80", 11),  # "ok \udc80": the quotes, 3 ASCII, a 6-character escape
        ({"k": "\udcff"}, 15),  # {"k": "\udcff"}
        (["\ud800", "\ud800"], 20),  # ["\ud800", "\ud800"]
        ("\ud83d\ude00", 14),  # a pair written as two code points: two escapes
    ],
)
def test_a_lone_surrogate_counts_as_its_json_escape(result: Any, size: int) -> None:
    assert result_bytes(result) == size


def _report(tmp_path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((tmp_path / "report.json").read_text())
    return loaded


def _single_result(tmp_path: Path) -> dict[str, Any]:
    [result] = _report(tmp_path)["results"]
    return result


def _assert_cleaned_call(result: dict[str, Any]) -> None:
    assert result["status"] == "passed", result
    assert result["errors"] == []
    assert result["agent_response"] == "Paris"
    assert result["tool_invocations"] == [
        {
            "name": "lookup",
            "args": {},
            "result": "ok \ufffd",
            "bytes": 11,
            "duration_ms": None,
            "error": None,
        }
    ]
    assert result["warnings"] == [CLEANED]


SINGLE = "  - {name: t, input: q, ground_truth: Paris, expected_tools: [lookup]}\n"


def test_a_python_agents_tool_result_with_a_lone_surrogate_is_stored_cleaned(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "surrogate_agent.py").write_text(
        "def respond(query, session_id):\n"
        "    # a file name read with surrogateescape, say\n"
        '    return {"response": "Paris", "tool_invocations": '
        '[{"name": "lookup", "args": {}, "result": "ok \\udc80"}]}\n'
    )
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'surrogate_agent:respond'}\ntests:\n" + SINGLE
    )
    proc = assay_cli("run", "suite.yaml", "--out", "report.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _assert_cleaned_call(_single_result(tmp_path))


def test_an_http_agents_tool_result_with_a_lone_surrogate_is_stored_cleaned(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    with agent_server() as server:
        server.queue(
            Step(
                raw='{"response": "Paris", "tool_invocations": '
                '[{"name": "lookup", "args": {}, "result": "ok \\udc80"}]}'
            )
        )
        (tmp_path / "suite.yaml").write_text(
            f"name: s\ntarget: {{http: {{url: '{server.chat_url}'}}}}\ntests:\n" + SINGLE
        )
        proc = assay_cli("run", "suite.yaml", "--out", "report.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _assert_cleaned_call(_single_result(tmp_path))


def test_an_http_agents_reply_with_a_lone_surrogate_is_replayed_cleaned(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    with agent_server() as server:
        server.queue(Step(raw='{"response": "Paris \\ud83d"}'), Step(raw='{"response": "Bern"}'))
        (tmp_path / "suite.yaml").write_text(
            f"name: s\ntarget:\n  http:\n    url: '{server.chat_url}'\n"
            "    body: {query: '{{ input }}', history: '{{ history }}'}\n"
            "tests:\n  - name: conv\n    turns:\n"
            "      - {input: first, ground_truth: Paris}\n"
            "      - {input: second, ground_truth: Bern}\n"
        )
        proc = assay_cli("run", "suite.yaml", "--out", "report.json")
        bodies = server.bodies()
    assert len(bodies) == 2
    assert bodies[1] == {
        "query": "second",
        "history": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": "Paris \ufffd"},
        ],
    }
    result = _single_result(tmp_path)
    assert [(t["response"], t["errors"]) for t in result["turns"]] == [
        ("Paris \ufffd", []),
        ("Bern", []),
    ]
    assert result["warnings"] == [
        "turns[0].response: unpaired surrogate characters replaced with U+FFFD"
    ]
    assert proc.returncode == 1  # the first turn's reply is not "Paris": a failure, not an error
    assert result["status"] == "failed"


def test_an_openai_reply_with_a_lone_surrogate_is_replayed_cleaned(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    def model(api: str, body: dict[str, Any]) -> Scripted:
        if sum(1 for m in body["messages"] if m["role"] == "user") == 1:
            reply = {
                "id": "x",
                "object": "chat.completion",
                "model": "m",
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": "hello \\ud800 world"},
                        "finish_reason": "stop",
                    }
                ],
            }
            # the escape sent as is: Python's json would write the backslash escaped
            return Fault(raw=json.dumps(reply).replace("\\\\ud800", "\\ud800"))
        return Completion("fine")

    with scripted_llm() as llm:
        llm.responder = model
        (tmp_path / "suite.yaml").write_text(
            f"name: s\ntarget: {{openai: {{base_url: '{llm.base_url}', model: m}}}}\n"
            "tests:\n  - name: conv\n    turns:\n"
            "      - {input: t1}\n"
            "      - {input: t2, ground_truth: fine}\n"
            "      - {input: t3, ground_truth: fine}\n"
        )
        proc = assay_cli("run", "suite.yaml", "--out", "report.json")
        sent = [r.body["messages"] for r in llm.requests]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(sent) == 3  # every turn was sent, the first reply replayed cleaned
    assert sent[2] == [
        {"role": "user", "content": "t1"},
        {"role": "assistant", "content": "hello \ufffd world"},
        {"role": "user", "content": "t2"},
        {"role": "assistant", "content": "fine"},
        {"role": "user", "content": "t3"},
    ]
    result = _single_result(tmp_path)
    assert [(t["response"], t["passed"], t["errors"]) for t in result["turns"]] == [
        ("hello \ufffd world", True, []),
        ("fine", True, []),
        ("fine", True, []),
    ]
    assert result["warnings"] == [
        "turns[0].response: unpaired surrogate characters replaced with U+FFFD"
    ]


def test_an_openai_tool_returning_a_lone_surrogate_costs_nothing_but_the_character(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    def model(api: str, body: dict[str, Any]) -> Scripted:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return Completion(f"the tool said {last['content']}")
        return Completion(None, [ToolCall("lookup", {"x": 1})])

    (tmp_path / "surrogate_tools.py").write_text("def lookup(**kw):\n    return 'abc\\ud800def'\n")
    with scripted_llm() as llm:
        llm.responder = model
        (tmp_path / "suite.yaml").write_text(
            "name: s\ntarget:\n  openai:\n"
            f"    base_url: '{llm.base_url}'\n    model: m\n"
            "    tools: [{name: lookup, implementation: surrogate_tools}]\n"
            "tests:\n  - {name: t, input: go, ground_truth: 'the tool said abc\ufffddef'}\n"
        )
        proc = assay_cli("run", "suite.yaml", "--out", "report.json")
        sent = [r.body["messages"] for r in llm.requests]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert len(sent) == 2
    assert sent[1][-1]["role"] == "tool" and sent[1][-1]["content"] == "abc\ufffddef"
    result = _single_result(tmp_path)
    assert result["status"] == "passed"
    [call] = result["tool_invocations"]
    assert (call["name"], call["args"], call["result"], call["bytes"], call["error"]) == (
        "lookup",
        {"x": 1},
        "abc\ufffddef",
        14,  # "abc\ufffddef" with its quotes
        None,
    )
    assert result["warnings"] == [CLEANED]
