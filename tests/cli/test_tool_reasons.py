"""Through the real CLI against a real HTTP agent on 127.0.0.1: why a tool assertion failed
is in a single-turn result (``tool_mismatches``) in the words a multi-turn test's turns use,
in the terminal and every report, and through the store; and a metric that gave no verdict
on any turn rolls up with none."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from tests.cli.conftest import RunCli
from tests.targets.agent_server import Step, agent_server

REPLY = {
    "response": "206588",
    "tool_invocations": [
        {"name": "lookup", "args": {}},
        {"name": "subtract", "args": {"a": 206588}},
    ],
}
COUNT_0 = "'subtract' must not be called, found 1"
MISSING = "no call to 'missing' found"

TOOLS_SUITE = """
name: s
target: {{http: {{url: "{url}"}}}}
tests:
  - {{name: cnt0, input: x, expected_tools: [{{name: subtract, count: 0}}]}}
  - {{name: miss, input: x, expected_tools: [lookup, missing]}}
  - name: both
    turns:
      - {{input: x, expected_tools: [{{name: subtract, count: 0}}]}}
      - {{input: x, expected_tools: [lookup, missing]}}
"""


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["test_name"]: r for r in report["results"]}


def test_a_single_turn_tool_failure_says_why_everywhere(assay_cli: RunCli, tmp_path: Path) -> None:
    with agent_server() as server:
        server.by_query["x"] = Step(json=REPLY)
        (tmp_path / "s.yaml").write_text(TOOLS_SUITE.format(url=server.chat_url))
        outs = ("r.json", "r.md", "r.xml", "r.html")
        proc = assay_cli("run", "s.yaml", *[a for out in outs for a in ("--out", out)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    results = by_name(report)
    cnt0, miss, both = results["cnt0"], results["miss"], results["both"]
    # the reasons are errors too (HoloDeck's rule), and a wrong tool still fails, not errors
    assert (cnt0["status"], cnt0["errors"], cnt0["arg_match_details"]) == (
        "failed",
        [COUNT_0],
        None,
    )
    assert cnt0["tool_mismatches"] == [COUNT_0]
    assert miss["tool_mismatches"] == [MISSING]
    # the same texts as the same checks give on the turns of a multi-turn test
    assert [t["tool_mismatches"] for t in both["turns"]] == [[COUNT_0], [MISSING]]
    assert both["tool_mismatches"] == []  # a multi-turn test's are on its turns

    table = {
        line.split("│")[1].strip(): line.split("│")[5].strip()
        for line in proc.stdout.splitlines()
        if re.match(r"│ (cnt0|miss) ", line)
    }
    assert table == {"cnt0": COUNT_0, "miss": MISSING}
    assert f"✗ {COUNT_0}" in proc.stdout and f"✗ {MISSING}" in proc.stdout
    markdown = (tmp_path / "r.md").read_text()
    assert markdown.count(f"- **Tool mismatch:** {COUNT_0}") == 2  # cnt0, and turn 0 of both
    assert markdown.count(f"- **Tool mismatch:** {MISSING}") == 2
    assert "- **Error:**" not in markdown  # each reason once, as a tool mismatch
    cases = {c.get("name"): c for c in ET.parse(tmp_path / "r.xml").iter("testcase")}
    failures = {name: case.find("failure") for name, case in cases.items()}
    assert {n: f.get("message") for n, f in failures.items() if f is not None} == {
        "cnt0": COUNT_0,
        "miss": MISSING,
        "both": f"turn 0: {COUNT_0}",
    }
    page = (tmp_path / "r.html").read_text()
    assert "<li>&#39;subtract&#39; must not be called, found 1</li>" in page
    for text in (proc.stdout, markdown, (tmp_path / "r.xml").read_text(), page):
        assert "were not called" not in text and "no reason recorded" not in text

    # stored, and read back from the store as written
    stored = assay_cli("report", report["run"]["id"], "--format", "json")
    assert stored.returncode == 0, stored.stderr
    back = by_name(json.loads(stored.stdout))
    assert back["cnt0"]["tool_mismatches"] == [COUNT_0]
    assert back == results


GRADERS = """
def boom(*args, **kwargs):
    raise ValueError("no verdict here")
"""

METRICS = '[equality, {type: code, grader: "graders:boom", fail_on_error: false}]'
BOOM_SUITE = f"""
name: m
target: {{http: {{url: "URL"}}}}
tests:
  - name: two
    turns:
      - {{input: x, ground_truth: "206588", metrics: {METRICS}}}
      - {{input: x, ground_truth: "206588", metrics: {METRICS}}}
  - {{name: one, input: x, ground_truth: "206588", metrics: {METRICS}}}
"""


def test_a_metric_without_a_verdict_on_any_turn_rolls_up_without_one(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "graders.py").write_text(GRADERS)
    with agent_server() as server:
        server.by_query["x"] = Step(json=REPLY)
        (tmp_path / "m.yaml").write_text(BOOM_SUITE.replace("URL", server.chat_url))
        proc = assay_cli("run", "m.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # equality held everywhere
    report = json.loads((tmp_path / "r.json").read_text())
    results = by_name(report)

    def metrics(result: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        return {
            m["metric_name"]: (m["passed"], m["score"], m["error"])
            for m in result["metric_results"]
        }

    error = "ValueError: no verdict here"
    assert [metrics(t)["code:boom"] for t in results["two"]["turns"]] == [(None, None, error)] * 2
    assert metrics(results["two"]) == {
        "equality": (True, 1.0, None),
        "code:boom": (None, None, f"{error}; {error}"),  # no verdict on any turn: none
    }
    assert metrics(results["one"])["code:boom"] == (None, None, error)  # as on a single turn
    assert [r["status"] for r in report["results"]] == ["passed", "passed"]
    summary = report["summary"]
    assert summary["metrics_evaluated"] == {"equality": 2, "code:boom": 2}
    assert summary["average_scores"] == {"equality": 1.0}
    assert (summary["passed"], summary["failed"]) == (2, 0)
