"""A scripted model server per test, recognisable API keys, and fast retries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from assay.config import ModelConfig
from assay.models import ChatModel, ResponseCache, make_model
from assay.net import RetryPolicy, reset_limiters
from tests.fakes.llm_server import ScriptedLLM, scripted_llm

OPENAI_SECRET = "sk-test-OPENAI-5ecret-d0-not-leak"
ANTHROPIC_SECRET = "sk-ant-test-ANTHROPIC-5ecret-d0-not-leak"
FAST = RetryPolicy(retries=2, base_delay_s=0.0, max_delay_s=2.0)


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


@pytest.fixture(autouse=True)
def _keys(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_SECRET)
    reset_limiters()
    yield
    reset_limiters()


def openai_model(
    llm: ScriptedLLM, cache: ResponseCache | None = None, **config: object
) -> ChatModel:
    # the scripted server is not OpenAI's host: it gets a key only when the variable is named
    settings = {
        "provider": "openai",
        "model": "gpt-4o-mini",
        "base_url": llm.base_url,
        "api_key_env": "OPENAI_API_KEY",
    }
    retry = config.pop("retry", FAST)
    assert isinstance(retry, RetryPolicy)
    return make_model(ModelConfig.model_validate(settings | config), cache, retry=retry)


def anthropic_model(
    llm: ScriptedLLM, cache: ResponseCache | None = None, **config: object
) -> ChatModel:
    settings = {
        "provider": "anthropic",
        "model": "claude-3-5-haiku-latest",
        "base_url": llm.url,
        "api_key_env": "ANTHROPIC_API_KEY",
    }
    return make_model(ModelConfig.model_validate(settings | config), cache, retry=FAST)
