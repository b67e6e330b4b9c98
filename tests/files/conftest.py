"""The four sample files in a folder of the test's own, an agent module that answers with
what it received, the HTTP agent (``agent``) and the scripted OpenAI server (``llm``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.api.conftest import agent, store_url  # noqa: F401 (the HTTP agent; a store)
from tests.cli.conftest import assay_cli  # noqa: F401 (the CLI fixture)
from tests.fakes.llm_server import ScriptedLLM, scripted_llm
from tests.files.samples import write_samples

# An agent that answers with a JSON list of what it got: each file's name, type, text, and
# for bytes their length and their first bytes in hex (a PNG starts 89504e47).
AGENT = """
import json


def respond(query, session_id, files=None):
    return json.dumps([
        {
            "name": f["name"],
            "mime_type": f["mime_type"],
            "text": f["text"],
            "bytes": None if f["data"] is None else len(f["data"]),
            "head": None if f["data"] is None else f["data"][:4].hex(),
        }
        for f in files or []
    ])


def two_arguments(query, session_id):
    return "answered without files"
"""


@pytest.fixture
def samples(tmp_path: Path) -> dict[str, Path]:
    return write_samples(tmp_path / "docs")


@pytest.fixture
def agent_module(tmp_path: Path) -> str:
    """The agent's module name, next to the suites written in ``tmp_path``."""
    name = f"files_agent_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(AGENT, encoding="utf-8")
    return name


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server
