"""``assay judge check``: a judge metric over a labelled file, against the scripted judge,
with agreement reported as text or JSON."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import assay.cli.judge  # noqa: F401  (registers the command)
from assay.cli.app import app
from tests.fakes.llm_server import Fault, ScriptedLLM
from tests.judge.conftest import verdict

runner = CliRunner()


def tagged(body: dict[str, Any], tag: str) -> str:
    text = body["messages"][-1]["content"]
    found = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.S)
    return found.group(1) if found else ""


def exact_match_judge(api: str, body: dict[str, Any]) -> str:
    """5 when the response equals the reference, else 1."""
    same = tagged(body, "response") == tagged(body, "reference_answer")
    return verdict(reasoning="compared", score=5 if same else 1)


# judge verdicts vs labels: pass/pass, pass/pass, fail/fail, fail/pass, pass/fail, fail/fail
# -> both pass 2, judge only 1, label only 1, both fail 2; kappa 1/3 (see test_agreement)
BINARY = (
    "Question,Response,Reference,Label\n"
    "Capital of France?,Paris,Paris,pass\n"
    "Capital of Italy?,Rome,Rome,1\n"
    "Capital of France?,Lyon,Paris,fail\n"
    "Capital of Norway?,Oslo,Bergen,PASS\n"
    "Capital of Switzerland?,Bern,Bern,0\n"
    "Capital of Spain?,Barcelona,Madrid,false\n"
)


def _run(llm: ScriptedLLM, path: Path, *extra: str) -> Any:
    args = ["judge", "check", str(path), "--metric", "correctness", "--judge", "openai:judge"]
    return runner.invoke(app, [*args, "--judge-base-url", llm.base_url, *extra])


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the default cache, .assay/cache.db, goes here


def test_binary_labels_give_accuracy_and_kappa(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = exact_match_judge
    path = tmp_path / "labelled.csv"
    path.write_text(BINARY, encoding="utf-8")
    result = _run(llm, path)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == (
        f"correctness judged by openai:judge on {path}: 6 rows, 6 scored, 0 errors, 0 not run"
    )
    assert lines[1] == (
        "labels pass/fail; the metric passes at score >= 0.7: accuracy 0.667 (4/6), "
        "Cohen's kappa 0.333"
    )
    assert llm.calls() == 6
    again = _run(llm, path, "--json")
    assert llm.calls() == 6  # every verdict came from the cache
    data = json.loads(again.stdout)
    assert data["kappa"] == pytest.approx(1 / 3) and data["accuracy"] == pytest.approx(4 / 6)
    assert data["confusion"] == {
        "judge_pass_label_pass": 2,
        "judge_pass_label_fail": 1,
        "judge_fail_label_pass": 1,
        "judge_fail_label_fail": 2,
    }
    assert data["labels"] == "binary" and data["spearman"] is None
    assert [r["row"] for r in data["results"]] == [2, 3, 4, 5, 6, 7]
    _run(llm, path, "--no-cache")
    assert llm.calls() == 12


def test_numeric_labels_give_spearman(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = lambda api, body: verdict(score=int(tagged(body, "response")))
    rows = [{"question": "q", "response": str(r), "label": h} for r, h in
            [(1, 1.0), (2, 2.0), (4, 3.0), (3, 4.0), (5, 5.0)]]  # fmt: skip
    path = tmp_path / "labelled.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    args = ["--metric", "rubric", "--options", '{"criteria": "numbers"}', "--json"]
    result = runner.invoke(
        app,
        ["judge", "check", str(path), "--judge", "openai:judge", "--judge-base-url",
         llm.base_url, *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["labels"] == "numeric" and data["kappa"] is None
    assert data["spearman"] == pytest.approx(0.9)  # 1 - 6 * 2 / (5 * 24)


def test_rows_the_metric_cannot_score_are_reported(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = exact_match_judge
    path = tmp_path / "labelled.csv"
    path.write_text(BINARY + "No reference here,x,,pass\n", encoding="utf-8")
    llm.queue("garbage", "garbage", "garbage")  # the first row: no valid verdict
    result = _run(llm, path, "--concurrency", "1")
    assert result.exit_code == 0, result.output
    assert "7 rows, 5 scored, 1 errors, 1 not run" in result.stdout
    assert "row 8: not run: no ground truth (Answer) for this turn" in result.stdout
    assert "row 2: error: the judge gave no valid verdict after 2 re-asks" in result.stdout


def test_a_judge_that_always_fails_exits_1(llm: ScriptedLLM, tmp_path: Path) -> None:
    llm.responder = lambda api, body: Fault(status=400)
    path = tmp_path / "labelled.csv"
    path.write_text(BINARY, encoding="utf-8")
    result = _run(llm, path)
    assert result.exit_code == 1
    assert "0 scored, 6 errors" in result.stdout and "HTTP 400" in result.stdout


@pytest.mark.parametrize(
    ("text", "args", "message"),
    [
        ("question,response\nq,r\n", [], "no label column"),
        ("question,response,label\nq,r,maybe\n", [], "'maybe' is neither pass/fail"),
        ("question,response,label\nq,r,\n", [], "row 2, column label: no label"),
        (BINARY, ["--metric", "corectness"], "did you mean 'correctness'"),
        (BINARY, ["--judge", "gpt-4o"], "expected openai:MODEL or anthropic:MODEL"),
        (BINARY, ["--options", "[1]"], "give a JSON object"),
        (BINARY, ["--options", '{"threshold": 7}'], "--options threshold"),
        (BINARY, ["--metric", "turn_relevancy"], "scores whole conversations"),
    ],
)
def test_user_errors_exit_2(
    llm: ScriptedLLM, tmp_path: Path, text: str, args: list[str], message: str
) -> None:
    path = tmp_path / "labelled.csv"
    path.write_text(text, encoding="utf-8")
    result = _run(llm, path, *args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert llm.calls() == 0


def test_a_missing_key_for_a_hosted_judge_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "labelled.csv"
    path.write_text(BINARY, encoding="utf-8")
    args = ["judge", "check", str(path), "--metric", "correctness", "--judge", "openai:gpt-4o"]
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "OPENAI_API_KEY is not set" in result.stderr
