"""Judges through ``assay run``: a dataset with --judge and --judge-base-url against the
scripted OpenAI-compatible server; the cache makes a re-run free; keys never leak."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli
from tests.fakes.llm_server import scripted_llm

AGENT = "def respond(query, session_id):\n    return 'Paris' if 'France' in query else 'Rome'\n"
DATA = (
    "Question,Answer\nCapital of France?,Paris\nCapital of Italy?,Rome\nCapital of Spain?,Madrid\n"
)
SECRET = "sk-test-judge-secret-0123456789"


def test_dataset_run_with_a_judge_then_from_the_cache(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "geo.py").write_text(AGENT)
    (tmp_path / "geo.csv").write_text(DATA)
    with scripted_llm() as llm:
        llm.responder = lambda api, body: json.dumps({"reasoning": "fine", "score": 5})
        args = [
            "run",
            "--dataset",
            "geo.csv",
            "--target",
            "geo:respond",
            "--judge",
            "openai:judge-model",
            "--judge-base-url",
            llm.base_url,
            "--out",
            "r.json",
        ]
        env = {"OPENAI_API_KEY": SECRET}
        first = assay_cli(*args, env=env)
        calls_after_first = llm.calls()
        second = assay_cli(*args, env=env)
        calls_after_second = llm.calls()
        third = assay_cli(*args, "--no-cache", env=env)
        calls_after_third = llm.calls()
    assert first.returncode == 1, first.stderr  # Spain: the agent says Rome
    report = json.loads((tmp_path / "r.json").read_text())
    names = [m["metric_name"] for m in report["results"][0]["metric_results"]]
    # the dataset defaults: equality for the Answer, and with a judge, correctness and relevance
    assert names == ["equality", "correctness", "relevance"]
    correctness = report["results"][0]["metric_results"][1]
    assert correctness["kind"] == "judge" and correctness["score"] == 1.0
    assert correctness["model_used"] and "judge-model" in correctness["model_used"]
    assert calls_after_first == 3 * 2  # three rows, two judge metrics each
    assert second.returncode == 1 and calls_after_second == calls_after_first  # all cached
    assert third.returncode == 1 and calls_after_third == calls_after_first + 6
    # OPENAI_API_KEY is OpenAI's key: a judge on another base_url is not sent it (issue 10)
    assert all("Authorization" not in r.headers for r in llm.requests)
    for proc in (first, second, third):
        assert SECRET not in proc.stdout + proc.stderr
    assert SECRET not in (tmp_path / "r.json").read_text()
    for db in (tmp_path / ".assay").glob("*.db*"):
        assert SECRET.encode() not in db.read_bytes()


def test_judge_metrics_without_a_judge_are_not_run_with_the_reason(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "geo.py").write_text(AGENT)
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'geo:respond'}\nmetrics: [correctness]\n"
        "tests: [{name: a, input: 'Capital of France?', ground_truth: Paris}]\n"
    )
    proc = assay_cli("run", "suite.yaml", "--out", "r.json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert result["metric_results"] == []
    assert "no judge model configured" in result["metrics_not_run"]["correctness"]
