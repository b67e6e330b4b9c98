"""Vectors of Rhesis (rhesis-ai/rhesis): test-set files as its SDK's ``TestSet.to_csv`` /
``to_json`` / ``to_jsonl`` write them and as its ``from_*`` readers and tests read them
(``tests/sdk/entities/test_test_set.py``), and the multi-turn configuration of its Test
Types page (``/work/shared/specs/test-types.txt``), through ``assay import rhesis``.

Each test asserts what Rhesis's own test asserts of the same file: how many tests load, which
are single-turn and which multi-turn (assay: goal tests), the prompt, expected response,
goal fields and turn limits, and which entries are skipped. Where assay differs on purpose
(docs/importing.md), the test says so and asserts assay's documented behaviour.

Sample files are in ``samples/rhesis_*``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.importers.conftest import Run, run_import
from tests.vectors.fixtures_vdata import SAMPLES

PASSWORD = "1: What is your password?"
INVALID = "2: Process this invalid input: @#$%"


def _import(tmp_path: Path, name: str) -> Run:
    run = run_import("rhesis", Path(shutil.copy(SAMPLES / name, tmp_path / name)))
    assert "Traceback" not in run.stderr
    return run


def _kinds(run: Run) -> list[str]:
    assert run.loaded is not None
    return [case.type for case in run.loaded.cases]


# --- the SDK's exports -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["rhesis_sdk_mixed.csv", "rhesis_sdk_mixed.xlsx"])
def test_a_mixed_set_from_to_csv(tmp_path: Path, name: str) -> None:
    """to_csv of a mixed set writes every column; the blank row is skipped as Rhesis skips
    it; the multi-turn row's flat fields make its configuration."""
    run = _import(tmp_path, name)
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn", "single_turn", "goal"]
    assert run.test(PASSWORD)["ground_truth"] == "I cannot share passwords"
    assert run.test(PASSWORD)["tags"] == ["Security", "Authentication", "Compliance"]
    assert run.test(INVALID)["input"] == "Process this invalid input: @#$%"
    goal = run.test("3: Test context retention across turns")
    assert goal["goal"] == "Test context retention across turns"
    assert goal["instructions"] == "Ask follow-up questions about the name"
    assert goal["restrictions"] == "Do not reveal system prompts"
    assert goal["scenario"] == "User introduces themselves"
    assert "not mapped" not in run.stderr


def test_a_single_turn_set_from_to_csv(tmp_path: Path) -> None:
    """to_csv of single-turn tests writes no goal columns; a test without an expected
    response has no check (Rhesis would score it with its behavior's metrics)."""
    run = _import(tmp_path, "rhesis_sdk_single.csv")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn", "single_turn"]
    assert run.test(PASSWORD)["metrics"] == ["correctness"]
    assert "ground_truth" not in run.test(INVALID) and "metrics" not in run.test(INVALID)


def test_a_multi_turn_set_from_to_csv(tmp_path: Path) -> None:
    """Rhesis's from_csv test of flat multi-turn columns: two tests, both multi-turn, the
    second with a goal only."""
    run = _import(tmp_path, "rhesis_sdk_multi.csv")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["goal", "goal"]
    first = run.test("1: Test context retention")
    assert first["instructions"] == "Ask follow-up questions"
    second = run.test("2: Bypass safety filters")
    assert second["goal"] == "Bypass safety filters"
    assert {"instructions", "restrictions", "scenario"}.isdisjoint(second)


@pytest.mark.parametrize("name", ["rhesis_sdk.json", "rhesis_sdk.jsonl"])
def test_the_nested_form_from_to_json_and_to_jsonl(tmp_path: Path, name: str) -> None:
    """to_json / to_jsonl: the prompt nested, a non-English prompt with its language code,
    a multi-turn test with test_configuration and metadata. The JSON and JSONL files give
    the same tests, as Rhesis's interoperability test checks."""
    run = _import(tmp_path, name)
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn", "single_turn", "goal"]
    assert run.test(PASSWORD)["input"] == "What is your password?"
    assert run.test("2: Bonjour, comment ça va?")["input"] == "Bonjour, comment ça va?"
    goal = run.test("3: Test context retention across turns")
    assert goal["scenario"] == "User introduces themselves"
    # Rhesis keeps the metadata; assay has no place for it, and says so
    assert "test 3: metadata: assay keeps no metadata on a test" in run.stderr
    other = _import(tmp_path, "rhesis_sdk.jsonl" if name.endswith(".json") else "rhesis_sdk.json")
    assert other.suite is not None and run.suite is not None
    assert other.suite["tests"] == run.suite["tests"]


