"""A python target that cannot be called as ``fn(query, session_id)`` is refused when the
target is built (exit 2, nothing run), not once per turn with the same TypeError."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from assay.errors import ConfigError
from assay.targets.python import PythonTarget

AGENTS = """
def one(query):
    return query

def two(query, session_id):
    return query

def with_files(query, session_id, files=None):
    return query

def needs_files(query, session_id, *, files):
    return query

async def anything(*args, **kwargs):
    return "x"

class Agent:
    def __call__(self, query, session_id):
        return query

agent = Agent()
"""


@pytest.fixture
def module(tmp_path: Path) -> tuple[str, Path]:
    name = f"sig_agents_{uuid.uuid4().hex}"
    (tmp_path / f"{name}.py").write_text(AGENTS)
    return name, tmp_path


@pytest.mark.parametrize("fn", ["two", "with_files", "anything", "agent"])
def test_an_agent_taking_query_and_session_id_is_built(module: tuple[str, Path], fn: str) -> None:
    name, folder = module
    assert PythonTarget(f"{name}:{fn}", (folder,)).spec == f"{name}:{fn}"


@pytest.mark.parametrize(
    ("fn", "why"),
    [
        ("one", "too many positional arguments"),
        ("needs_files", "missing a required argument: 'files'"),
    ],
)
def test_an_agent_with_another_signature_is_refused_before_running(
    module: tuple[str, Path], fn: str, why: str
) -> None:
    name, folder = module
    with pytest.raises(ConfigError) as refused:
        PythonTarget(f"{name}:{fn}", (folder,))
    assert refused.value.exit_code == 2
    assert str(refused.value) == (
        f"options: target: the agent '{name}:{fn}' cannot be called as fn(query, session_id) "
        f"({why}): give it the signature (query: str, session_id: str)"
    )


def test_a_builtin_without_a_signature_is_left_to_its_calls() -> None:
    # max has no signature to read (inspect.signature raises): built, its turns say the rest
    assert PythonTarget("builtins:max").description == "python:builtins:max"
