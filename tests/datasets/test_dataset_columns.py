"""Column rules: aliases in any capitalisation, session_id/turn_id only literally, near
misses warned about, unknown columns ignored, header errors. Every format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import load_dataset, validate_dataset
from assay.errors import DatasetError

Writer = Callable[..., Path]

NO_ANSWER = (
    "no Answer column (also accepted: Expected_Answer, Expected_Output, Expected): the "
    "comparison metrics that need an expected answer (equality, numeric, correctness and the "
    "like) will not run; safety, performance and reasoning metrics still will when "
    "the suite lists them (pii, latency, relevance with --judge); without any, each row is not run"
)
SINGLE = (
    "this file will run as SINGLE-TURN (session_id and turn_id are read literally, in lower case)"
)


@pytest.mark.parametrize(
    "name", ["Question", "question", "QUESTION", "qUeStIoN", "Query", "query", "INPUT", "Input"]
)
def test_question_aliases_in_any_capitalisation(table: Writer, name: str) -> None:
    dataset = load_dataset(table([name, "Answer"], [["What is 2+2?", "4"]]))
    assert dataset.column_map == {"question": name, "answer": "Answer"}
    assert [(r.question, r.answer) for r in dataset.rows] == [("What is 2+2?", "4")]
    assert dataset.warnings == []


@pytest.mark.parametrize(
    "name",
    ["Answer", "answer", "ANSWER", "Expected_Answer", "expected_answer", "EXPECTED_OUTPUT",
     "Expected_Output", "Expected", "expected"],
)  # fmt: skip
def test_answer_aliases_in_any_capitalisation(table: Writer, name: str) -> None:
    dataset = load_dataset(table(["Question", name], [["Capital of France?", "Paris"]]))
    assert dataset.column_map == {"question": "Question", "answer": name}
    assert dataset.rows[0].answer == "Paris"
    assert dataset.warnings == []


@pytest.mark.parametrize("name", ["context", "Context", "CONTEXT"])
def test_context_in_any_capitalisation(table: Writer, name: str) -> None:
    dataset = load_dataset(table(["Question", "Answer", name], [["Q", "A", "Doc one."]]))
    assert dataset.column_map["context"] == name
    assert dataset.rows[0].context == "Doc one."


@pytest.mark.parametrize(
    "name", ["expected_tool_calls", "Expected_Tool_Calls", "EXPECTED_TOOL_CALLS", "tools", "Tools"]
)
def test_tool_calls_aliases_in_any_capitalisation(table: Writer, name: str) -> None:
    cell = '[{"name": "lookup", "arguments": {"q": "x"}}]'
    dataset = load_dataset(table(["Question", "Answer", name], [["Q", "A", cell]]))
    assert dataset.column_map["expected_tool_calls"] == name
    assert dataset.rows[0].expected_tools == [{"name": "lookup", "args": {"q": "x"}}]


def test_surrounding_whitespace_in_a_header_is_insignificant(table: Writer) -> None:
    header = ["  Question ", " answer", "session_id ", " turn_id"]
    dataset = load_dataset(table(header, [["Q1", "A1", "s", 1], ["Q2", "A2", "s", 2]]))
    assert dataset.column_map == {
        "question": "Question",
        "answer": "answer",
        "session_id": "session_id",
        "turn_id": "turn_id",
    }
    assert (
        dataset.shape.shape_line() == "MULTI-TURN — 2 rows, 1 conversations (grouped by session_id)"
    )


def test_literal_session_and_turn_columns_make_a_multi_turn_file(table: Writer) -> None:
    rows = [["s1", 1, "Q1", "A1"], ["s1", 2, "Q2", "A2"], ["s2", 1, "Q3", "A3"]]
    shape = validate_dataset(table(["session_id", "turn_id", "Question", "Answer"], rows))
    assert shape.shape_line() == "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    assert shape.kind == "MULTI-TURN"
    assert shape.warnings == []


@pytest.mark.parametrize(
    "name",
    ["Session_ID", "SESSION_ID", "Session_id", "SessionId", "sessionid", "session id",
     "Session-Id", "session-id", "conversation_id", "Conversation ID", "session"],
)  # fmt: skip
def test_session_id_near_miss_runs_single_turn_with_a_warning(table: Writer, name: str) -> None:
    rows = [["s1", 1, "Q1", "A1"], ["s1", 2, "Q2", "A2"]]
    shape = validate_dataset(table([name, "turn_id", "Question", "Answer"], rows))
    assert shape.shape_line() == "SINGLE-TURN — 2 rows"
    assert shape.conversations == 2
    assert "session_id" not in shape.column_map
    assert shape.ignored_columns == [name]
    assert shape.warnings == [
        f"column '{name}' not recognised: did you mean session_id? {SINGLE}",
        "column turn_id has no effect without a session_id column: every row runs as a "
        "conversation of its own",
    ]


def test_session_id_near_miss_beside_the_real_column_is_only_ignored(table: Writer) -> None:
    header = ["session_id", "Session_ID", "turn_id", "Question", "Answer"]
    rows = [["a", "x", 1, "Q1", "A1"], ["a", "y", 2, "Q2", "A2"]]
    shape = validate_dataset(table(header, rows))
    assert shape.shape_line() == "MULTI-TURN — 2 rows, 1 conversations (grouped by session_id)"
    assert shape.warnings == [
        "column 'Session_ID' not recognised: did you mean session_id? it is ignored; rows are "
        "grouped by the session_id column"
    ]


@pytest.mark.parametrize(
    "name",
    ["Turn_ID", "TURN_ID", "TurnId", "turn id", "Turn-Id", "turn", "Turn", "turn_number",
     "Turn Number", "turn_no"],
)  # fmt: skip
def test_turn_id_near_miss_warns_that_turns_run_in_file_order(table: Writer, name: str) -> None:
    rows = [["s1", 2, "Second?", "A2"], ["s1", 1, "First?", "A1"]]
    dataset = load_dataset(table(["session_id", name, "Question", "Answer"], rows))
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 2 rows, 1 conversations (grouped by session_id)"
    )
    assert [r.question for r in dataset.conversations[0].rows] == ["Second?", "First?"]
    assert dataset.warnings == [
        f"column '{name}' not recognised: did you mean turn_id? turns will run in file order "
        "(turn_id is read literally, in lower case)",
        "no turn_id column: each conversation's turns run in the order of the rows in the "
        "file; sorting or editing a spreadsheet reorders them silently, so add a turn_id column",
    ]


def test_missing_answer_column_names_the_metrics_that_will_not_run(table: Writer) -> None:
    shape = validate_dataset(table(["Question"], [["Q1"], ["Q2"]]))
    assert shape.shape_line() == "SINGLE-TURN — 2 rows"
    assert shape.warnings == [NO_ANSWER]
    assert load_dataset(table(["Question"], [["Q1"]])).rows[0].answer is None


def test_answer_near_miss_is_warned_about(table: Writer) -> None:
    shape = validate_dataset(table(["Question", "Expected Answer"], [["Q", "A"]]))
    assert shape.warnings == [
        "column 'Expected Answer' not recognised: did you mean Expected_Answer? it is ignored",
        NO_ANSWER,
    ]
    shape = validate_dataset(table(["Question", "Answer", "ground_truth"], [["Q", "A", "B"]]))
    assert shape.warnings == [
        "column 'ground_truth' not recognised: did you mean Answer? it is ignored; the Answer "
        "column is 'Answer'"
    ]


def test_tool_calls_near_miss_says_tools_will_not_be_checked(table: Writer) -> None:
    shape = validate_dataset(
        table(["Question", "Answer", "Expected Tool Calls"], [["Q", "A", "[]"]])
    )
    assert shape.warnings == [
        "column 'Expected Tool Calls' not recognised: did you mean expected_tool_calls? it is "
        "ignored, so tool calls will not be checked"
    ]


def test_multi_turn_file_without_turn_id_warns(table: Writer) -> None:
    rows = [["s1", "Q1", "A1"], ["s1", "Q2", "A2"], ["", "Q3", "A3"]]
    shape = validate_dataset(table(["session_id", "Question", "Answer"], rows))
    assert shape.shape_line() == "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    assert shape.warnings == [
        "no turn_id column: each conversation's turns run in the order of the rows in the "
        "file; sorting or editing a spreadsheet reorders them silently, so add a turn_id column"
    ]


def test_blank_session_id_column_is_single_turn_with_a_warning(table: Writer) -> None:
    rows = [[None, None, "Q1", "A1"], [None, None, "Q2", "A2"]]
    shape = validate_dataset(table(["session_id", "turn_id", "Question", "Answer"], rows))
    assert shape.shape_line() == "SINGLE-TURN — 2 rows"
    assert shape.warnings == [
        "column session_id is blank in every row: this file will run as SINGLE-TURN"
    ]


def test_unknown_columns_are_kept_aside(table: Writer) -> None:
    dataset = load_dataset(
        table(["Notes", "Question", "Answer", "Category"], [["n", "Q", "A", "c"]])
    )
    assert dataset.column_map == {"question": "Question", "answer": "Answer"}
    assert dataset.shape.ignored_columns == ["Notes", "Category"]
    assert dataset.warnings == []
    assert dataset.rows[0].question == "Q"


def test_column_map_keeps_file_order(table: Writer) -> None:
    header = ["expected_tool_calls", "Answer", "turn_id", "Query", "session_id", "Context"]
    shape = validate_dataset(table(header, [[None, "A", 1, "Q", "s", "ctx"]]))
    assert list(shape.column_map.items()) == [
        ("expected_tool_calls", "expected_tool_calls"),
        ("answer", "Answer"),
        ("turn_id", "turn_id"),
        ("question", "Query"),
        ("session_id", "session_id"),
        ("context", "Context"),
    ]


def _problems(path: Path) -> list[str]:
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    return [str(p) for p in info.value.problems]


def test_no_question_column_is_an_error(table: Writer) -> None:
    path = table(["Prompt", "Answer"], [["Q", "A"]])
    assert _problems(path) == [
        f"{path}: columns: no Question column (also accepted: Query, Input, in any "
        "capitalisation); the columns are: 'Prompt', 'Answer'; rename 'Prompt' to Question"
    ]


def test_the_same_name_twice_is_an_error(table: Writer) -> None:
    path = table(["Question", "Answer", "question"], [["Q", "A", "Q again"]])
    assert _problems(path) == [
        f"{path}: column question: columns 'Question' and 'question' both give the Question "
        "column: keep one of them"
    ]


@pytest.mark.parametrize(
    ("header", "used", "ignored"),
    [
        (["Query", "Question", "Answer"], "Question", "Query"),  # the better name wins, anywhere
        (["Question", "Query", "Answer"], "Question", "Query"),
        (["Input", "Query", "Answer"], "Query", "Input"),
        (["Question", "Expected", "Answer"], "Question", None),
    ],
)
def test_with_two_names_for_the_question_question_is_used_and_the_other_named(
    table: Writer, header: list[str], used: str, ignored: str | None
) -> None:
    """As the reference service reads such a file: Question first, then Query, then Input;
    the column not used is named in a warning, not an error."""
    cells = {"Question": "from Question", "Query": "from Query", "Input": "from Input"}
    path = table(header, [[cells.get(h, "A") for h in header]])
    dataset = load_dataset(path)
    assert dataset.column_map["question"] == used
    assert dataset.rows[0].question == f"from {used}"
    if ignored is None:  # Expected and Answer: the same rule for the Answer
        assert dataset.column_map["answer"] == "Answer"
        assert dataset.shape.ignored_columns == ["Expected"]
        assert dataset.warnings[0] == (
            "columns 'Answer' and 'Expected' both give the Answer column: 'Answer' is used "
            "and 'Expected' is ignored"
        )
        return
    assert dataset.shape.ignored_columns == [ignored]
    assert dataset.warnings[0] == (
        f"columns {used!r} and {ignored!r} both give the Question column: {used!r} is used "
        f"and {ignored!r} is ignored"
    )


def test_a_column_with_no_name_is_ignored_with_a_warning_naming_it(
    fmt: str, table: Writer, where: Callable[[int], str]
) -> None:
    """pandas' ``to_csv`` writes its index as a first column with no name: not a field, so
    not read, and said so; a gap column between named ones likewise."""
    if fmt == "jsonl":
        pytest.skip("a JSON object has no blank column between keys")
    path = table(["", "Question", "", "Answer"], [["0", "Q", "x", "A"], ["1", "Q2", "", "B"]])
    dataset = load_dataset(path)
    assert [(row.question, row.answer) for row in dataset.rows] == [("Q", "A"), ("Q2", "B")]
    assert dataset.column_map == {"question": "Question", "answer": "Answer"}
    assert dataset.warnings == [
        "column A has no name in the header row: its values are ignored (name the column to "
        "use it)",
        "column C has no name in the header row: its values are ignored (name the column to "
        "use it)",
    ]