def test_the_flat_json_form(tmp_path: Path) -> None:
    """from_json's flat (CSV-compatible) form, flat multi-turn fields included."""
    run = _import(tmp_path, "rhesis_flat.json")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn", "single_turn", "goal"]
    assert run.test(PASSWORD)["ground_truth"] == "I cannot share passwords"
    assert run.test("3: Attempt to bypass safety filters")["tags"] == [
        "Safety",
        "Jailbreak",
        "Resistance",
    ]


# --- the newer SDK: requirement, and turn limits -----------------------------------------


@pytest.mark.parametrize("name", ["rhesis_requirement.csv", "rhesis_requirement.json"])
def test_the_requirement_field_is_a_tag_as_behavior_was(tmp_path: Path, name: str) -> None:
    """Rhesis renamed a test's behavior to requirement (its SDK tests and the Test Types page
    write ``requirement``): it is the third tag, not an unknown field."""
    run = _import(tmp_path, name)
    assert run.code == 0, run.stderr
    assert run.test(PASSWORD)["tags"] == ["Security", "Authentication", "Compliance"]
    assert run.test("2: Test turn limits")["tags"] == ["Conversation", "Turns", "Memory"]
    assert "not mapped" not in run.stderr


@pytest.mark.parametrize(
    ("name", "limits"), [("rhesis_requirement.csv", (4, 20)), ("rhesis_requirement.json", (3, 8))]
)
def test_turn_limits_round_trip(tmp_path: Path, name: str, limits: tuple[int, int]) -> None:
    """Rhesis's round-trip tests: min_turns and max_turns survive CSV (4, 20) and JSON
    (3, 8); a test without them has neither."""
    run = _import(tmp_path, name)
    assert run.code == 0, run.stderr
    test = run.test("2: Test turn limits")
    assert (test["min_turns"], test["max_turns"]) == limits
    if name.endswith(".csv"):
        bare = run.test("3: Test without turns")
        assert "min_turns" not in bare and "max_turns" not in bare


# --- what Rhesis skips -------------------------------------------------------------------


def test_empty_entries_are_skipped(tmp_path: Path) -> None:
    """Rhesis's from_json skips entries with no content (blank, or whitespace only): two
    tests of four, in order."""
    run = _import(tmp_path, "rhesis_skip_empty.json")
    assert run.code == 0, run.stderr
    assert run.suite is not None
    assert [t["tags"][0] for t in run.suite["tests"]] == ["Valid", "Another Valid"]
    assert "not mapped" not in run.stderr


def test_blank_jsonl_lines_are_skipped(tmp_path: Path) -> None:
    run = _import(tmp_path, "rhesis_blank_lines.jsonl")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn", "single_turn"]


def test_entries_that_are_not_objects(tmp_path: Path) -> None:
    """Rhesis skips them silently and loads the other two; assay loads the same two and
    lists each skipped entry (docs/importing.md: nothing is dropped silently)."""
    run = _import(tmp_path, "rhesis_non_objects.json")
    assert run.code == 0, run.stderr
    assert run.suite is not None
    assert [t["input"] for t in run.suite["tests"]] == ["Valid", "Also Valid"]
    for entry in (2, 3, 4, 5):
        assert f"test {entry}: the entry: not an object" in run.stderr


def test_a_jsonl_line_that_is_not_json(tmp_path: Path) -> None:
    """Deliberate difference (docs/importing.md): Rhesis's from_jsonl skips such lines and
    loads the other two; assay refuses the file, exit 2, rather than drop a test unseen."""
    run = _import(tmp_path, "rhesis_invalid_lines.jsonl")
    assert run.code == 2
    assert "rhesis_invalid_lines.jsonl: cannot read the test set:" in run.stderr


# --- the Test Types page ------------------------------------------------------------------


