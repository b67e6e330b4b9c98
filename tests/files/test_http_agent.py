"""The http target sends a turn's files in the body where the template says ``"{{ files }}"``
(a JSON list: name, mime_type, text, base64 for bytes), to a real agent on 127.0.0.1; a
dataset's files column attaches files to its rows. Run with the real CLI, whose JSON,
Markdown and HTML reports list what was sent."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import yaml

from tests.cli.conftest import RunCli
from tests.files.samples import MARKDOWN, PDF_PAGES, write_samples
from tests.targets.agent_server import AgentServer

BODY = {"query": "{{ input }}", "session_id": "{{ session_id }}", "files": "{{ files }}"}


def test_files_reach_an_agent_as_json_and_the_reports_list_them(
    tmp_path: Path, samples: dict[str, Path], agent: AgentServer, assay_cli: RunCli
) -> None:
    data = tmp_path / "data"
    write_samples(data / "attachments")  # the dataset's files are relative to the dataset
    (data / "rows.csv").write_text(
        "Question,files\n"
        "what is in the picture?,attachments/screenshot.png ; attachments/policy.md\n"
        "no file here,\n",
        encoding="utf-8",
    )
    suite = {
        "name": "http-files",
        "target": {"http": {"url": agent.chat_url, "body": BODY}},
        "metrics": [{"metric": "contains", "value": "turn"}],
        "datasets": ["data/rows.csv"],
        "tests": [
            {
                "name": "dialogue",
                "turns": [
                    {
                        "input": "read the policy",
                        "files": ["docs/policy.md", "docs/screenshot.png"],
                    },
                    {"input": "and the rest", "files": ["docs/contract.pdf", "docs/expenses.xlsx"]},
                ],
            }
        ],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite, sort_keys=False))
    done = assay_cli(
        "run", "suite.yaml", "--store", f"sqlite:///{tmp_path / 'runs.db'}",
        "--out", "report.json", "--out", "report.md", "--out", "report.html",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

    sent = {body["query"]: body["files"] for body in agent.bodies()}
    png = base64.b64encode(samples["png"].read_bytes()).decode()
    assert sent["read the policy"] == [
        {"name": "policy.md", "mime_type": "text/markdown", "text": MARKDOWN, "base64": None},
        {"name": "screenshot.png", "mime_type": "image/png", "text": None, "base64": png},
    ]
    pdf, xlsx = sent["and the rest"]
    assert (pdf["name"], pdf["text"], pdf["base64"]) == (
        "contract.pdf",
        "\n\n".join(PDF_PAGES),
        None,
    )
    assert xlsx["text"].startswith("## Sheet1\n\n| Item | Amount |")
    assert [f["name"] for f in sent["what is in the picture?"]] == ["screenshot.png", "policy.md"]
    assert sent["no file here"] == []

    report = json.loads((tmp_path / "report.json").read_text())
    by_name = {r["test_name"]: r for r in report["results"]}
    dialogue = by_name["dialogue"]
    assert [[f["name"] for f in t["processed_files"]] for t in dialogue["turns"]] == [
        ["policy.md", "screenshot.png"],
        ["contract.pdf", "expenses.xlsx"],
    ]
    assert [f["name"] for f in dialogue["processed_files"]] == [
        "policy.md",
        "screenshot.png",
        "contract.pdf",
        "expenses.xlsx",
    ]
    row = by_name["rows:row2"]
    assert [f["path"] for f in row["processed_files"]] == [
        "attachments/screenshot.png",
        "attachments/policy.md",
    ]
    assert by_name["rows:row3"]["processed_files"] == []

    pdf_sha = hashlib.sha256(samples["pdf"].read_bytes()).hexdigest()
    pdf_line = (
        f"docs/contract.pdf (application/pdf, {samples['pdf'].stat().st_size:,} bytes; "
        f"PDF text, 2 pages, {len(pdf['text'])} characters; sha256 {pdf_sha[:12]}…)"
    )
    markdown = (tmp_path / "report.md").read_text()
    assert "### Files sent" in markdown
    assert f"| dialogue | 1 | {pdf_line} |" in markdown
    assert "| rows:row2 | 0 | attachments/screenshot.png (image/png," in markdown
    html = (tmp_path / "report.html").read_text()
    assert "files sent" in html and pdf_line in html


def test_files_with_a_body_that_does_not_send_them_fail_the_turn_with_the_fix(
    tmp_path: Path, samples: dict[str, Path], agent: AgentServer, assay_cli: RunCli
) -> None:
    suite = {
        "name": "http-no-files",
        "target": {"http": {"url": agent.chat_url}},  # the default body: no files
        "tests": [{"name": "t", "input": "hi", "files": ["docs/policy.md"]}],
    }
    (tmp_path / "suite.yaml").write_text(yaml.safe_dump(suite))
    done = assay_cli("run", "suite.yaml", "--store", f"sqlite:///{tmp_path / 'runs.db'}")
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'add "files": "{{ files }}" to target.http.body' in done.stdout
    assert agent.requests == []  # never sent without its files


def test_a_changed_file_changes_the_runs_fingerprint(
    tmp_path: Path, samples: dict[str, Path]
) -> None:
    from assay.runner.plan import plan_run
    from assay.runner.request import fingerprint

    suite = {
        "name": "fp",
        "target": {"python": "nowhere:agent"},
        "tests": [{"name": "t", "input": "hi", "files": ["docs/policy.md"]}],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite))
    plan = plan_run(path, [], None, None)
    assert samples["md"].resolve() in [f.resolve() for f in plan.files]
    before = fingerprint(plan.files)
    samples["md"].write_text(MARKDOWN.replace("40", "45"), encoding="utf-8")
    assert fingerprint(plan_run(path, [], None, None).files) != before
