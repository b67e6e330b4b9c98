"""Session grouping and turn order, in every format: conversations in order of first
appearance, turns by numeric turn_id (10 after 9), the others after them in file order, a
row without a session_id is a conversation of one, duplicated turn ids are errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from assay.datasets import Conversation, DatasetRow, load_dataset, validate_dataset
from assay.errors import DatasetError

Writer = Callable[..., Path]
HEADER = ["session_id", "turn_id", "Question", "Answer"]


def _turns(conversation: Conversation) -> list[str]:
    return [row.question for row in conversation.rows]


def test_turns_are_ordered_by_turn_id_as_numbers(table: Writer) -> None:
    rows = [[1, turn, f"turn {turn}", "A"] for turn in (10, 9, 1, 2)]
    dataset = load_dataset(table(HEADER, rows))
    assert [_turns(c) for c in dataset.conversations] == [["turn 1", "turn 2", "turn 9", "turn 10"]]


def test_numeric_turn_ids_written_as_text_still_compare_as_numbers(table: Writer) -> None:
    rows = [["s", "10", "ten", "A"], ["s", "9", "nine", "A"], ["s", "2.5", "two and a half", "A"]]
    dataset = load_dataset(table(HEADER, rows))
    assert _turns(dataset.conversations[0]) == ["two and a half", "nine", "ten"]
    assert dataset.warnings == []


def test_a_non_numeric_turn_id_runs_after_the_numbered_ones_with_a_warning(
    table: Writer, where: Callable[[int], str]
) -> None:
    rows = [
        ["s", "10", "first in file", "A"],
        ["s", "intro", "second", "A"],
        ["s", "9", "third", "A"],
    ]
    dataset = load_dataset(table(HEADER, rows))
    assert _turns(dataset.conversations[0]) == ["third", "first in file", "second"]
    assert dataset.warnings == [
        f"session 's' has turn_id 'intro' on {where(1)}, which is not a number, so that turn "
        "runs after the numbered ones, in file order; give every turn a number to order them "
        "all by turn_id"
    ]


def test_each_session_is_ordered_on_its_own(table: Writer) -> None:
    rows = [
        ["a", "b", "a:b", "A"],
        ["n", 2, "n:2", "A"],
        ["a", "a", "a:a", "A"],
        ["n", 1, "n:1", "A"],
    ]
    dataset = load_dataset(table(HEADER, rows))
    assert [_turns(c) for c in dataset.conversations] == [["a:b", "a:a"], ["n:1", "n:2"]]
    assert len(dataset.warnings) == 1
    assert dataset.warnings[0].startswith("session 'a' has turn_id 'b' on ")


def test_a_blank_turn_id_runs_after_the_numbered_ones(
    table: Writer, where: Callable[[int], str]
) -> None:
    """The reference service's test_unparseable_turn_id_falls_back_to_file_order: turn ids
    2, None, 1 run as 1, 2, None."""
    rows = [["s", 2, "x", "A"], ["s", None, "y", "A"], ["s", 1, "z", "A"]]
    dataset = load_dataset(table(HEADER, rows))
    assert _turns(dataset.conversations[0]) == ["z", "x", "y"]
    assert dataset.warnings == [
        f"session 's' has a blank turn_id on {where(1)}, which is not a number, so that turn "
        "runs after the numbered ones, in file order; give every turn a number to order them "
        "all by turn_id"
    ]


def test_sessions_keep_the_order_of_first_appearance_and_blank_rows_are_their_own(
    table: Writer, where: Callable[[int], str]
) -> None:
    rows = [
        ["beta", 1, "b1", "A"],
        [None, None, "lone 1", "A"],
        ["alpha", 1, "a1", "A"],
        ["beta", 2, "b2", "A"],
        [None, None, "lone 2", "A"],
        ["alpha", 2, "a2", "A"],
    ]
    dataset = load_dataset(table(HEADER, rows))
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        ("beta", ["b1", "b2"]),
        (None, ["lone 1"]),
        ("alpha", ["a1", "a2"]),
        (None, ["lone 2"]),
    ]
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 6 rows, 4 conversations (grouped by session_id)"
    )
    assert dataset.shape.conversations == 4
    first = dataset.conversations[0].rows[0]
    assert first == DatasetRow(
        row_number=int(where(0).split()[1]),
        question="b1",
        answer="A",
        context=None,
        expected_tools=None,
        session_id="beta",
        turn_id="1",
    )


def test_validate_counts_the_same_conversations_as_load(table: Writer) -> None:
    rows = [["x", 1, "Q", "A"], [None, None, "Q", "A"], ["x", 2, "Q", "A"], ["y", 1, "Q", "A"]]
    path = table(HEADER, rows)
    shape = validate_dataset(path)
    assert (shape.rows, shape.conversations) == (4, 3)
    assert len(load_dataset(path).conversations) == 3


def test_session_one_as_number_and_as_text_is_one_session(fmt: str, table: Writer) -> None:
    if fmt == "csv":
        pytest.skip("CSV cells are text only: see the CSV test below")
    # XLSX stores every number as a float (1 → 1.0); JSONL has the number 1 and the text "1".
    rows = [[1, 1, "first", "A"], ["1", 2, "second", "A"], [1.0, 3, "third", "A"]]
    dataset = load_dataset(table(HEADER, rows))
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        ("1", ["first", "second", "third"])
    ]
    assert [r.turn_id for r in dataset.conversations[0].rows] == ["1", "2", "3"]
    assert dataset.shape.shape_line() == (
        "MULTI-TURN — 3 rows, 1 conversations (grouped by session_id)"
    )


def test_csv_session_ids_are_text_compared_as_written(csv_file: Callable[..., Path]) -> None:
    path = csv_file(
        "session_id,turn_id,Question\n1,1,first\n1 ,2,second\n1.0,1,other\n01,1,another\n"
    )
    dataset = load_dataset(path)
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        ("1", ["first", "second"]),
        ("1.0", ["other"]),
        ("01", ["another"]),
    ]


def test_session_ids_are_compared_as_strings(table: Writer) -> None:
    rows = [["S1", 1, "a", "A"], ["s1", 1, "b", "A"], [" S1 ", 2, "c", "A"]]
    dataset = load_dataset(table(HEADER, rows))
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        ("S1", ["a", "c"]),
        ("s1", ["b"]),
    ]


def test_a_duplicated_turn_id_in_a_session_is_an_error(
    table: Writer, where: Callable[[int], str]
) -> None:
    rows = [["s", 1, "a", "A"], ["s", 2, "b", "A"], ["t", 2, "c", "A"], ["s", 2, "d", "A"]]
    path = table(HEADER, rows)
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    unit = where(0).split()[0]
    assert [str(p) for p in info.value.problems] == [
        f"{path}: {where(3)}, column turn_id: turn_id '2' appears twice in session 's' "
        f"({unit}s {where(1).split()[1]} and {where(3).split()[1]}): give each turn of a "
        "conversation its own turn_id"
    ]
    with pytest.raises(DatasetError):
        load_dataset(path)


def test_turn_ids_equal_as_numbers_are_duplicates(
    table: Writer, where: Callable[[int], str]
) -> None:
    path = table(HEADER, [["s", "1", "a", "A"], ["s", "1.0", "b", "A"]])
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    assert info.value.problems[0].path == f"{where(1)}, column turn_id"
    assert "turn_id '1.0' appears twice in session 's'" in info.value.problems[0].message


def test_repeated_turn_ids_without_session_ids_are_fine(table: Writer) -> None:
    shape = validate_dataset(table(HEADER, [[None, 1, "a", "A"], [None, 1, "b", "A"]]))
    assert shape.shape_line() == "SINGLE-TURN — 2 rows"


def test_no_turn_id_column_keeps_file_order(table: Writer) -> None:
    rows = [["s", "third", "A"], ["s", "first", "A"], ["s", "second", "A"]]
    dataset = load_dataset(table(["session_id", "Question", "Answer"], rows))
    assert _turns(dataset.conversations[0]) == ["third", "first", "second"]


def test_single_turn_file_is_one_conversation_per_row(table: Writer) -> None:
    dataset = load_dataset(table(["Question", "Answer"], [["a", "1"], ["b", "2"], ["c", "3"]]))
    assert dataset.shape.shape_line() == "SINGLE-TURN — 3 rows"
    assert dataset.shape.conversations == 3
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        (None, ["a"]),
        (None, ["b"]),
        (None, ["c"]),
    ]


def test_one_row_uses_the_singular(table: Writer) -> None:
    assert validate_dataset(table(["Question"], [["a"]])).shape_line() == "SINGLE-TURN — 1 rows"
    shape = validate_dataset(
        table(HEADER, [["s", 1, "a", "A"], ["s", 2, "b", "B"], ["t", 1, "c", "C"]])
    )
    assert shape.shape_line() == "MULTI-TURN — 3 rows, 2 conversations (grouped by session_id)"
    # one session of one row assembles no conversation: the file is single-turn
    assert validate_dataset(table(HEADER, [["s", 1, "a", "A"]])).shape_line() == (
        "SINGLE-TURN — 1 rows"
    )


def test_the_spec_example_shape_line(table: Writer) -> None:
    rows = [["session_001", t, f"q{t}", "A"] for t in range(1, 6)]
    rows += [["session_002", t, f"r{t}", "A"] for t in range(1, 5)]
    shape = validate_dataset(table(HEADER, rows))
    assert shape.shape_line() == "MULTI-TURN — 9 rows, 2 conversations (grouped by session_id)"
    assert shape.to_dict() == {
        "file": shape.source,
        "shape": "MULTI-TURN — 9 rows, 2 conversations (grouped by session_id)",
        "kind": "MULTI-TURN",
        "rows": 9,
        "conversations": 2,
        "columns": {
            "session_id": "session_id",
            "turn_id": "turn_id",
            "question": "Question",
            "answer": "Answer",
        },
        "ignored_columns": [],
        "warnings": [],
        "errors": [],
    }


# the two example files of specs/ground-truth-datasets.txt, as written there
SPEC = Path(__file__).parent / "spec"
SPEC_LAB1 = (SPEC / "lab1.csv").read_text(encoding="utf-8")
SPEC_LAB2 = (SPEC / "lab2.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (SPEC_LAB1, "SINGLE-TURN \u2014 2 rows"),
        (SPEC_LAB2, "MULTI-TURN \u2014 2 rows, 1 conversations (grouped by session_id)"),
        # a row without a session_id beside a conversation is a conversation of one
        (SPEC_LAB2 + ',,Any museums in Basel?,Kunstmuseum Basel,\n',
         "MULTI-TURN \u2014 3 rows, 2 conversations (grouped by session_id)"),
        # every session_id different: no conversation is assembled
        (SPEC_LAB2.replace("session_001,2", "session_002,2"), "SINGLE-TURN \u2014 2 rows"),
    ],
)  # fmt: skip
def test_the_specs_own_examples(tmp_path: Path, text: str, line: str) -> None:
    path = tmp_path / "lab.csv"
    path.write_text(text, encoding="utf-8")
    assert validate_dataset(path).shape_line() == line
    assert load_dataset(path).shape.shape_line() == line


def test_a_session_id_spelled_as_missing_is_no_session(
    table: Writer, where: Callable[[int], str]
) -> None:
    """As pandas reads ``nan``, ``None``, ``NULL``, ``N/A`` (the reference service's
    test_blank_session_ids_are_not_grouped_together, its NaN written by ``csv``)."""
    rows = [
        ["nan", 1, "a", "A"],
        ["nan", 2, "b", "A"],
        ["NULL", 1, "c", "A"],
        ["s", 1, "d", "A"],
        ["s", 2, "e", "A"],
        ["nana", 1, "f", "A"],
    ]
    dataset = load_dataset(table(HEADER, rows))
    assert [(c.session_id, _turns(c)) for c in dataset.conversations] == [
        (None, ["a"]),
        (None, ["b"]),
        (None, ["c"]),
        ("s", ["d", "e"]),
        ("nana", ["f"]),
    ]
    assert dataset.warnings == [
        f"session_id 'nan' on {where(0)} reads as missing, as pandas and the reference dataset "
        f"service read it, so that {where(0).split()[0]} is a conversation of its own (and 2 "
        f"more {where(0).split()[0]}s); give it a real session_id to group it"
    ]


def test_session_ids_all_spelled_as_missing_are_not_called_blank(table: Writer) -> None:
    dataset = load_dataset(table(HEADER, [["nan", 1, "a", "A"], ["nan", 2, "b", "A"]]))
    assert len(dataset.conversations) == 2
    assert not any("blank in every row" in warning for warning in dataset.warnings)
    assert any("reads as missing" in warning for warning in dataset.warnings)
