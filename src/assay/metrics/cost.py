"""``cost``: what a turn cost in US dollars, from its token usage and a price table."""

from __future__ import annotations

from pydantic import Field, model_validator

from assay.metrics.base import MetricContext, MetricOptions, Score
from assay.metrics.performance import _Budget
from assay.metrics.registry import metric
from assay.pricing import PRICES, Price, find_price


class CostOptions(MetricOptions):
    model: str = Field(min_length=1)
    max_usd: float = Field(gt=0)
    prices: dict[str, Price] = Field(default_factory=dict)  # added to (and over) PRICES

    @model_validator(mode="after")
    def _priced(self) -> CostOptions:
        if find_price(self.model, self.prices) is None:
            known = ", ".join(sorted(PRICES))
            raise ValueError(
                f"no price for model {self.model!r}; add it under prices "
                f"({{{self.model}: {{input_per_1k: ..., output_per_1k: ...}}}}) "
                f"or use one of: {known}"
            )
        return self


@metric("cost")
class Cost(_Budget[CostOptions]):
    """prompt tokens x input price + completion tokens x output price (``assay.pricing``),
    against ``max_usd``."""

    def __init__(self, options: CostOptions) -> None:
        super().__init__(options)
        price = find_price(options.model, options.prices)
        assert price is not None  # checked by the options
        self.price = price
        self.max_usd = options.max_usd

    def missing_input(self, ctx: MetricContext) -> str | None:
        return None if ctx.token_usage is not None else "the target reported no token usage"

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.token_usage is not None
        usage = ctx.token_usage
        usd = (
            usage.prompt_tokens * self.price.input_per_1k
            + usage.completion_tokens * self.price.output_per_1k
        ) / 1000
        details = {
            "usd": round(usd, 8),
            "max_usd": self.max_usd,
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        }
        return self.verdict(usd, self.max_usd, "USD", details)
