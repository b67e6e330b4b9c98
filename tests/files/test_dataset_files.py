"""A dataset's files column, in CSV, XLSX and JSONL (where it may also be a JSON list),
attaches files to its rows, relative to the dataset file; the rows of one conversation each
send their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import assay
from tests.datasets.conftest import FORMATS, write_table


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_row_sends_the_files_its_cell_names(
    fmt: str, tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    rows = [
        ["c1", 1, "first", "docs/policy.md ; docs/screenshot.png"],
        ["c1", 2, "second", "docs/contract.pdf"],
        ["c1", 3, "third", None],
    ]
    data = write_table(fmt, tmp_path / "rows", ["session_id", "turn_id", "Question", "files"], rows)
    report = assay.run(dataset=data, target=f"{agent_module}:respond", store=store_url)
    [result] = report.results
    turns = result.turns or []
    received = [[f["name"] for f in json.loads(t.response or "")] for t in turns]
    assert received == [["policy.md", "screenshot.png"], ["contract.pdf"], []]
    assert [f.path for f in result.processed_files] == [
        "docs/policy.md",
        "docs/screenshot.png",
        "docs/contract.pdf",
    ]


def test_a_jsonl_row_may_list_its_files(
    tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    data = tmp_path / "rows.jsonl"
    row = {"Question": "look", "files": ["docs/screenshot.png", "docs/expenses.xlsx"]}
    data.write_text(json.dumps(row) + "\n")
    report = assay.run(dataset=data, target=f"{agent_module}:respond", store=store_url)
    [result] = report.results
    assert [f.read_as for f in result.processed_files] == ["image", "xlsx"]