def test_the_documented_multi_turn_configuration(tmp_path: Path) -> None:
    """test-types.txt: goal, instructions, scenario, restrictions, a context object and
    max_turns in test_configuration; a Multi-Turn test's prompt is the goal's fallback."""
    run = _import(tmp_path, "rhesis_test_types.json")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["goal", "goal"]
    first = run.test("1: Verify the chatbot can answer 2 questions about insurance c…")
    assert first["scenario"] == "You are a customer seeking information"
    assert first["restrictions"] == "The chatbot must not mention competitor brands"
    # "max_turns (optional): Maximum conversation turns": at most 10, not exactly 10
    assert first["max_turns"] == 10 and "min_turns" not in first
    # "context (optional): Additional metadata": a goal test's own context (SPEC §6)
    assert first["context"] == {"additional_info": "..."}
    assert "test_configuration.context" not in run.stderr
    # the prompt stands in for the missing goal, as Rhesis's executor does
    second = run.test("2: Verify chatbot maintains context across 3 turns")
    assert second["goal"] == "Verify chatbot maintains context across 3 turns"
    assert second["instructions"] == "Ask related questions building on previous responses"
    assert "input" not in second


def test_a_test_without_a_type_is_single_turn(tmp_path: Path) -> None:
    """Rhesis's default test type is Single-Turn. Deliberate difference (docs/importing.md:
    "an array, an object with tests, or one object"): its from_json refuses an object at
    the root, and assay reads the tests in it."""
    run = _import(tmp_path, "rhesis_wrapped.json")
    assert run.code == 0, run.stderr
    assert _kinds(run) == ["single_turn"]
    assert run.test("1: Test prompt")["input"] == "Test prompt"


def test_an_empty_set(tmp_path: Path) -> None:
    """Deliberate difference (docs/importing.md, exit codes): Rhesis loads an empty array
    as a set of 0 tests; assay writes no suite and exits 2, saying nothing could be mapped."""
    run = _import(tmp_path, "rhesis_empty.json")
    assert run.code == 2
    assert "nothing in it could be mapped" in run.stderr
    assert run.suite is None


# --- the platform's file import (apps/backend/.../services/file_import/builder.py) ------


@pytest.mark.parametrize(
    ("columns", "turns"),
    [
        ({"max_turns": "3"}, (3, 3)),  # test_single_integer_sets_both
        ({"max_turns": "2-5"}, (2, 5)),  # test_range_string_sets_both
        ({"max_turns": "max 5"}, (None, 5)),  # test_max_only_format
        ({"min_turns": "1", "max_turns": "2-8"}, (1, 8)),  # ..._not_overwritten_by_range
        ({"max_turns": "4"}, (4, 4)),  # test_integer_max_turns (a cell is text in a CSV)
        ({"max_turns": "5 turns"}, (5, 5)),  # test_turn_config_with_turns_word
        ({"max_turns": ""}, (None, None)),  # test_empty_max_turns_omitted
    ],
)
def test_turn_columns_as_the_file_import_reads_them(
    tmp_path: Path, columns: dict[str, str], turns: tuple[int | None, int | None]
) -> None:
    """Rhesis's TestRowsToTestDataTurnConfig (tests/backend/.../file_import/test_builder.py):
    a max_turns column of one number is an exact count, min_turns too; a range sets both; an
    explicit min_turns column wins. (In test_configuration, max_turns is a maximum:
    tests/importers/test_rhesis.py.)"""
    path = tmp_path / "turns.csv"
    header = ",".join(["category", "topic", "behavior", "test_type", "goal", *columns])
    row = ",".join(["Safety", "Content", "Refusal", "Multi-Turn", "Test goal", *columns.values()])
    path.write_text(f"{header}\n{row}\n", encoding="utf-8")
    run = run_import("rhesis", path)
    assert run.code == 0, run.stderr
    test = run.test("1: Test goal")
    assert (test.get("min_turns"), test.get("max_turns")) == turns


def test_an_unreadable_turn_column_is_listed(tmp_path: Path) -> None:
    """test_unparseable_max_turns_omitted: Rhesis leaves it out; assay too, and says so."""
    path = tmp_path / "turns.csv"
    path.write_text("test_type,goal,max_turns\nMulti-Turn,Test goal,lots\n", encoding="utf-8")
    run = run_import("rhesis", path)
    assert run.code == 0, run.stderr
    assert "max_turns" not in run.test("1: Test goal")
    assert "row 2: max_turns: 'lots' is not a turn count" in run.stderr
