"""LLM providers for judges and simulated users (SPEC §7): one async ``ChatModel``
interface over OpenAI-compatible and Anthropic APIs, with a SQLite response cache."""

from assay.models.anthropic import AnthropicChatModel
from assay.models.base import ChatModel, Message, ModelReply, Prompt
from assay.models.cache import DEFAULT_CACHE_PATH, ResponseCache, default_cache_path
from assay.models.factory import api_key_for, make_model
from assay.models.openai import OpenAIChatModel
from assay.pricing import cost_usd

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
