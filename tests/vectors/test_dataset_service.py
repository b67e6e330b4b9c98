"""Vectors of the reference dataset service (the one behind
``/work/shared/specs/ground-truth-datasets.txt``, SPEC §3): its sample ground-truth files and
the behaviour its grouping and column tests check, run through the real ``assay`` command.

Sample files are in ``samples/gt_*``: the Lab 1 (single-turn) and Lab 2 (multi-turn) shapes,
the Lab 2 file as CSV, XLSX and JSONL (9 rows, 2 conversations, rows out of order, turn ids
9 and 10), a mixed file, aliases, a misspelt ``Session_ID``, and the refused files.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import RunCli
from tests.targets.agent_server import AgentServer, Step
from tests.vectors import fixtures_vdata

# the shared fixtures, by name (a conftest here would be shared with the other vector tests)
assay_cli = fixtures_vdata.assay_cli
sample = fixtures_vdata.sample
server = fixtures_vdata.server
_fresh_limiters = fixtures_vdata._fresh_limiters

Sample = Callable[[str], Path]
DASH = "\u2014"
LAB2_LINE = f"MULTI-TURN {DASH} 9 rows, 2 conversations (grouped by session_id)"
LAB2_ORDER = {
    "session_001": [
        "I like a cheap hotel for my 7 day stay.",
        "Book the cheapest hotel.",
        "What is the check-in time?",
        "Cancel that booking.",
    ],
    "session_002": [
        "When is my flight?",
        "Change it to the next day.",
        "What does the change cost?",
        "Is a window seat free?",  # turn 9
        "Thanks for your help.",  # turn 10: after 9, as numbers
    ],
}


def _validate(assay_cli: RunCli, name: str, *flags: str) -> tuple[int, list[str], str]:
    proc = assay_cli("validate", name, *flags)
    return proc.returncode, proc.stdout.splitlines(), proc.stderr


# --- assay validate: the result line -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "line"),
    [
        (
            "gt_lab2_multi_turn.csv",
            f"MULTI-TURN {DASH} 9 rows, 2 conversations (grouped by session_id)",
        ),
        (
            "gt_lab2_multi_turn.xlsx",
            f"MULTI-TURN {DASH} 9 rows, 2 conversations (grouped by session_id)",
        ),
        (
            "gt_lab2_multi_turn.jsonl",
            f"MULTI-TURN {DASH} 9 rows, 2 conversations (grouped by session_id)",
        ),
        ("gt_lab1_single_turn.csv", f"SINGLE-TURN {DASH} 5 rows"),
        # rows without a session_id are conversations of one, and counted
        ("gt_mixed.csv", f"MULTI-TURN {DASH} 5 rows, 4 conversations (grouped by session_id)"),
        ("gt_no_turn_id.csv", f"MULTI-TURN {DASH} 4 rows, 2 conversations (grouped by session_id)"),
        # Session_ID is not session_id: the file quietly becomes single-turn
        ("gt_session_id_misspelt.csv", f"SINGLE-TURN {DASH} 2 rows"),
        ("gt_any_case.csv", f"MULTI-TURN {DASH} 2 rows, 1 conversations (grouped by session_id)"),
        # a session id on every row but no two alike: no conversation is assembled
        ("gt_distinct_sessions.csv", f"SINGLE-TURN {DASH} 3 rows"),
        (
            "gt_turn_near_miss.csv",
            f"MULTI-TURN {DASH} 2 rows, 1 conversations (grouped by session_id)",
        ),
        # as Excel exports it: a BOM, semicolons, CRLF line endings
        ("gt_lab2_excel_export.csv", LAB2_LINE),
    ],
)
def test_the_validate_line_reports_the_shape_the_run_will_use(
    assay_cli: RunCli, sample: Sample, name: str, line: str
) -> None:
    sample(name)
    code, out, err = _validate(assay_cli, name)
    assert code == 0, err
    assert out[0] == line


def test_validate_json_says_the_same(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_lab2_multi_turn.csv")
    proc = assay_cli("validate", "gt_lab2_multi_turn.csv", "--json")
    assert proc.returncode == 0, proc.stderr
    said = json.loads(proc.stdout)
    assert (said["kind"], said["rows"], said["conversations"]) == ("MULTI-TURN", 9, 2)


# --- columns: aliases, capitalisation, which name wins ---------------------------------


def test_aliases_map_to_their_columns(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_aliases.csv")
    code, out, err = _validate(assay_cli, "gt_aliases.csv")
    assert code == 0, err
    assert out[1] == (
        "columns: Query → question, Expected_Output → answer, CONTEXT → context, "
        "tools → expected_tool_calls"
    )
    assert not any(line.startswith("warning:") for line in out)


def test_question_and_answer_in_any_capitalisation(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_any_case.csv")
    code, out, err = _validate(assay_cli, "gt_any_case.csv")
    assert code == 0, err
    assert "QUESTION → question" in out[1] and "answer → answer" in out[1]
    assert "Expected_Tool_Calls → expected_tool_calls" in out[1]


def test_the_column_name_beats_its_alias(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_both_names.csv")
    code, out, err = _validate(assay_cli, "gt_both_names.csv")
    assert code == 0, err
    assert out[1] == "columns: Question → question, Answer → answer"
    assert (
        "warning: columns 'Question' and 'Query' both give the Question column: 'Question' is "
        "used and 'Query' is ignored"
    ) in out


def test_the_winning_column_is_what_the_agent_is_sent(
    assay_cli: RunCli, sample: Sample, server: AgentServer
) -> None:
    sample("gt_both_names.csv")
    proc = assay_cli("run", "--dataset", "gt_both_names.csv", "--target", server.chat_url)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the agent does not echo it
    assert [b["query"] for b in server.bodies()] == ["The question column wins"]


def test_a_misspelt_session_id_is_not_recognised_and_said(
    assay_cli: RunCli, sample: Sample
) -> None:
    sample("gt_session_id_misspelt.csv")
    code, out, err = _validate(assay_cli, "gt_session_id_misspelt.csv")
    assert code == 0, err
    assert "ignored columns: Session_ID, Turn_ID" in out
    assert any(
        line.startswith("warning: column 'Session_ID' not recognised: did you mean session_id?")
        and "SINGLE-TURN" in line
        for line in out
    )


def test_no_answer_is_a_warning_not_an_error(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_no_answer.csv")
    code, out, err = _validate(assay_cli, "gt_no_answer.csv")
    assert code == 0, err
    assert out[0] == f"SINGLE-TURN {DASH} 2 rows"
    assert any(line.startswith("warning: no Answer column") for line in out)


def test_no_turn_id_warns_and_keeps_file_order(assay_cli: RunCli, sample: Sample) -> None:
    sample("gt_no_turn_id.csv")
    code, out, err = _validate(assay_cli, "gt_no_turn_id.csv")
    assert code == 0, err
    assert any(line.startswith("warning: no turn_id column") for line in out)


# --- refused files: exit 2, one line naming the file, the row and the column -------------


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("gt_no_question.csv", "columns: no Question column"),
        ("gt_bad_tools.csv", "row 3, column expected_tool_calls: not valid JSON"),
        (
            "gt_duplicate_turn.csv",
            "row 4, column turn_id: turn_id '2' appears twice in session 's1'",
        ),
        ("gt_header_only.csv", "the file has a header but no data rows"),
    ],
)
def test_unusable_files_exit_2(assay_cli: RunCli, sample: Sample, name: str, said: str) -> None:
    sample(name)
    code, out, err = _validate(assay_cli, name)
    assert code == 2
    assert out == []
    assert err.startswith(f"error: {name}: ")
    assert said in err and "Traceback" not in err


def test_a_refused_file_runs_nothing(
    assay_cli: RunCli, sample: Sample, server: AgentServer
) -> None:
    sample("gt_duplicate_turn.csv")
    proc = assay_cli("run", "--dataset", "gt_duplicate_turn.csv", "--target", server.chat_url)
    assert proc.returncode == 2
    assert server.requests == []


# --- running: grouping, order, one session per conversation, no replay -------------------


def _report(tmp_path: Path) -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = json.loads((tmp_path / "r.json").read_text())["results"]
    return results


def _by_session(server: AgentServer) -> dict[str, list[dict[str, Any]]]:
    sessions: dict[str, list[dict[str, Any]]] = {}
    for body in server.bodies():
        sessions.setdefault(body["session_id"], []).append(body)
    return sessions


@pytest.mark.parametrize(
    "name", ["gt_lab2_multi_turn.csv", "gt_lab2_multi_turn.xlsx", "gt_lab2_multi_turn.jsonl"]
)
def test_lab2_runs_each_conversation_in_turn_order_in_one_session(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path, name: str
) -> None:
    sample(name)
    proc = assay_cli("run", "--dataset", name, "--target", server.chat_url, "--out", "r.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the echoing agent fails equality
    results = _report(tmp_path)
    stem = Path(name).stem
    # conversations in the order of their first row; each a multi-turn test
    assert [r["test_name"] for r in results] == [f"{stem}:session_001", f"{stem}:session_002"]
    assert [r["test_type"] for r in results] == ["multi_turn", "multi_turn"]
    for result, (_, questions) in zip(results, LAB2_ORDER.items(), strict=True):
        assert [t["input"] for t in result["turns"]] == questions
    # per turn: each row keeps its own Answer and expected tools
    first = results[0]["turns"]
    assert [t["ground_truth"] for t in first][:2] == [
        "Cheapest first: Holiday Inn (ID 8), Hyatt (ID 3), Hilton (ID 1)",
        "Holiday Inn Basel booked",
    ]
    assert first[1]["expected_tools"][0]["name"] == "book_hotel"
    # the agent saw each conversation as one session, in turn order, one turn at a time
    sessions = _by_session(server)
    assert len(sessions) == 2
    assert sorted([b["query"] for b in turns] for turns in sessions.values()) == sorted(
        LAB2_ORDER.values()
    )
    for turns in sessions.values():
        # the service sends each turn with the session id and does not replay earlier ones
        assert all(set(b) >= {"query", "session_id"} and "messages" not in b for b in turns)
    # and the agent's own memory shows it: the last turn of session_002 came fifth
    assert results[1]["turns"][4]["response"].startswith("turn 5: Thanks for your help.")


def test_rows_without_a_session_are_conversations_of_one(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    sample("gt_mixed.csv")
    proc = assay_cli(
        "run", "--dataset", "gt_mixed.csv", "--target", server.chat_url, "--out", "r.json"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = _report(tmp_path)
    assert [(r["test_name"], r["test_type"]) for r in results] == [
        ("gt_mixed:row2", "single_turn"),
        ("gt_mixed:trip", "multi_turn"),
        ("gt_mixed:row4", "single_turn"),
        ("gt_mixed:row6", "single_turn"),
    ]
    # the lone "Book the cheapest hotel." has no memory; the one in "trip" has its turn 1
    assert results[2]["agent_response"] == "turn 1: Book the cheapest hotel."
    assert results[1]["turns"][1]["response"] == (
        "turn 2: Book the cheapest hotel. (earlier: I want to go to Basel.)"
    )
    assert len(_by_session(server)) == 4


def test_without_turn_id_turns_run_in_file_order(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    sample("gt_no_turn_id.csv")
    proc = assay_cli(
        "run", "--dataset", "gt_no_turn_id.csv", "--target", server.chat_url, "--out", "r.json"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = _report(tmp_path)
    assert [r["test_name"] for r in results] == ["gt_no_turn_id:s1", "gt_no_turn_id:s2"]
    assert [t["input"] for t in results[0]["turns"]] == [
        "third in my head but first in the file",
        "second in the file",
        "last in the file",
    ]
    # s2 has one row: a conversation of one runs as a single-turn test
    assert results[1]["test_type"] == "single_turn"


def test_a_misspelt_session_id_runs_every_row_on_its_own(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    sample("gt_session_id_misspelt.csv")
    proc = assay_cli(
        "run",
        "--dataset",
        "gt_session_id_misspelt.csv",
        "--target",
        server.chat_url,
        "--out",
        "r.json",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    results = _report(tmp_path)
    assert [r["test_type"] for r in results] == ["single_turn", "single_turn"]
    assert len(_by_session(server)) == 2  # never assembled into one conversation


def test_a_near_miss_turn_column_is_ignored_and_said(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    """``turn`` is not ``turn_id``: validate says so, and the turns run in file order."""
    sample("gt_turn_near_miss.csv")
    code, out, err = _validate(assay_cli, "gt_turn_near_miss.csv")
    assert code == 0, err
    assert any(
        line.startswith("warning: column 'turn' not recognised: did you mean turn_id?")
        for line in out
    )
    proc = assay_cli(
        "run", "--dataset", "gt_turn_near_miss.csv", "--target", server.chat_url, "--out", "r.json"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    (conversation,) = _report(tmp_path)
    assert [t["input"] for t in conversation["turns"]] == [
        "Book the cheapest hotel.",
        "I like a cheap hotel.",
    ]


def test_distinct_session_ids_run_as_single_turn_tests(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    sample("gt_distinct_sessions.csv")
    code, out, _ = _validate(assay_cli, "gt_distinct_sessions.csv")
    assert code == 0
    assert any(line.startswith("warning: no two rows share a session_id") for line in out)
    proc = assay_cli(
        "run",
        "--dataset",
        "gt_distinct_sessions.csv",
        "--target",
        server.chat_url,
        "--out",
        "r.json",
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [r["test_type"] for r in _report(tmp_path)] == ["single_turn"] * 3


def test_tool_call_spellings_the_service_reads(
    assay_cli: RunCli, sample: Sample, server: AgentServer, tmp_path: Path
) -> None:
    """``tool_name`` for ``name``, ``args`` or ``parameters`` for ``arguments``: the agent that
    makes the expected calls, with the expected replies, passes."""
    sample("gt_tool_aliases.csv")
    server.by_query["Book the cheapest hotel."] = Step(
        json={
            "response": "Holiday Inn Basel booked",
            "tool_invocations": [{"name": "book_hotel", "args": {"hotel_id": 8}}],
        }
    )
    server.by_query["Any museums in Basel?"] = Step(
        json={
            "response": "Kunstmuseum Basel",
            "tool_invocations": [
                {"name": "search_trip_recommendations", "args": {"location": "Basel"}}
            ],
        }
    )
    proc = assay_cli(
        "run", "--dataset", "gt_tool_aliases.csv", "--target", server.chat_url, "--out", "r.json"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = _report(tmp_path)
    assert [r["expected_tools"][0]["name"] for r in results] == [
        "book_hotel",
        "search_trip_recommendations",
    ]
    assert all(r["tools_matched"] and r["passed"] for r in results)
