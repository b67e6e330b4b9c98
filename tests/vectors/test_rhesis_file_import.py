"""Vectors of Rhesis's platform file import (rhesis-ai/rhesis,
``tests/backend/services/file_import/``: ``test_parsers.py``, ``test_transforms.py``,
``test_service.py``), through ``assay import rhesis``.

Each test feeds assay the file (or the row, as a JSON entry) of the Rhesis test it names and
asserts what that test asserts: the rows Rhesis reads and the prompt or goal it keeps. Where
assay differs on purpose (docs/importing.md: a set with nothing to import exits 2), the test
says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest

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
