"""A value a header takes from ``${VAR}`` is text, never a template. A secret holding ``{{``
used to be read as Jinja: ``ab{{ input }}`` was sent as ``abhi``, and ``ab{{ cd`` stopped the
run with a template syntax error. Now it is sent as it is, whether the suite loader or the
target substituted it, beside template text of the header's own; Jinja never sees it (not in
an error either), and it is masked in what is stored and reported like any ``${VAR}`` value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.cases import parse_suite
from assay.errors import ConfigError
from assay.target_config import HttpTarget as HttpConfig
from assay.targets import make_target
from assay.targets.base import Target
from assay.targets.http import HttpTarget
from tests.cli.conftest import RunCli
from tests.targets.agent_server import FAST_RETRY, AgentServer, agent_server, one_turn

TENANT = "ten{{ input }}{% if true %}IF{% endif %}{# c #}"
KEY = "k3y{{ 7 * 7 }}-{{ cd"
HEADERS = {
    "X-Tenant": "${LITERAL_TENANT}",
    "Authorization": "Bearer ${LITERAL_KEY}",
    "X-Both": "t=${LITERAL_TENANT};turn={{ turn_id }}",  # a template of the header's own
    "X-Brace": "{${LITERAL_BRACE}{{ turn_index }}",  # the { before a value is text too
}
SENT = {
    "X-Tenant": TENANT,
    "Authorization": f"Bearer {KEY}",
    "X-Both": f"t={TENANT};turn=1",
    "X-Brace": "{{ input }}0",
}


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LITERAL_TENANT", TENANT)
    monkeypatch.setenv("LITERAL_KEY", KEY)
    monkeypatch.setenv("LITERAL_BRACE", "{ input }}")


async def sent_headers(target: Target, server: AgentServer) -> dict[str, str]:
    seen = await one_turn(target, server)
    return {name: seen.headers[name] for name in SENT}


async def test_a_suites_header_sends_its_variables_values_as_written(server: AgentServer) -> None:
    suite = {"name": "s", "target": {"http": {"url": server.chat_url, "headers": HEADERS}}}
    loaded = parse_suite(suite, "suite.yaml")
    assert loaded.suite.target is not None
    assert await sent_headers(make_target(loaded.suite.target, FAST_RETRY), server) == SENT


async def test_a_target_built_in_code_does_the_same(server: AgentServer) -> None:
    config = HttpConfig.model_validate({"url": server.chat_url, "headers": HEADERS})
    assert await sent_headers(HttpTarget(config, FAST_RETRY), server) == SENT


def test_a_header_of_only_values_is_constant_as_before() -> None:
    config = HttpConfig.model_validate({"url": "http://127.0.0.1:9/chat", "headers": HEADERS})
    target = HttpTarget(config, FAST_RETRY)
    assert target.headers["X-Tenant"].constant and target.headers["Authorization"].constant
    assert not target.headers["X-Both"].constant


def test_a_broken_template_beside_a_value_is_said_without_the_value() -> None:
    headers = {"X-Bad": "{{ turn_id ${LITERAL_KEY}"}  # the header's own template is unclosed
    config = HttpConfig.model_validate({"url": "http://127.0.0.1:9/chat", "headers": headers})
    with pytest.raises(ConfigError) as caught:
        HttpTarget(config, FAST_RETRY)
    message = str(caught.value)
    assert "target.http.headers.X-Bad: template syntax error" in message
    assert "k3y" not in message and "cd" not in message and "7" not in message


def test_the_value_is_masked_in_the_reports_and_the_errors(
    tmp_path: Path, assay_cli: RunCli
) -> None:
    with agent_server() as server:
        (tmp_path / "suite.yaml").write_text(
            json.dumps(
                {
                    "name": "literal",
                    "target": {
                        "http": {"url": f"{server.url}/echo", "headers": {"X-Tenant": "${T}"}}
                    },
                    "tests": [{"name": "echoed", "input": "hi"}],
                }
            )
        )
        (tmp_path / "rejected.yaml").write_text(
            (tmp_path / "suite.yaml").read_text().replace("/echo", "/echo-headers")
        )
        runs = [
            assay_cli(
                *("run", name, "--out", f"{name}.json", "--store", "sqlite:///runs.db"),
                env={"T": TENANT},
                timeout=120,
            )
            for name in ("suite.yaml", "rejected.yaml")
        ]
    assert [r.returncode for r in runs] == [0, 1], [r.stderr for r in runs]
    echoed = json.loads((tmp_path / "suite.yaml.json").read_text())["results"][0]
    assert "X-Tenant=***" in echoed["agent_response"]  # sent, and masked as it came back
    rejected = json.loads((tmp_path / "rejected.yaml.json").read_text())["results"][0]
    assert rejected["errors"] and "X-Tenant=***" in rejected["errors"][0]
    found = [(tmp_path / "runs.db").read_bytes()]
    found += [(tmp_path / f"{n}.json").read_bytes() for n in ("suite.yaml", "rejected.yaml")]
    found += [(r.stdout + r.stderr).encode() for r in runs]
    assert not [blob for blob in found if b"ten{{" in blob or b"ten%7B" in blob]


async def test_the_url_and_the_body_send_their_variables_values_as_written(
    server: AgentServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LITERAL_INPUT", "{{ input }}")  # as a whole value: not a lookup
    monkeypatch.setenv("LITERAL_PATH", "ch{{ 'at' }}")
    url = server.chat_url + "?p=${LITERAL_PATH}&t={{ turn_id }}"  # a template of its own
    body = {
        "query": "${LITERAL_INPUT}",
        "session_id": "{{ session_id }}",
        "nested": [{"key": "k=${LITERAL_KEY}"}, "${LITERAL_TENANT}/{{ turn_index }}"],
    }
    suite = {"name": "s", "target": {"http": {"url": url, "body": body}}}
    loaded = parse_suite(suite, "suite.yaml")
    assert loaded.suite.target is not None
    target = make_target(loaded.suite.target, FAST_RETRY)
    assert isinstance(target, HttpTarget) and target._flat_body is None
    seen = await one_turn(target, server)
    assert seen.query == {"p": "ch{{ 'at' }}", "t": "1"}
    assert seen.body == {
        "query": "{{ input }}",
        "session_id": seen.body["session_id"],
        "nested": [{"key": f"k={KEY}"}, f"{TENANT}/0"],
    }


def test_a_broken_body_template_beside_a_value_is_said_without_the_value() -> None:
    suite = {
        "name": "s",
        "target": {"http": {"url": "http://127.0.0.1:9/chat", "body": {"k": "${LITERAL_KEY}"}}},
    }
    loaded = parse_suite(suite, "suite.yaml")  # k3y{{ 7 * 7 }}-{{ cd: was a syntax error
    assert loaded.suite.target is not None
    target = make_target(loaded.suite.target, FAST_RETRY)
    assert isinstance(target, HttpTarget) and target.body.render({}) == {"k": KEY}


@pytest.mark.parametrize(
    "body",
    [
        "{{ input ~ ' ${LITERAL_SUFFIX}' }}",  # in an expression's string
        "{% raw %}${LITERAL_SUFFIX}{% endraw %}{{ input }}",  # in a raw block
    ],
)
def test_a_value_inside_an_expression_is_refused_at_load(
    body: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where Jinja reads text as written, the name bound to a value would be sent in its
    place: refused, saying where to write it, never sent wrong."""
    monkeypatch.setenv("LITERAL_SUFFIX", "xyz")
    suite = {"name": "s", "target": {"http": {"url": "http://127.0.0.1:9/c", "body": {"q": body}}}}
    loaded = parse_suite(suite, "suite.yaml")
    assert loaded.suite.target is not None
    with pytest.raises(ConfigError) as caught:
        make_target(loaded.suite.target, FAST_RETRY)
    message = str(caught.value)
    assert "a ${VAR} inside a {{ }} or {% %} expression or a raw block is not supported" in message
    assert "xyz" not in message


def test_an_empty_value_between_two_halves_of_a_marker_leaves_the_template_whole(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ "{${EMPTY}{ input }}" reads "{{ input }}" once the empty value is gone: a template,
    with or without another value after it."""
    monkeypatch.setenv("LITERAL_EMPTY", "")
    monkeypatch.setenv("LITERAL_SUFFIX", "xyz")
    for written, sent in [
        ("{${LITERAL_EMPTY}{ input }}", "hi"),
        ("{${LITERAL_EMPTY}{ input }}${LITERAL_SUFFIX}", "hixyz"),
    ]:
        suite = {
            "name": "s",
            "target": {"http": {"url": "http://127.0.0.1:9/c", "body": {"q": written}}},
        }
        loaded = parse_suite(suite, "suite.yaml")
        assert loaded.suite.target is not None
        target = make_target(loaded.suite.target, FAST_RETRY)
        assert isinstance(target, HttpTarget)
        assert target.body.render({"input": "hi"}) == {"q": sent}
