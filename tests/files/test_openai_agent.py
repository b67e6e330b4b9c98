"""The openai target sends images as ``image_url`` parts (data URLs) and documents as text
parts after the message, to the scripted OpenAI-compatible server; later turns replay the
earlier turns' files in the history."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import yaml

import assay
from tests.fakes.llm_server import ScriptedLLM
from tests.files.samples import MARKDOWN, PDF_PAGES


def test_images_and_documents_become_content_parts_in_the_turn_and_the_history(
    tmp_path: Path, samples: dict[str, Path], llm: ScriptedLLM, store_url: str
) -> None:
    llm.queue("first answer", "second answer")
    suite = {
        "name": "openai-files",
        "target": {"openai": {"base_url": llm.base_url, "model": "m", "api_key_env": None}},
        "metrics": [{"metric": "contains", "value": "answer"}],
        "tests": [
            {
                "name": "dialogue",
                "turns": [
                    {"input": "what is shown?", "files": ["docs/screenshot.png", "docs/policy.md"]},
                    {"input": "and the contract?", "files": ["docs/contract.pdf"]},
                ],
            }
        ],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    report = assay.run(path, store=store_url)
    [result] = report.results
    assert result.status == "passed", result.errors

    png_url = "data:image/png;base64," + base64.b64encode(samples["png"].read_bytes()).decode()
    first_user: dict[str, Any] = {
        "role": "user",
        "content": [
            {"type": "text", "text": "what is shown?"},
            {"type": "image_url", "image_url": {"url": png_url}},
            {
                "type": "text",
                "text": f"[attached file policy.md (text/markdown)]\n{MARKDOWN}",
            },
        ],
    }
    first, second = (r.body["messages"] for r in llm.requests)
    assert first == [first_user]
    assert second == [
        first_user,  # the history keeps the first turn's files
        {"role": "assistant", "content": "first answer"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "and the contract?"},
                {
                    "type": "text",
                    "text": "[attached file contract.pdf (application/pdf)]\n"
                    + "\n\n".join(PDF_PAGES),
                },
            ],
        },
    ]
    assert [f.name for f in result.processed_files] == [
        "screenshot.png",
        "policy.md",
        "contract.pdf",
    ]


def test_a_turn_without_files_is_a_plain_string_message(
    tmp_path: Path, llm: ScriptedLLM, store_url: str
) -> None:
    suite = {
        "name": "openai-plain",
        "target": {"openai": {"base_url": llm.base_url, "model": "m", "api_key_env": None}},
        "tests": [{"name": "t", "input": "hi", "ground_truth": "ok"}],
    }
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(suite))
    assay.run(path, store=store_url)
    [request] = llm.requests
    assert request.body["messages"] == [{"role": "user", "content": "hi"}]
