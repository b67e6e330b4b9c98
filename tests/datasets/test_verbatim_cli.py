"""``assay run --dataset``: a Question reaches the agent, and the result, as written (spaces
around it included), and an Answer is kept as written and scored by the default equality,
which collapses whitespace itself. CSV, XLSX and JSONL alike."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli
from tests.datasets.conftest import Writer

RECORDER = """
import json, pathlib

def respond(query, session_id):
    with pathlib.Path("received.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(query) + "\\n")
    return {"response": "x"}
"""


def test_question_and_answer_reach_the_run_verbatim(
    assay_cli: RunCli, tmp_path: Path, table: Writer
) -> None:
    (tmp_path / "recorder.py").write_text(RECORDER)
    rows = [["  ANSWER: x  ", "  X  "], ["\tsecond\n", " y "]]
    name = table(["Question", "Answer"], rows).name
    proc = assay_cli("run", "--dataset", name, "--target", "recorder:respond", "--out", "r.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # "x" is not " y "
    received = [json.loads(line) for line in (tmp_path / "received.jsonl").read_text().splitlines()]
    # the two tests run concurrently: the order they reach the agent in is not fixed
    assert sorted(received) == ["\tsecond\n", "  ANSWER: x  "]
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    got = [(r["test_input"], r["ground_truth"], r["passed"]) for r in results]
    # default equality: case-insensitive, whitespace collapsed, so "x" equals "  X  "
    assert got == [("  ANSWER: x  ", "  X  ", True), ("\tsecond\n", " y ", False)]
