"""Metrics: the protocol, the registry and the built-in metrics (imported to register them)."""

# imported to register the built-in metrics
from assay.metrics import (  # noqa: F401
    code_grader,
    comparison,
    cost,
    judge,
    matching,
    performance,
    rouge,
    safety,
    semantic,
    similarity,
    structured,
)
from assay.metrics.base import (
    ConversationContext,
    Exchange,
    Metric,
    MetricContext,
    MetricOptions,
    Score,
)
from assay.metrics.registry import METRICS, MetricConfigError, build_metric, metric
from assay.metrics.tools import forbidden, trajectory  # noqa: F401

__all__ = [
    "METRICS",
    "ConversationContext",
    "Exchange",
    "Metric",
    "MetricConfigError",
    "MetricContext",
    "MetricOptions",
    "Score",
    "build_metric",
    "metric",
]
