"""Build a chat model from a ``ModelConfig`` (the suite's ``judge:``, or ``--judge``)."""

from __future__ import annotations

import os

from assay.config import ModelConfig
from assay.errors import ConfigError, Problem
from assay.models.anthropic import AnthropicChatModel
from assay.models.base import ChatModel
from assay.models.cache import ResponseCache
from assay.models.openai import OpenAIChatModel
from assay.net import RetryPolicy
from assay.secrets import REDACTOR

PROVIDERS: dict[str, type[ChatModel]] = {
    "openai": OpenAIChatModel,
    "anthropic": AnthropicChatModel,
}
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def api_key_for(config: ModelConfig, source: str = "judge") -> str | None:
    """The API key from the variable ``api_key_env`` names (default ``OPENAI_API_KEY`` /
    ``ANTHROPIC_API_KEY``), registered with the redactor. A key is required for the
    provider's own API, or when ``api_key_env`` is named explicitly; a local server
    (``base_url`` set, default variable unset) gets none."""
    env = config.api_key_env or DEFAULT_KEY_ENV[config.provider]
    key = os.environ.get(env) or None
    if key is not None:
        REDACTOR.add(key)
        return key
    if config.base_url is None or config.api_key_env is not None:
        raise ConfigError(
            [
                Problem(
                    source,
                    "api_key_env",
                    f"the environment variable {env} is not set: export it with the "
                    f"{config.provider} API key"
                    + ("" if config.api_key_env else ", or set api_key_env to another name"),
                )
            ]
        )
    return None


def make_model(
    config: ModelConfig,
    cache: ResponseCache | None = None,
    *,
    retry: RetryPolicy | None = None,
    source: str = "judge",
) -> ChatModel:
    """A chat model for ``config``; ``cache=None`` bypasses the response cache
    (``--no-cache``). ``source`` names where the config came from in errors.
    Raises ConfigError when the API key is missing."""
    cls = PROVIDERS[config.provider]
    return cls(config, api_key=api_key_for(config, source), cache=cache, retry=retry)
