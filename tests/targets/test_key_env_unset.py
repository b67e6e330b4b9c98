"""An API key's variable that is not set is a load-time error (exit 2) naming the field that
names it, by its full path in the suite, for the openai target as for a judge and a
simulated user: nothing is sent. Through the real CLI, against the scripted
OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import RunCli
from tests.fakes.llm_server import scripted_llm

KEY_ENV = "ASSAY_TEST_UNSET_TARGET_KEY"


def test_an_openai_target_whose_key_variable_is_unset_exits_2_before_sending(
    assay_cli: RunCli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with scripted_llm() as llm:
        (tmp_path / "suite.yaml").write_text(
            "name: s\n"
            f"target: {{openai: {{base_url: '{llm.base_url}', model: m, "
            f"api_key_env: {KEY_ENV}}}}}\n"
            "tests:\n"
            "  - {name: a, input: hi, ground_truth: ok}\n"
        )
        llm.queue("ok")
        unset = assay_cli("run", "suite.yaml", "--quiet")
        assert unset.returncode == 2, unset.stdout + unset.stderr
        assert unset.stderr == (
            f"error: suite.yaml: target.openai.api_key_env: the environment variable {KEY_ENV} "
            "is not set: export it with the endpoint's API key\n"
        )
        assert llm.requests == []  # nothing was sent without its key
        set_ = assay_cli("run", "suite.yaml", "--quiet", env={KEY_ENV: "sk-target-7c41aa"})
        assert set_.returncode == 0, set_.stdout + set_.stderr
        [request] = llm.requests
        assert request.headers["Authorization"] == "Bearer sk-target-7c41aa"


JUDGED = """name: s
target: {{python: "agent:respond"}}
judge: {{provider: openai, model: j, base_url: "{url}", api_key_env: {judge_key}}}
{simulator}tests:
  - {{name: a, input: hi, ground_truth: hi}}
  - {{name: g, goal: get a refund}}
"""


@pytest.mark.parametrize(
    ("judge_key", "simulator", "args", "where", "var"),
    [
        ("JUDGE_UNSET_KEY", "", [], "suite.yaml: judge.api_key_env", "JUDGE_UNSET_KEY"),
        (
            "JUDGE_SET_KEY",
            'simulator: {{provider: openai, model: u, base_url: "{url}", '
            "api_key_env: USER_UNSET_KEY}}\n",
            [],
            "suite.yaml: simulator.api_key_env",
            "USER_UNSET_KEY",
        ),
        ("JUDGE_SET_KEY", "", ["--judge", "openai:gpt-4o"], "options: --judge", "OPENAI_API_KEY"),
    ],
)
def test_a_models_unset_key_names_its_field_by_its_path(
    assay_cli: RunCli,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    judge_key: str,
    simulator: str,
    args: list[str],
    where: str,
    var: str,
) -> None:
    for name in ("JUDGE_UNSET_KEY", "USER_UNSET_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "agent.py").write_text("def respond(query, session_id):\n    return query\n")
    with scripted_llm() as llm:
        (tmp_path / "suite.yaml").write_text(
            JUDGED.format(
                url=llm.base_url, judge_key=judge_key, simulator=simulator.format(url=llm.base_url)
            )
        )
        proc = assay_cli("run", "suite.yaml", *args, "--quiet", env={"JUDGE_SET_KEY": "sk-j-1"})
        assert llm.requests == []
    assert proc.returncode == 2, proc.stdout + proc.stderr
    # a named variable, and --judge (no api_key_env there to set), need no other hint
    assert proc.stderr == (
        f"error: {where}: the environment variable {var} is not set: export it with the "
        "openai API key\n"
    )
