"""Datasets through the real CLI: ``assay validate`` and ``assay run --dataset`` without a
suite file."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import RunCli

AGENT = """
memory = {}

def respond(query, session_id):
    said = memory.setdefault(session_id, [])
    said.append(query)
    if query == "Book the cheapest hotel.":
        if not any("hotel" in q for q in said[:-1]):
            return {"response": "Which hotel?", "tool_invocations": []}
        return {"response": "Holiday Inn Basel booked",
                "tool_invocations": [{"name": "book_hotel", "args": {"hotel_id": 8}}]}
    if "hotel" in query:
        return {"response": "Holiday Inn (ID 8), Hyatt (ID 3)",
                "tool_invocations": [{"name": "search_hotels", "args": {"location": "Basel"}}]}
    return {"response": "PARIS" if "France" in query else "no idea"}
"""

CSV = (
    "session_id,turn_id,Question,Answer,expected_tool_calls\n"
    's1,2,Book the cheapest hotel.,Holiday Inn Basel booked,"[{""name"": ""book_hotel"", '
    '""arguments"": {""hotel_id"": 8}}]"\n'
    's1,1,I like a cheap hotel.,"Holiday Inn (ID 8), Hyatt (ID 3)","[{""name"": '
    '""search_hotels"", ""arguments"": {""location"": ""Basel""}}]"\n'
    ",,Capital of France?,Paris,\n"
    ",,Book the cheapest hotel.,Holiday Inn Basel booked,\n"
)


def test_validate_prints_the_shape_line_first(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "lab.csv").write_text(CSV)
    proc = assay_cli("validate", "lab.csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "MULTI-TURN \u2014 4 rows, 3 conversations (grouped by session_id)"
    )
    as_json = json.loads(assay_cli("validate", "lab.csv", "--json").stdout)
    assert (as_json["kind"], as_json["rows"], as_json["conversations"]) == ("MULTI-TURN", 4, 3)


def test_validate_refuses_bad_tool_json_with_row_and_column(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "bad.csv").write_text("Question,expected_tool_calls\nhi,[{oops\n")
    proc = assay_cli("validate", "bad.csv")
    assert proc.returncode == 2
    assert "bad.csv" in proc.stderr and "row 2" in proc.stderr
    assert "expected_tool_calls" in proc.stderr and "Traceback" not in proc.stderr


def test_a_misspelt_session_column_warns_it_runs_single_turn(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    (tmp_path / "lab.csv").write_text("Session_ID,Question\na,hi\na,there\n")
    proc = assay_cli("validate", "lab.csv")
    assert proc.returncode == 0
    assert proc.stdout.splitlines()[0] == "SINGLE-TURN \u2014 2 rows"
    assert "did you mean session_id?" in proc.stdout


def test_run_a_dataset_without_a_suite(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "hotel_agent.py").write_text(AGENT)
    (tmp_path / "lab.csv").write_text(CSV)
    proc = assay_cli(
        "run", "--dataset", "lab.csv", "--target", "hotel_agent:respond", "--out", "r.json"
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr  # the lone "Book" row fails
    report = json.loads((tmp_path / "r.json").read_text())
    results = {r["test_name"]: r for r in report["results"]}
    assert list(results) == ["lab:s1", "lab:row4", "lab:row5"]  # order of first appearance
    conv = results["lab:s1"]
    assert conv["test_type"] == "multi_turn" and conv["passed"] is True
    # turn_id orders the turns: row 3 (turn 1) runs before row 2 (turn 2), in one session
    assert [t["input"] for t in conv["turns"]] == [
        "I like a cheap hotel.",
        "Book the cheapest hotel.",
    ]
    assert conv["turns"][1]["arg_match_details"][0]["matched_call_index"] == 0
    assert conv["turns"][1]["metric_results"][0]["metric_name"] == "equality"
    # default equality is case-insensitive: "PARIS" passes against "Paris"
    assert results["lab:row4"]["passed"] is True
    lone = results["lab:row5"]
    assert lone["test_type"] == "single_turn" and lone["passed"] is False
    assert lone["agent_response"] == "Which hotel?"  # a conversation of one has no memory


def test_dataset_test_names_never_collide(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "echo.py").write_text("def respond(q, s):\n    return q\n")
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "data.csv").write_text("Question\nhello\n")
    # a session id that reads like the name of a row without one
    (tmp_path / "clash.csv").write_text("session_id,Question\n,hi\nrow2,one\nrow2,two\n")
    proc = assay_cli(
        "run",
        "--dataset",
        "a/data.csv",
        "--dataset",
        "b/data.csv",
        "--dataset",
        "clash.csv",
        "--target",
        "echo:respond",
        "--out",
        "r.json",
    )
    assert proc.returncode == 0, proc.stderr
    names = [r["test_name"] for r in json.loads((tmp_path / "r.json").read_text())["results"]]
    assert names == ["a/data:row2", "b/data:row2", "clash:row2", "clash:session:row2"]


def test_a_suite_conversation_metric_scores_each_dataset_conversation_once(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """A suite-level trajectory metric with --dataset made every row fail with
    NotImplementedError: dataset rows now compile as the suite's own tests do."""
    (tmp_path / "hotel_agent.py").write_text(AGENT)
    (tmp_path / "lab.csv").write_text(CSV)
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'hotel_agent:respond'}\n"
        "metrics: [equality, trajectory_exact_match]\n"
    )
    proc = assay_cli("run", "suite.yaml", "--dataset", "lab.csv", "--out", "r.json")
    assert "NotImplementedError" not in proc.stdout + proc.stderr
    results = {r["test_name"]: r for r in json.loads((tmp_path / "r.json").read_text())["results"]}
    conv = results["lab:s1"]
    # once over the conversation: its rows' tool calls in turn order, which the agent made
    (trajectory,) = [
        m for m in conv["metric_results"] if m["metric_name"] == "trajectory_exact_match"
    ]
    assert (trajectory["score"], trajectory["passed"]) == (1.0, True)
    for turn in conv["turns"]:  # and never per turn
        assert [m["metric_name"] for m in turn["metric_results"]] == ["equality"]
    assert conv["passed"] is True
    # a row without an expected_tool_calls cell has no trajectory to compare with: absent
    row4 = results["lab:row4"]
    assert [m["metric_name"] for m in row4["metric_results"]] == ["equality"]


