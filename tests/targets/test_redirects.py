"""Redirects keep credentials to the origin the request was sent to. aiohttp, following a
redirect to another origin, dropped ``Authorization`` only: ``x-api-key``, ``api-key`` and
a header whose value came from ``${VAR}`` went on to the other host. Two real servers: the
one redirecting on 127.0.0.1, the agent reached as localhost (another origin)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.net import RetryPolicy
from assay.target_config import HttpTarget as HttpConfig
from assay.target_config import OpenAITarget as OpenAIConfig
from assay.targets.base import Target, TurnRequest
from assay.targets.http import HttpTarget
from assay.targets.openai import OpenAITarget
from tests.fakes.llm_server import ScriptedLLM, scripted_llm
from tests.fakes.redirector import Redirector, redirector, via_localhost
from tests.targets.agent_server import AgentServer, Step

SECRETS = {
    "Authorization": "Bearer tok-redirect-AAAA",
    "x-api-key": "xk-redirect-BBBB",
    "api-key": "az-redirect-CCCC",
    "X-Tenant": "${REDIRECT_TENANT_TOKEN}",  # a plain name: secret by where its value came from
}
TENANT_TOKEN = "tenant-redirect-DDDD"
SENT = ["tok-redirect-AAAA", "xk-redirect-BBBB", "az-redirect-CCCC", TENANT_TOKEN]


@pytest.fixture(autouse=True)
def _tenant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIRECT_TENANT_TOKEN", TENANT_TOKEN)
    monkeypatch.setenv("REDIRECT_AGENT_KEY", "sk-redirect-agent-EEEE")


@pytest.fixture
def to_agent(server: AgentServer) -> Iterator[Redirector]:
    """Redirects to the agent server, as localhost."""
    with redirector(via_localhost(server.url)) as there:
        yield there


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


@pytest.fixture
def to_llm(llm: ScriptedLLM) -> Iterator[Redirector]:
    """Redirects to the model server, as localhost."""
    with redirector(via_localhost(llm.url)) as there:
        yield there


def turn(text: str = "hi") -> TurnRequest:
    return TurnRequest(input=text, session_id="s-1", turn_id="1", turn_index=0)


async def one_turn(target: Target) -> str | None:
    await target.start()
    try:
        return (await target.session("s-1").send(turn())).text
    finally:
        await target.aclose()


def http_target(url: str, **headers: str) -> HttpTarget:
    config = {"url": url, "headers": {**SECRETS, "X-Trace": "trace-1", **headers}}
    return HttpTarget(HttpConfig.model_validate(config), RetryPolicy(retries=0))


def holds_any(headers: dict[str, str], secrets: list[str]) -> list[str]:
    return [f"{k}: {v}" for k, v in headers.items() if any(s in v for s in secrets)]


# constant headers are the client session's own, a templated one makes them the request's
@pytest.mark.parametrize("extra", [{}, {"X-Turn": "{{ turn_id }}"}])
async def test_a_redirect_to_another_origin_leaves_every_credential_behind(
    server: AgentServer, to_agent: Redirector, extra: dict[str, str]
) -> None:
    there = to_agent
    text = await one_turn(http_target(f"{there.url}/chat", **extra))
    assert text == "turn 1: hi"  # the agent's answer, at the end of the redirect
    (seen,) = server.requests
    assert holds_any(seen.headers, SENT) == []
    assert seen.headers["X-Trace"] == "trace-1" and seen.body["query"] == "hi"
    assert len(holds_any(there.headers_seen[0], SENT)) == len(SENT)  # sent where configured


async def test_a_redirect_within_the_origin_keeps_the_credentials(server: AgentServer) -> None:
    server.queue(Step(status=308, headers={"Location": "/echo"}))
    text = await one_turn(http_target(server.chat_url))
    assert text is not None and text.startswith("you sent")
    assert [r.path for r in server.requests] == ["/chat", "/echo"]
    assert len(holds_any(server.requests[1].headers, SENT)) == len(SENT)


async def test_a_password_in_the_url_stays_within_the_origin(
    server: AgentServer, to_agent: Redirector
) -> None:
    server.queue(Step(status=307, headers={"Location": "/echo"}))
    url = server.chat_url.replace("://", "://alice:pw-redirect@")
    await one_turn(HttpTarget(HttpConfig(url=url), RetryPolicy(retries=0)))
    assert server.requests[1].headers["Authorization"].startswith("Basic ")
    url = to_agent.url.replace("://", "://alice:pw-redirect@") + "/chat"
    await one_turn(HttpTarget(HttpConfig(url=url), RetryPolicy(retries=0)))
    assert to_agent.headers_seen[0]["Authorization"].startswith("Basic ")
    assert "Authorization" not in server.requests[-1].headers


async def test_the_openai_target_key_stays_with_its_origin(
    llm: ScriptedLLM, to_llm: Redirector
) -> None:
    config = {
        "base_url": f"{to_llm.url}/v1",
        "model": "agent-model",
        "api_key_env": "REDIRECT_AGENT_KEY",
    }
    target = OpenAITarget(OpenAIConfig.model_validate(config), RetryPolicy(retries=0))
    assert await one_turn(target) == "ok"
    assert to_llm.headers_seen[0]["Authorization"] == "Bearer sk-redirect-agent-EEEE"
    (request,) = llm.requests
    assert holds_any(request.headers, ["sk-redirect-agent-EEEE"]) == []
