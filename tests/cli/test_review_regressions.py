"""Regressions found in review, through the real CLI: bad agent data fails one turn, a hung
sync agent cannot hold the run, secrets stay out of errors, reports and the store,
${VAR:-default}, --out checked before running, the not-run count, required schema fields."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli

AGENT = """
import threading

class Odd:
    def __str__(self):
        return "an odd object"

def respond(query, session_id):
    if query == "bad duration":
        return {"response": "x", "tool_invocations": [{"name": "t", "duration_ms": "5ms"}]}
    if query == "surrogate":
        calls = [{"name": "t", "result": Odd()}]
        return {"response": "broken \\udc80 text", "tool_invocations": calls}
    if query == "hang":
        threading.Event().wait()  # never returns
    if query == "fail":
        raise RuntimeError("no")
    return "echo " + query
"""


def suite(tmp_path: Path, tests: str, extra: str = "") -> Path:
    (tmp_path / "agent.py").write_text(AGENT)
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: s\ntarget: {{python: 'agent:respond'}}\n{extra}tests:\n{tests}")
    return path


def report(tmp_path: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((tmp_path / "r.json").read_text())
    return loaded


def test_bad_agent_data_fails_one_turn_and_odd_text_is_stored(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite(
        tmp_path,
        "  - {name: a, input: bad duration}\n  - {name: b, input: surrogate}\n"
        "  - {name: c, input: hello, ground_truth: echo hello}\n",
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    results = {r["test_name"]: r for r in report(tmp_path)["results"]}  # type: ignore[union-attr]
    assert results["a"]["errors"] == [
        "tool_invocations[0].duration_ms: Input should be a valid integer, unable to parse "
        "string as an integer (got '5ms')"
    ]
    assert results["b"]["agent_response"] == "broken \ufffd text"  # the lone surrogate replaced
    # an object that is not JSON is read as its text when the reply is read (inside the
    # agent's turn, so its __str__ runs under the turn's guard), before the store sees it
    assert results["b"]["warnings"] == [
        "agent_response: unpaired surrogate characters replaced with U+FFFD",
    ]
    assert results["b"]["tool_invocations"][0]["result"] == "an odd object"
    assert results["c"]["passed"] is True


def test_a_hung_sync_agent_times_out_and_the_run_still_ends(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite(
        tmp_path,
        "  - {name: a, input: hang}\n  - {name: b, input: hi, ground_truth: echo hi}\n",
        "execution: {turn_timeout_s: 1.5}\n",  # "b" must answer within it, even under load
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json", timeout=60)  # hangs otherwise
    assert proc.returncode == 1
    results = report(tmp_path)["results"]
    assert results[0]["errors"] == ["Agent invocation timeout after 1.5s"]  # type: ignore[index]
    assert results[1]["passed"] is True  # type: ignore[index]


def test_var_values_stay_out_of_errors_reports_and_the_store(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    secret = "acct-998877-secret"
    suite(tmp_path, "  - {name: a, input: 'id ${ACCT_ID}', ground_truth: 'echo id ${ACCT_ID}'}\n")
    proc = assay_cli("run", "suite.yaml", "--out", "r.json", env={"ACCT_ID": secret})
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "r.json").read_text()
    assert secret not in text and "***" in text
    assert secret not in proc.stdout + proc.stderr
    for db in (tmp_path / ".assay").glob("assay.db*"):
        assert secret.encode() not in db.read_bytes()
    bad = suite(
        tmp_path, "  - {name: a, input: x}\n", "execution: {turn_timeout_s: '${ACCT_ID}'}\n"
    )
    proc = assay_cli("run", str(bad), env={"ACCT_ID": secret})
    assert proc.returncode == 2 and "execution.turn_timeout_s" in proc.stderr
    assert secret not in proc.stderr


def test_an_empty_variable_takes_its_default(assay_cli: RunCli, tmp_path: Path) -> None:
    suite(tmp_path, "  - {name: a, input: '${GREETING:-hi}', ground_truth: echo hi}\n")
    proc = assay_cli("run", "suite.yaml", env={"GREETING": ""})
    assert proc.returncode == 0, proc.stderr


def test_an_unwritable_out_is_refused_before_anything_runs(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite(tmp_path, "  - {name: a, input: hi}\n")
    (tmp_path / "adir").mkdir()
    proc = assay_cli("run", "suite.yaml", "--out", "adir", "--format", "json")
    assert proc.returncode == 2 and "'adir' is a folder" in proc.stderr
    assert json.loads(assay_cli("runs", "--json").stdout) == []  # nothing was run


def test_a_metric_that_ran_on_some_turn_is_not_counted_as_not_run(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite(
        tmp_path,
        "  - name: a\n    turns:\n      - {input: one, ground_truth: echo one}\n"
        "      - {input: fail, ground_truth: x}\n",
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 1
    summary = report(tmp_path)["summary"]
    assert summary["metrics_evaluated"] == {"equality": 1}  # type: ignore[index]
    assert summary["metrics_not_run"] == {}  # type: ignore[index]


def test_record_schemas_require_the_contract_fields(assay_cli: RunCli) -> None:
    turn = json.loads(assay_cli("schema", "turn-result").stdout)
    assert {
        "turn_index",
        "input",
        "tool_calls",
        "tool_invocations",
        "metric_results",
        "passed",
        "execution_time_ms",
        "errors",
    } == set(turn["required"])


def test_error_messages_print_colons_as_written_not_as_emoji(assay_cli: RunCli) -> None:
    proc = assay_cli("run", "plan:x:v2.yaml")
    assert proc.returncode == 2
    assert "plan:x:v2.yaml: file not found" in proc.stderr  # rich made ':x:' an emoji
