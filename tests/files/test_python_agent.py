"""A python agent with a ``files`` keyword gets each turn's files; a two-argument agent still
runs, and a turn with files fails with the reason. What was sent is in ``processed_files``,
per turn and rolled up in turn order, in the stored report."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

import assay
from assay.store import open_store
from tests.files.samples import MARKDOWN, PDF_PAGES


def _suite(folder: Path, target: str, tests: list[dict[str, Any]], **extra: Any) -> Path:
    path = folder / "suite.yaml"
    # every reply of the agent is a JSON list: the metric checks that it answered
    checks = [{"metric": "contains", "value": "["}]
    suite = {"name": "files", "target": {"python": target}, "metrics": checks, **extra}
    suite["tests"] = tests
    path.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_single_turn_test_sends_markdown_pdf_xlsx_and_png_to_the_agent(
    tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    written = ["docs/policy.md", "docs/contract.pdf", "docs/expenses.xlsx", "docs/screenshot.png"]
    tests = [{"name": "four", "input": "read these", "files": written}]
    report = assay.run(_suite(tmp_path, f"{agent_module}:respond", tests), store=store_url)
    [result] = report.results
    assert (result.status, result.errors) == ("passed", [])
    got = json.loads(result.agent_response or "")
    assert [(f["name"], f["mime_type"]) for f in got] == [
        ("policy.md", "text/markdown"),
        ("contract.pdf", "application/pdf"),
        ("expenses.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"),
        ("screenshot.png", "image/png"),
    ]
    md, pdf, xlsx, png = got
    assert md["text"] == MARKDOWN and md["bytes"] is None
    assert pdf["text"] == "\n\n".join(PDF_PAGES)
    assert xlsx["text"] == (
        "## Sheet1\n\n| Item | Amount |\n|---|---|\n| Taxi | 23.5 |\n| Hotel | 180 |"
    )
    assert png["text"] is None and png["head"] == "89504e47"
    assert png["bytes"] == samples["png"].stat().st_size

    files = [f.model_dump() for f in result.processed_files]
    assert [f["path"] for f in files] == written
    assert [f["read_as"] for f in files] == ["text", "pdf", "xlsx", "image"]
    assert [f["sha256"] for f in files] == [_sha(samples[k]) for k in ("md", "pdf", "xlsx", "png")]
    assert [f["bytes"] for f in files] == [
        samples[k].stat().st_size for k in ("md", "pdf", "xlsx", "png")
    ]
    assert files[1]["pages"] == 2 and files[2]["sheets"] == ["Sheet1"]
    assert [f["text_chars"] for f in files] == [
        len(MARKDOWN),
        len("\n\n".join(PDF_PAGES)),
        len(xlsx["text"]),
        None,
    ]
    with open_store(store_url) as store:  # stored and read back as it was
        assert store.load_report(report.run.id).results[0].processed_files == result.processed_files


def test_a_multi_turn_test_sends_each_turns_files_and_rolls_them_up_in_turn_order(
    tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    tests = [
        {
            "name": "dialogue",
            "turns": [
                {"input": "the contract", "files": ["docs/contract.pdf"]},
                {"input": "no file"},
                {
                    "input": "and these",
                    "files": [
                        "docs/screenshot.png",
                        {"path": "docs/policy.md", "mime_type": "text/plain", "as": "binary"},
                    ],
                },
            ],
        }
    ]
    report = assay.run(_suite(tmp_path, f"{agent_module}:respond", tests), store=store_url)
    [result] = report.results
    turns = result.turns or []
    received = [[f["name"] for f in json.loads(t.response or "")] for t in turns]
    assert received == [["contract.pdf"], [], ["screenshot.png", "policy.md"]]
    as_binary = json.loads(turns[2].response or "")[1]
    assert as_binary == {
        "name": "policy.md",
        "mime_type": "text/plain",
        "text": None,
        "bytes": len(MARKDOWN.encode()),
        "head": MARKDOWN.encode()[:4].hex(),
    }
    assert [[f.name for f in t.processed_files] for t in turns] == received
    assert [f.name for f in result.processed_files] == [
        "contract.pdf",
        "screenshot.png",
        "policy.md",
    ]
    assert [f.read_as for f in result.processed_files] == ["pdf", "image", "binary"]


def test_a_two_argument_agent_runs_and_a_turn_with_files_fails_with_the_reason(
    tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    tests = [
        {"name": "plain", "input": "hi", "ground_truth": "answered without files"},
        {"name": "with-a-file", "input": "hi", "files": ["docs/policy.md"]},
    ]
    path = _suite(tmp_path, f"{agent_module}:two_arguments", tests, metrics=["equality"])
    report = assay.run(path, store=store_url)
    by_name = {r.test_name: r for r in report.results}
    assert by_name["plain"].status == "passed"
    failed = by_name["with-a-file"]
    assert failed.status in ("failed", "error") and not failed.passed
    [error] = failed.errors
    assert "attaches 1 file(s)" in error and "takes no files keyword" in error
    assert f"{agent_module}:two_arguments" in error and "files=None" in error


def test_the_dashboard_lists_each_turns_files(
    tmp_path: Path, samples: dict[str, Path], agent_module: str, store_url: str
) -> None:
    from fastapi.testclient import TestClient

    from assay.web import Settings, create_app

    turns = [
        {"input": "one", "files": ["docs/policy.md"]},
        {"input": "two", "files": ["docs/expenses.xlsx"]},
    ]
    tests = [{"name": "dialogue", "turns": turns}]
    report = assay.run(_suite(tmp_path, f"{agent_module}:respond", tests), store=store_url)
    run = report.run.id
    app = create_app(Settings(store_url=store_url, root=tmp_path))
    with TestClient(app, base_url="http://127.0.0.1:8484") as client:
        [item] = client.get(f"/api/runs/{run}/results").json()["items"]
        html = client.get(f"/runs/{run}/tests/{item['id']}").text
    xlsx_sha = _sha(samples["xlsx"])
    size = samples["xlsx"].stat().st_size
    policy = html.index("docs/policy.md (text/markdown")
    workbook = html.index(
        f"docs/expenses.xlsx (application/vnd.openxmlformats-officedocument.spreadsheetml.sheet,"
        f" {size:,} bytes; Markdown tables, sheet Sheet1, 70 characters; sha256 "
        f"{xlsx_sha[:12]}…)"
    )
    assert html.count("files sent") == 2 and policy < workbook  # turn 0's, then turn 1's
