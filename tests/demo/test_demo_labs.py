"""examples/travel/lab1.csv and lab2.csv agree with the travel agent: every row's Answer and
expected tool calls match the agent's exact reply, except the rows its flaws break."""

from __future__ import annotations

import csv
import json
from itertools import groupby
from pathlib import Path
from typing import Any

from assay.demo import TravelAgent

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "travel"


def _rows(name: str) -> list[dict[str, str]]:
    with (EXAMPLES / name).open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _mismatches(reply: dict[str, Any], row: dict[str, str]) -> list[str]:
    expected = [(c["name"], c["arguments"]) for c in json.loads(row["expected_tool_calls"])]
    actual = [(i["name"], i["args"]) for i in reply["tool_invocations"]]
    wrong = []
    if reply["response"] != row["Answer"]:
        wrong.append("answer")
    if actual != expected:
        wrong.append("tools")
    return wrong


def test_lab1_single_turn_rows() -> None:
    agent = TravelAgent()
    rows = _rows("lab1.csv")
    assert list(rows[0]) == ["Question", "Answer", "expected_tool_calls"]
    results = {
        row["Question"]: _mismatches(agent.respond(row["Question"], f"lab1-{n}"), row)
        for n, row in enumerate(rows)
    }
    assert {q: wrong for q, wrong in results.items() if wrong} == {
        "Are there flights to Zurich from Geneva?": ["answer", "tools"],  # flaw 4
        "Book the cheapest hotel in Zurich.": ["answer", "tools"],  # flaw 2
    }
    assert len(results) == 9


def test_lab2_multi_turn_rows() -> None:
    agent = TravelAgent()
    rows = _rows("lab2.csv")
    assert list(rows[0]) == ["session_id", "turn_id", "Question", "Answer", "expected_tool_calls"]
    results = {}
    for session, turns in groupby(rows, key=lambda row: row["session_id"]):
        ordered = sorted(turns, key=lambda row: int(row["turn_id"]))
        for row in ordered:
            reply = agent.respond(row["Question"], f"lab2-{session}")
            results[(session, int(row["turn_id"]))] = _mismatches(reply, row)
    assert {key: wrong for key, wrong in results.items() if wrong} == {
        ("session_001", 3): ["answer", "tools"],  # flaw 3: searched Basel, not Zurich
        ("session_002", 4): ["answer"],  # flaw 1: forgot "cheap", listed in ID order
        ("session_002", 5): ["answer", "tools"],  # flaw 2: Motel One (12), not Ibis (4)
    }
    assert len(results) == 10
    assert len({session for session, _ in results}) == 3
