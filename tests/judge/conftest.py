"""A scripted judge: the scripted server behind a real chat model, and turn contexts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from assay.config import ModelConfig
from assay.metrics.base import Metric, MetricContext
from assay.metrics.registry import build_metric
from assay.models import ChatModel, ResponseCache, make_model
from assay.net import RetryPolicy, reset_limiters
from tests.fakes.llm_server import ScriptedLLM, scripted_llm

JUDGE_SECRET = "sk-judge-5ecret-NEVER-SHOWN-123"
FAST = RetryPolicy(retries=1, base_delay_s=0.0)


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    with scripted_llm() as server:
        yield server


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("JUDGE_KEY", JUDGE_SECRET)
    reset_limiters()
    yield
    reset_limiters()


def judge_for(
    llm: ScriptedLLM,
    provider: str = "openai",
    cache: ResponseCache | None = None,
    timeout_s: float = 5.0,
) -> ChatModel:
    base_url = llm.base_url if provider == "openai" else llm.url
    config = ModelConfig(
        provider=provider,
        model="judge-model",
        base_url=base_url,
        api_key_env="JUDGE_KEY",
        timeout_s=timeout_s,
    )
    return make_model(config, cache, retry=FAST)


def verdict(**fields: Any) -> str:
    """A judge's JSON reply: reasoning first, as the schema asks."""
    return json.dumps({"reasoning": fields.pop("reasoning", "because"), **fields})


def metric(metric_name: str, **options: Any) -> Metric:
    import assay.metrics.judge  # noqa: F401  (registers the judge metrics)

    return build_metric(metric_name, options)


def turn(judge: Any = None, **fields: Any) -> MetricContext:
    values: dict[str, Any] = {"input": "What is the capital of France?", "response": "Paris."}
    return MetricContext(**(values | fields), judge=judge)


def prompt_of(llm: ScriptedLLM, index: int = 0) -> str:
    """The user message of a recorded request (the system message is shared)."""
    messages = llm.requests[index].body["messages"]
    return "\n".join(m["content"] for m in messages if m["role"] == "user")
