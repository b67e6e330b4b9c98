"""``${VAR}`` and ``${VAR:-default}``: one rule for the suite loader and the http target.
The target used to send ``''`` for an empty VAR where the loader took the default, and to
substitute a suite's header a second time (a value holding ``${`` was read again)."""

from __future__ import annotations

import pytest

from assay._env_vars import expand
from assay.cases import parse_suite
from assay.target_config import HttpTarget as HttpConfig
from assay.targets import make_target
from assay.targets.http import HttpTarget
from tests.targets.agent_server import FAST_RETRY, AgentServer, one_turn

# (environment, text, what both read it as); None: the variable is unset
CASES = [
    ({"V": "x"}, "${V:-d}", "x"),
    ({"V": ""}, "${V:-d}", "d"),  # empty takes the default, as the shell's :- does
    ({}, "${V:-d}", "d"),
    ({"V": ""}, "${V}", ""),  # no default: empty stays empty
    ({"V": "x"}, "a-${V}-${W:-w}", "a-x-w"),
    ({}, "${V:-}", ""),
]


@pytest.mark.parametrize(("env", "text", "value"), CASES)
def test_the_rule(env: dict[str, str], text: str, value: str) -> None:
    assert expand(text, env).text == value


@pytest.mark.parametrize(("env", "text", "value"), CASES)
async def test_the_loader_and_the_http_target_read_it_alike(
    env: dict[str, str], text: str, value: str, server: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("V", "W"):
        monkeypatch.delenv(name, raising=False)
    for name, found in env.items():
        monkeypatch.setenv(name, found)
    loaded = parse_suite(
        {"name": "s", "target": {"http": {"url": server.chat_url, "headers": {"X-V": text}}}},
        "suite.yaml",
    )
    assert loaded.suite.target is not None and loaded.suite.target.http is not None
    assert loaded.suite.target.http.headers["X-V"] == value
    # a target built in code, with the placeholder itself: the header it sends
    target = HttpTarget(
        HttpConfig.model_validate({"url": server.chat_url, "headers": {"X-V": text}}), FAST_RETRY
    )
    seen = await one_turn(target, server)
    assert seen.headers.get("X-V") == value


def test_an_unset_variable_without_default_is_named() -> None:
    found = expand("${ASSAY_TEST_SURELY_UNSET}", {})
    assert (found.text, found.missing) == ("", ["ASSAY_TEST_SURELY_UNSET"])


@pytest.mark.parametrize(
    "value",
    [
        "abc${ENV_ONCE_INNER}",  # used to be sent as abc<ENV_ONCE_INNER's value>
        "p@ss${ENV_ONCE_SURELY_UNSET}",  # used to fail: "ENV_ONCE_SURELY_UNSET is not set"
        "x${y",
    ],
)
async def test_a_suite_header_is_substituted_once(
    value: str, server: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENV_ONCE_KEY", value)
    monkeypatch.setenv("ENV_ONCE_INNER", "inner-value")
    monkeypatch.delenv("ENV_ONCE_SURELY_UNSET", raising=False)
    headers = {"X-Key": "${ENV_ONCE_KEY}", "X-Both": "k=${ENV_ONCE_KEY};t={{ turn_id }}"}
    loaded = parse_suite(
        {"name": "s", "target": {"http": {"url": server.chat_url, "headers": headers}}},
        "suite.yaml",
    )
    assert loaded.suite.target is not None
    target = make_target(loaded.suite.target, retries=FAST_RETRY)
    seen = await one_turn(target, server)
    assert seen.headers["X-Key"] == value
    assert seen.headers["X-Both"] == f"k={value};t=1"
