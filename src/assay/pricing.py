"""The one price table: what a model's tokens cost, in US dollars, for the ``cost`` metric
and for the estimate of what judge and simulated-user calls cost.

A snapshot of the providers' public list prices (standard tier, no batch or cache discount)
when this table was written; prices change, so check yours. The ``cost`` metric takes more
(or corrected) prices in the suite: ``{metric: cost, model: my-model, prices: {my-model:
{input_per_1k: 0.001, output_per_1k: 0.002}}}``. A model name matches its exact entry, else
the longest entry it starts with (``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``),
case-insensitively and without a gateway's ``provider/`` prefix. A model not in the table
(a local one, say) has no price: ``None``, never a guess.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

from assay.results.models import TokenUsage


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_1k: float = Field(ge=0)
    output_per_1k: float = Field(ge=0)


def _p(input_per_1m: float, output_per_1m: float) -> Price:
    return Price(input_per_1k=input_per_1m / 1000, output_per_1k=output_per_1m / 1000)


# (input, output) in dollars per million tokens, as the providers list them
PRICES: dict[str, Price] = {
    "gpt-4o": _p(2.50, 10.00),
    "gpt-4o-mini": _p(0.15, 0.60),
    "gpt-4.1": _p(2.00, 8.00),
    "gpt-4.1-mini": _p(0.40, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.40),
    "gpt-4-turbo": _p(10.00, 30.00),
    "gpt-3.5-turbo": _p(0.50, 1.50),
    "gpt-5": _p(1.25, 10.00),
    "gpt-5-mini": _p(0.25, 2.00),
    "gpt-5-nano": _p(0.05, 0.40),
    "o1": _p(15.00, 60.00),
    "o3": _p(2.00, 8.00),
    "o3-mini": _p(1.10, 4.40),
    "o4-mini": _p(1.10, 4.40),
    "claude-3-haiku": _p(0.25, 1.25),
    "claude-3-5-haiku": _p(0.80, 4.00),
    "claude-haiku-4-5": _p(1.00, 5.00),
    "claude-3-5-sonnet": _p(3.00, 15.00),
    "claude-3-7-sonnet": _p(3.00, 15.00),
    "claude-3-opus": _p(15.00, 75.00),
    "claude-sonnet-4": _p(3.00, 15.00),
    "claude-opus-4": _p(15.00, 75.00),
}


def find_price(model: str, extra: Mapping[str, Price] | None = None) -> Price | None:
    """The price of ``model``: from ``extra`` (a suite's own prices, which win) or the
    table; its exact entry, else the longest entry that is a prefix of it."""
    table = {**PRICES, **extra} if extra else PRICES
    if model in table:
        return table[model]
    name = model.lower().rsplit("/", 1)[-1]  # "openai/gpt-4o", as some gateways write it
    if name in table:
        return table[name]
    prefixes = [entry for entry in table if name.startswith(entry.lower())]
    return table[max(prefixes, key=len)] if prefixes else None


def cost_usd(model: str, usage: TokenUsage) -> float | None:
    """The list-price cost of one call, or None when the model is not in the table."""
    price = find_price(model)
    if price is None:
        return None
    cost = usage.prompt_tokens * price.input_per_1k + usage.completion_tokens * price.output_per_1k
    return round(cost / 1000, 8)
