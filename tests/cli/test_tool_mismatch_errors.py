"""HoloDeck's ``test_missing_expected_tool_fails_turn`` (justinbarias/holodeck,
tests/unit/lib/test_runner/test_executor_per_turn_tools.py) through the real CLI against a
real HTTP agent on 127.0.0.1: a turn that expected ``divide`` from an agent that called
nothing has ``tools_matched`` false, does not pass, and names ``divide`` in its ``errors``
(the reason is in ``tool_mismatches`` too). A wrong tool still fails the test, it does not
error it: status ``failed``, a JUnit ``<failure>``, counted as failed; and every report, the
store and the dashboard show the reason once. Results stored before the reasons were added
to ``errors`` read and show the same."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from assay.results.models import TestResult
from assay.store import open_store
from assay.web import Settings, create_app
from tests.cli.conftest import RunCli
from tests.targets.agent_server import Step, agent_server
from tests.web.seed import store_run

DIVIDE = "no call to 'divide' found"
SUITE = """
name: s
target: {{http: {{url: "{url}"}}}}
tests:
  - name: missing
    turns:
      - {{input: t, expected_tools: [divide]}}
  - {{name: single, input: t, expected_tools: [divide]}}
  - {{name: broke, input: down, expected_tools: [divide]}}
"""


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["test_name"]: r for r in report["results"]}


def run_suite(assay_cli: RunCli, tmp_path: Path) -> tuple[str, dict[str, Any]]:
    with agent_server() as server:
        server.by_query["t"] = Step(json={"response": "4", "tool_invocations": []})
        server.by_query["down"] = Step(status=500, json={"error": "backend down"})
        (tmp_path / "s.yaml").write_text(SUITE.format(url=server.chat_url))
        outs = ("r.json", "r.md", "r.xml", "r.html")
        proc = assay_cli("run", "s.yaml", *[a for out in outs for a in ("--out", out)])
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return proc.stdout, json.loads((tmp_path / "r.json").read_text())


def test_a_missing_expected_tool_is_an_error_of_the_turn_and_fails_it(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    stdout, report = run_suite(assay_cli, tmp_path)
    results = by_name(report)
    missing, single, broke = results["missing"], results["single"], results["broke"]
    [turn] = missing["turns"]
    # HoloDeck's assertions, word for word
    assert turn["tools_matched"] is False
    assert turn["passed"] is False
    assert any("divide" in e for e in turn["errors"])
    assert turn["errors"] == turn["tool_mismatches"] == [DIVIDE]
    assert missing["errors"] == [f"[turn 0] {DIVIDE}"]  # rolled up as contract §4 says
    # the single-turn equivalent: the same rule on the test's own fields
    assert (single["tools_matched"], single["passed"]) == (False, False)
    assert single["errors"] == single["tool_mismatches"] == [DIVIDE]
    # a wrong tool fails the test; only what broke errors it, its reasons first
    assert [missing["status"], single["status"], broke["status"]] == ["failed", "failed", "error"]
    assert broke["errors"][1:] == [DIVIDE] and "500" in broke["errors"][0]
    summary = report["summary"]
    assert (summary["passed"], summary["failed"], summary["errored"]) == (0, 3, 1)
    assert "3 tests: 0 passed, 2 failed, 1 errored, 0 not run" in stdout

    cases = {c.get("name"): c for c in ET.parse(tmp_path / "r.xml").iter("testcase")}
    assert {n: [e.tag for e in c if e.tag != "system-out"] for n, c in cases.items()} == {
        "missing": ["failure"],
        "single": ["failure"],
        "broke": ["error"],
    }
    failure = cases["single"].find("failure")
    assert failure is not None and failure.get("message") == DIVIDE
    suite = next(ET.parse(tmp_path / "r.xml").iter("testsuite"))
    assert (suite.get("failures"), suite.get("errors")) == ("2", "1")

    # each reason once: as a tool mismatch, never also as an error
    markdown = (tmp_path / "r.md").read_text()
    assert markdown.count(f"- **Tool mismatch:** {DIVIDE}") == 3
    assert [line for line in markdown.splitlines() if "**Error:**" in line] == [
        f"- **Error:** {broke['errors'][0]}"
    ]
    assert stdout.count(f"✗ {DIVIDE}") == 3  # the explanation of each test
    html = (tmp_path / "r.html").read_text()
    html_reasons = re.findall(r"<ul class=\"reasons\">(.*?)</ul>", html, re.S)
    for reasons in html_reasons:
        assert reasons.count(DIVIDE.replace("'", "&#39;")) <= 1

    # stored, and read back from the store as written
    stored = assay_cli("report", report["run"]["id"], "--format", "json")
    assert stored.returncode == 0, stored.stderr
    assert by_name(json.loads(stored.stdout)) == results


def dashboard_page(tmp_path: Path, run: str, name: str) -> str:
    settings = Settings(store_url=f"sqlite:///{tmp_path / '.assay' / 'assay.db'}", root=tmp_path)
    with TestClient(create_app(settings), base_url="http://127.0.0.1:8484") as client:
        items = client.get(f"/api/runs/{run}/results", params={"q": name}).json()["items"]
        found = next(i["id"] for i in items if i["result"]["test_name"] == name)
        return client.get(f"/runs/{run}/tests/{found}").text


def turn_section(page: str) -> str:
    start = page.index('<section class="turn')
    return page[start : page.index("</section>", start)]


def test_the_dashboard_shows_the_reason_once(assay_cli: RunCli, tmp_path: Path) -> None:
    _, report = run_suite(assay_cli, tmp_path)
    run, shown = report["run"]["id"], DIVIDE.replace("'", "&#39;")
    for name in ("missing", "single"):
        page = dashboard_page(tmp_path, run, name)
        assert turn_section(page).count(shown) == 1, name
        # above the turns, why it did not pass; no whole-conversation error repeats it
        assert page.count(shown) == 2, name


def test_a_result_stored_before_the_reasons_were_errors_reads_the_same(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """A run stored (or a report written) before this rule: ``errors`` without the reasons."""
    _, report = run_suite(assay_cli, tmp_path)
    now = by_name(report)
    old = []
    for name in ("missing", "single"):
        result = dict(now[name], errors=[])
        if result["turns"]:
            result["turns"] = [dict(t, errors=[]) for t in result["turns"]]
        old.append(TestResult.model_validate(result))
    with open_store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}") as store:
        run = store_run(store, 1, old)
    back = assay_cli("report", run, "--format", "json")
    assert back.returncode == 0, back.stderr
    stored = by_name(json.loads(back.stdout))
    assert [stored[n]["errors"] for n in ("missing", "single")] == [[], []]
    assert [stored[n]["status"] for n in ("missing", "single")] == ["failed", "failed"]
    markdown = assay_cli("report", run, "--format", "markdown")
    assert markdown.stdout.count(f"- **Tool mismatch:** {DIVIDE}") == 2
    assert "**Error:**" not in markdown.stdout
    for name in ("missing", "single"):
        shown = DIVIDE.replace("'", "&#39;")
        assert turn_section(dashboard_page(tmp_path, run, name)).count(shown) == 1
