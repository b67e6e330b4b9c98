"""A JSONL line whose object gives a key twice is refused, naming the file, the line and the
key. Before, ``json.loads`` kept the last value silently: ``{"answer": "a", "answer": "b"}``
tested against "b"."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.cli.conftest import RunCli
from tests.datasets.test_hostile_files import refused, refused_by_validate_and_run

from assay._json import load_bounded
from assay.datasets import validate_dataset
from assay.errors import DatasetError
from assay.limits import ValueLimitError

TWICE = "is given twice in one object, and only the last would count: remove one of them"


def test_validate_and_run_refuse_the_line(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text(
        '{"question": "q1", "answer": "a"}\n\n{"question": "q2", "answer": "a", "answer": "b"}\n'
    )
    line = refused_by_validate_and_run(assay_cli, tmp_path, "data.jsonl")
    assert line == f"data.jsonl: line 3: the key 'answer' {TWICE}"


def test_every_such_line_is_named_nested_objects_too(tmp_path: Path) -> None:
    path = tmp_path / "data.jsonl"
    path.write_text(
        '{"question": "q1", "tools": [{"name": "f", "arguments": {"n": 1, "n": 2}}]}\n'
        '{"question": "q2", "Question": "q3"}\n'  # two names of one column: not one key
        '{"question": "q4", "meta": {"k": 1}, "meta": {"k": 1}}\n'
    )
    with pytest.raises(DatasetError) as info:
        validate_dataset(path)
    assert [str(p) for p in info.value.problems] == [
        f"{path}: line 1: the key 'n' {TWICE}",
        f"{path}: line 3: the key 'meta' {TWICE}",
    ]


def test_an_import_reads_a_jsonl_test_set_alike(assay_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "set.jsonl").write_text('{"prompt": {"content": "a", "content": "b"}}\n')
    line = refused(assay_cli("import", "rhesis", "set.jsonl"))
    assert line == f"set.jsonl: cannot read the test set: line 1: the key 'content' {TWICE}"
    (tmp_path / "set.json").write_text('[{"prompt_content": "a", "prompt_content": "b"}]')
    line = refused(assay_cli("import", "rhesis", "set.json"))
    assert line == f"set.json: cannot read the test set: the key 'prompt_content' {TWICE}"


def test_only_when_asked_and_json_loads_errors_are_kept() -> None:
    text = '{"a": 1, "a": 2}'
    assert load_bounded(text) == {"a": 2}  # the baseline report, a cell of tool calls
    with pytest.raises(ValueLimitError, match=f"the key 'a' {TWICE}"):
        load_bounded(text, unique_keys=True)
    assert load_bounded('{"a": {"b": [1, {"c": 2}]}, "b": 1}', unique_keys=True) == {
        "a": {"b": [1, {"c": 2}]},
        "b": 1,
    }
    for bad in ('\ufeff{"a": 1}', '{"a": ', "[" * 200_000):
        with pytest.raises(ValueError) as plain:
            load_bounded(bad)
        with pytest.raises(ValueError) as unique:
            load_bounded(bad, unique_keys=True)
        assert (type(unique.value), str(unique.value)) == (type(plain.value), str(plain.value))