def test_a_python_target_is_imported_from_the_datasets_folder(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "folder_agent.py").write_text("def respond(q, s):\n    return 'Paris'\n")
    (data / "lab.csv").write_text("Question,Answer\nCapital of France?,Paris\n")
    proc = assay_cli(
        "run", "--dataset", "data/lab.csv", "--target", "folder_agent:respond", "--quiet"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout + proc.stderr


DISTINCT = (
    "session_id,turn_id,Question,Answer\n"
    "a,1,Capital of France?,Paris\n"
    "b,1,Capital of Italy?,Rome\n"
    "c,1,Capital of Spain?,Madrid\n"
)


def test_a_file_whose_session_ids_all_differ_is_single_turn(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """No two rows share a session_id: no conversation is assembled, so the file is
    reported, and runs, as single-turn."""
    (tmp_path / "distinct.csv").write_text(DISTINCT)
    text = assay_cli("validate", "distinct.csv")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == "SINGLE-TURN \u2014 3 rows"
    assert (
        "warning: no two rows share a session_id, so no conversation has more than one turn: "
        "this file will run as SINGLE-TURN" in text.stdout
    )
    as_json = json.loads(assay_cli("validate", "distinct.csv", "--json").stdout)
    assert (as_json["shape"], as_json["kind"], as_json["rows"]) == (
        "SINGLE-TURN \u2014 3 rows",
        "SINGLE-TURN",
        3,
    )
    (tmp_path / "capitals.py").write_text(
        "def respond(q, s):\n    return q.split()[-1].rstrip('?').replace('France', 'Paris')\n"
    )
    proc = assay_cli(
        "run", "--dataset", "distinct.csv", "--target", "capitals:respond", "--out", "r.json"
    )
    results = json.loads((tmp_path / "r.json").read_text())["results"]
    # single-turn results carry no turns list (the contract's legacy shape)
    assert [(r["test_name"], r["test_type"], r["turns"]) for r in results] == [
        ("distinct:a", "single_turn", None),
        ("distinct:b", "single_turn", None),
        ("distinct:c", "single_turn", None),
    ]
    assert [r["passed"] for r in results] == [True, False, False]
    assert proc.returncode == 1  # Italy and Spain are answered wrongly on purpose


def test_a_dataset_file_given_twice_is_refused_naming_both_places(
    assay_cli: RunCli, tmp_path: Path
) -> None:
    """The suite's ``datasets:`` and ``--dataset`` (or either twice) naming one file: its
    rows would run twice under the same names. Refused, exit 2, before anything runs."""
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "lab1.csv").write_text("Question,Answer\nhi,hi\n")
    (tmp_path / "agent.py").write_text(
        "open('called', 'w').close()\ndef respond(query, session_id):\n    return query\n"
    )
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntarget: {python: 'agent:respond'}\ndatasets: [data/lab1.csv]\n"
    )
    (tmp_path / "twice.yaml").write_text(
        "name: s\ntarget: {python: 'agent:respond'}\ndatasets: [data/lab1.csv, ./data/lab1.csv]\n"
    )
    once = "give each dataset file once, or its rows would run twice under the same test names"
    cases = {
        ("suite.yaml", "--dataset", "data/lab1.csv"): "options: --dataset: data/lab1.csv is the "
        f"same file as the suite's datasets[0] (suite.yaml): {once}",
        ("twice.yaml",): f"twice.yaml: datasets[1]: ./data/lab1.csv is the same file as "
        f"datasets[0]: {once}",
        (
            "--dataset",
            "data/lab1.csv",
            "--dataset",
            "data/../data/lab1.csv",
            "--target",
            "agent:respond",
        ): "options: --dataset: data/../data/lab1.csv is the same file as an "
        f"earlier --dataset (data/lab1.csv): {once}",
    }
    for args, message in cases.items():
        proc = assay_cli("run", *args, "--store", "sqlite://")
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert proc.stderr == f"error: {message}\n"
        assert not (tmp_path / "called").exists()  # the agent was never imported
    proc = assay_cli("run", "suite.yaml", "--store", "sqlite://")
    assert proc.returncode == 0, proc.stdout + proc.stderr  # once: it runs
