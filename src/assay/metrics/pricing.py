"""Model prices for the ``cost`` metric, in US dollars per 1,000 tokens.

A snapshot of the providers' public list prices (standard tier, no batch or cache discount)
when this table was written; prices change, so check yours and override or extend the table
in the suite: ``{metric: cost, model: my-model, prices: {my-model: {input_per_1k: 0.001,
output_per_1k: 0.002}}}``. A model name matches its exact entry, else the longest entry it
starts with (``gpt-4o-mini-2024-07-18`` is priced as ``gpt-4o-mini``).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field


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
    "o1": _p(15.00, 60.00),
    "o3": _p(2.00, 8.00),
    "o3-mini": _p(1.10, 4.40),
    "o4-mini": _p(1.10, 4.40),
    "claude-3-haiku": _p(0.25, 1.25),
    "claude-3-5-haiku": _p(0.80, 4.00),
    "claude-3-5-sonnet": _p(3.00, 15.00),
    "claude-3-7-sonnet": _p(3.00, 15.00),
    "claude-3-opus": _p(15.00, 75.00),
    "claude-sonnet-4": _p(3.00, 15.00),
    "claude-opus-4": _p(15.00, 75.00),
}


def find_price(model: str, table: Mapping[str, Price]) -> Price | None:
    """The exact entry for ``model``, else the longest entry that is a prefix of it."""
    if model in table:
        return table[model]
    prefixes = [name for name in table if model.startswith(name)]
    return table[max(prefixes, key=len)] if prefixes else None
