"""Vectors of Rhesis's platform file import (rhesis-ai/rhesis,
``tests/backend/services/file_import/``: ``test_parsers.py``, ``test_transforms.py``,
``test_service.py``), through ``assay import rhesis``.

Each test feeds assay the file (or the row, as a JSON entry) of the Rhesis test it names and
asserts what that test asserts: the rows Rhesis reads and the prompt or goal it keeps. Where
assay differs on purpose (docs/importing.md: a set with nothing to import exits 2), the test
says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.importers.base import Imported
from assay.importers.rhesis import import_rhesis


@pytest.mark.parametrize(
    ("text", "delimiter"),
    [
        # test_parsers.py::TestParseCsvEmptyRows::test_semicolon_delimiter, with a goal to import
        ("category;topic;goal\nSafety;Content;G1\n", ";"),
        # parsers.py sniffs among , ; tab and |
        ("category|topic|goal\nSafety|Content|G1\n", "|"),
        ("category\ttopic\tgoal\nSafety\tContent\tG1\n", "\t"),
        ("category,topic,goal\nSafety,Content,G1\n", ","),
    ],
    ids=["semicolon", "pipe", "tab", "comma"],
)
def test_the_csv_delimiter_is_sniffed_as_rhesis_sniffs_it(
    tmp_path: Path, text: str, delimiter: str
) -> None:
    source = tmp_path / "set.csv"
    source.write_text(text, encoding="utf-8")
    imported = import_rhesis(source)
    assert imported.tests == [{"name": "1: G1", "tags": ["Safety", "Content"], "goal": "G1"}]
    assert not imported.unmapped, delimiter


def test_a_delimiter_inside_a_cell_does_not_split_it(tmp_path: Path) -> None:
    """The sniffer counts each candidate per line: commas in a semicolon file's prompts do
    not make it a comma file, nor semicolons in a comma file's."""
    source = tmp_path / "set.csv"
    source.write_text("category;prompt_content\nSafety;Hi, there\nSafety;Yes, no\n")
    assert [t["input"] for t in import_rhesis(source).tests] == ["Hi, there", "Yes, no"]
    source.write_text("category,prompt_content\nSafety,a;b\nSafety,c;d\n")
    assert [t["input"] for t in import_rhesis(source).tests] == ["a;b", "c;d"]


def _entries(tmp_path: Path, *entries: dict[str, Any]) -> Imported:
    source = tmp_path / "set.json"
    source.write_text(json.dumps(list(entries)), encoding="utf-8")
    return import_rhesis(source)


@pytest.mark.parametrize(
    "entry",
    [
        # test_transforms.py::TestNormalizeRow::test_prompt_content_dict_unwrapped,
        # test_service.py::TestNormalizeRow::test_prompt_content_is_dict
        {"prompt_content": {"content": "actual text"}, "category": "Safety"},
        # test_service.py::TestRowsToTestData::test_double_nested_prompt_flattened
        {"prompt": {"content": {"content": "actual text"}}, "category": "Safety"},
        # test_service.py::TestNormalizeRow::test_double_nested_prompt_content
        {
            "prompt": {"content": {"content": "actual text", "language_code": "fr"}},
            "category": "Safety",
        },
    ],
    ids=["prompt_content object", "prompt in a prompt", "prompt in a prompt, language"],
)
def test_a_nested_prompt_is_unwrapped_as_rhesis_unwraps_it(
    tmp_path: Path, entry: dict[str, Any]
) -> None:
    imported = _entries(tmp_path, entry)
    assert imported.tests == [
        {"name": "1: actual text", "tags": ["Safety"], "input": "actual text"}
    ]
    # Rhesis keeps the language on the prompt; assay, which has none, lists it wherever it is
    listed = [(u.item, u.what) for u in imported.unmapped]
    assert listed == ([("test 1", "language_code")] if "language" in json.dumps(entry) else [])


def test_the_keys_of_a_nested_prompt_win_as_in_rhesis(tmp_path: Path) -> None:
    """test_transforms.py::test_flat_fields_merged_into_existing_prompt: a flat expected
    response joins a nested prompt without one; the nested one's own, and the inner
    prompt's keys over the outer's, win; a prompt_content object's expected response fills
    in a missing flat one. A flat prompt_content beside a nested prompt is not read, as in
    Rhesis, and is listed."""
    imported = _entries(
        tmp_path,
        {"prompt": {"content": "hello"}, "expected_response": "world"},
        {"prompt": {"content": "q2", "expected_response": "a2"}, "expected_response": "no"},
        {
            "prompt": {
                "content": {"content": "q3", "expected_response": "a3"},
                "expected_response": "no",
            }
        },
        {"prompt_content": {"content": "q4", "expected_response": "a4"}},
        {"prompt": {"content": "q5"}, "prompt_content": "not read"},
    )
    pairs = [(t["input"], t.get("ground_truth")) for t in imported.tests]
    assert pairs == [("hello", "world"), ("q2", "a2"), ("q3", "a3"), ("q4", "a4"), ("q5", None)]
    assert [(u.item, u.what) for u in imported.unmapped] == [("test 5", "prompt_content")]
