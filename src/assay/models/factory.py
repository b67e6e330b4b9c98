"""Build a chat model from a ``ModelConfig`` (the suite's ``judge:``, or ``--judge``)."""

from __future__ import annotations

from assay.config import ModelConfig
from assay.models.anthropic import AnthropicChatModel
from assay.models.base import ChatModel
from assay.models.cache import ResponseCache
from assay.models.openai import OpenAIChatModel
from assay.net import RetryPolicy
from assay.registry import Registry
from assay.secrets import is_own_host, key_from_env

PROVIDERS: Registry[type[ChatModel]] = Registry("model provider")
PROVIDERS.register("openai", OpenAIChatModel)
PROVIDERS.register("anthropic", AnthropicChatModel)
DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


def api_key_for(config: ModelConfig, source: str = "suite", field: str = "judge") -> str | None:
    """The API key for a model, registered with the redactor. ``field``: where ``config``
    is in ``source`` (``judge``, ``simulator``), or the option that gave it (``--judge``).

    With ``api_key_env`` named, that variable's value goes to whatever ``base_url`` is set,
    and a missing one is an error. Without it, the provider's default variable
    (``OPENAI_API_KEY`` / ``ANTHROPIC_API_KEY``) is read only for the provider's own API
    (no ``base_url``, or one on its host), where it is required: any other server (a local
    llama.cpp, a colleague's proxy) gets no key unless the suite names its variable."""
    if config.api_key_env is not None:
        env = config.api_key_env
    elif is_own_host(config.base_url, PROVIDERS.get(config.provider).default_base_url):
        env = DEFAULT_KEY_ENV[config.provider]
    else:
        return None
    option = field.startswith("--")  # no api_key_env to set there
    hint = "" if config.api_key_env or option else ", or set api_key_env to another name"
    path = field if option else f"{field}.api_key_env"
    return key_from_env(env, source, path, f"the {config.provider} API key", hint)


def make_model(
    config: ModelConfig,
    cache: ResponseCache | None = None,
    *,
    retry: RetryPolicy | None = None,
    source: str = "suite",
    field: str = "judge",
) -> ChatModel:
    """A chat model for ``config``; ``cache=None`` bypasses the response cache
    (``--no-cache``). ``source`` and ``field`` say where the config came from in errors
    (``api_key_for``). Raises ConfigError when the API key is missing."""
    cls = PROVIDERS.get(config.provider)
    return cls(config, api_key=api_key_for(config, source, field), cache=cache, retry=retry)
