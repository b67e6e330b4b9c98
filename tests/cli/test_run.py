"""``assay run`` end to end: exit codes, the JSON report, and its schema."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from tests.cli.conftest import REPO, RunCli

CALCULATOR = REPO / "examples" / "calculator" / "suite.yaml"


def test_example_suite_report_matches_the_schema(assay_cli: RunCli, tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    proc = assay_cli("run", str(CALCULATOR), "--out", str(out))
    assert proc.returncode == 1, proc.stderr  # one test fails by design
    assert "Traceback" not in proc.stderr
    report = json.loads(out.read_text())
    schema = json.loads(assay_cli("schema", "report").stdout)
    jsonschema.validate(report, schema)
    s = report["summary"]
    assert (s["total_tests"], s["passed"], s["failed"]) == (4, 3, 1)
    assert s["passed"] + s["failed"] == s["total_tests"]
    by_name = {r["test_name"]: r for r in report["results"]}
    dialogue = by_name["revenue-dialogue"]
    assert dialogue["test_type"] == "multi_turn" and dialogue["passed"] is True
    turn1 = dialogue["turns"][1]
    assert turn1["arg_match_details"] == [
        {
            "expected_tool": "subtract",
            "args_asserted": {"a": {"fuzzy": "5,120"}, "b": {"regex": "4480(\\.0+)?"}},
            "matched_call_index": 1,
            "unmatched_reason": None,
        }
    ]
    unknown = by_name["unknown-year"]
    assert unknown["passed"] is False and unknown["turns"] is None
    assert unknown["arg_match_details"][0]["matched_call_index"] == 0  # year 2018 was asked
    assert unknown["metric_results"][0]["metric_name"] == "numeric"
    assert unknown["metric_results"][0]["passed"] is False


def test_every_schema_name_prints_a_json_schema(assay_cli: RunCli) -> None:
    for name in ("suite", "test-result", "turn-result", "report", "trace"):
        proc = assay_cli("schema", name)
        assert proc.returncode == 0, proc.stderr
        schema = json.loads(proc.stdout)
        jsonschema.Draft202012Validator.check_schema(schema)
    bad = assay_cli("schema", "nope")
    assert bad.returncode == 2 and "unknown schema 'nope'" in bad.stderr


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    return path


AGENT = """
def respond(query, session_id):
    return {"response": query[::-1]}
"""


def test_all_passing_exits_0_and_a_bad_suite_exits_2(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "rev.py").write_text(AGENT)
    ok = write(
        tmp_path,
        "name: s\ntarget: {python: 'rev:respond'}\ntests:\n"
        "  - {name: a, input: abc, ground_truth: cba}\n",
    )
    proc = assay_cli("run", str(ok))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 test: 1 passed, 0 failed" in proc.stdout
    bad = write(
        tmp_path,
        "name: s\ntarget: {python: 'rev:respond'}\ntests:\n"
        "  - {name: a, input: abc, turns: [{input: x}]}\n",
    )
    proc = assay_cli("run", str(bad))
    assert proc.returncode == 2
    assert "tests[0]: a test has exactly one of input" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unimportable_agent_and_missing_target_exit_2(assay_cli: RunCli, tmp_path: Path) -> None:
    path = write(
        tmp_path, "name: s\ntarget: {python: 'nowhere:respond'}\ntests: [{name: a, input: q}]\n"
    )
    proc = assay_cli("run", str(path))
    assert proc.returncode == 2 and "cannot import module 'nowhere'" in proc.stderr
    path = write(tmp_path, "name: s\ntests: [{name: a, input: q}]\n")
    proc = assay_cli("run", str(path))
    assert proc.returncode == 2 and "no target" in proc.stderr


def test_format_to_stdout_keeps_stdout_machine_readable(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "rev.py").write_text(AGENT)
    path = write(
        tmp_path,
        "name: s\ntarget: {python: 'rev:respond'}\n"
        "tests: [{name: a, input: abc, ground_truth: cba}]\n",
    )
    proc = assay_cli("run", str(path), "--format", "json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["summary"]["passed"] == 1
    proc = assay_cli("run", str(path), "--out", "report.txt")
    assert proc.returncode == 2 and "--format" in proc.stderr


def test_target_problems_name_the_suite_and_unreachable_exits_3(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    path = write(
        tmp_path,
        'name: s\ntarget: {http: {url: "http://127.0.0.1:1/{{ nope }}"}}\n'
        "tests: [{name: a, input: q}]\n",
    )
    proc = assay_cli("run", str(path))
    assert proc.returncode == 2
    assert f"{path}: target.http.url: unknown template variable 'nope'" in proc.stderr
    path = write(
        tmp_path,
        'name: s\ntarget: {http: {url: "http://127.0.0.1:1/chat"}}\ntests: [{name: a, input: q}]\n',
    )
    proc = assay_cli("run", str(path))
    assert proc.returncode == 3
    assert "cannot reach http://127.0.0.1:1/chat: connection refused" in proc.stderr


def test_graders_import_from_the_suite_folder_and_equality_says_why(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    suite_dir = tmp_path / "suite"
    suite_dir.mkdir()
    (suite_dir / "rev.py").write_text(AGENT)
    (suite_dir / "graders.py").write_text(
        "def short(ctx):\n    return {'score': 1.0 if len(ctx.response) < 5 else 0.0,"
        " 'reason': 'length ' + str(len(ctx.response))}\n"
    )
    (suite_dir / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'rev:respond'}\n"
        "metrics: [equality, {type: code, grader: 'graders:short', name: short}]\n"
        "tests: [{name: a, input: abcdef, ground_truth: fedcbX}]\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = assay_cli("run", str(suite_dir / "suite.yaml"), "--out", "r.json", cwd=elsewhere)
    assert proc.returncode == 1, proc.stderr
    metrics = json.loads((elsewhere / "r.json").read_text())["results"][0]["metric_results"]
    by_name = {m["metric_name"]: m for m in metrics}
    assert by_name["equality"]["reasoning"] == "expected 'fedcbX', got 'fedcba'"
    assert by_name["short"]["score"] == 0.0 and by_name["short"]["reasoning"] == "length 6"
