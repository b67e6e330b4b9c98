"""A small table of list prices, for an estimate of what judge calls cost.

USD per million tokens (input, output), as published by the providers in 2025. A model
name matches the longest entry it starts with (``gpt-4o-mini-2024-07-18`` → ``gpt-4o-mini``).
Models not in the table (local ones, say) have no cost: ``None``, never a guess.
"""

from __future__ import annotations

from assay.results.models import TokenUsage

# model-name prefix -> (input, output) USD per 1M tokens
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-3-haiku": (0.25, 1.25),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}

_BY_LENGTH = sorted(PRICES, key=len, reverse=True)


def price_for(model: str) -> tuple[float, float] | None:
    name = model.lower().rsplit("/", 1)[-1]  # "openai/gpt-4o" as some gateways write it
    for prefix in _BY_LENGTH:
        if name.startswith(prefix):
            return PRICES[prefix]
    return None


def cost_usd(model: str, usage: TokenUsage) -> float | None:
    """The list-price cost of one call, or None when the model is not in the table."""
    price = price_for(model)
    if price is None:
        return None
    per_input, per_output = price
    return round((usage.prompt_tokens * per_input + usage.completion_tokens * per_output) / 1e6, 8)
