"""LLM providers for judges and simulated users (SPEC §7): one async ``ChatModel``
interface over OpenAI-compatible and Anthropic APIs, with a SQLite response cache.

Each name below is imported when first used: the judge metrics import
``assay.models.structured`` (no HTTP client) when they register, and the clients, with
aiohttp, load only when a run builds a model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names

if TYPE_CHECKING:
    from assay.models.anthropic import AnthropicChatModel
    from assay.models.base import ChatModel, Message, ModelReply, Prompt
    from assay.models.cache import DEFAULT_CACHE_PATH, ResponseCache, default_cache_path
    from assay.models.factory import api_key_for, make_model
    from assay.models.openai import OpenAIChatModel
    from assay.pricing import cost_usd

# each lazily imported name, and the module it comes from
_LAZY = {
    "AnthropicChatModel": "assay.models.anthropic",
    "ChatModel": "assay.models.base",
    "Message": "assay.models.base",
    "ModelReply": "assay.models.base",
    "Prompt": "assay.models.base",
    "DEFAULT_CACHE_PATH": "assay.models.cache",
    "ResponseCache": "assay.models.cache",
    "default_cache_path": "assay.models.cache",
    "api_key_for": "assay.models.factory",
    "make_model": "assay.models.factory",
    "OpenAIChatModel": "assay.models.openai",
    "cost_usd": "assay.pricing",
}

__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = [
    "DEFAULT_CACHE_PATH",
    "AnthropicChatModel",
    "ChatModel",
    "Message",
    "ModelReply",
    "OpenAIChatModel",
    "Prompt",
    "ResponseCache",
    "api_key_for",
    "cost_usd",
    "default_cache_path",
    "make_model",
]
