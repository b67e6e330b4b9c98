"""Metrics: the protocol and the registry. A built-in metric's module is imported when the
registry is asked for it by name (``assay.metrics._builtins``), or for the list of them: a
suite without a judge metric never imports the judge metrics and their model clients."""

from assay.metrics.base import (
    ConversationContext,
    Exchange,
    Metric,
    MetricContext,
    MetricOptions,
    Score,
)
from assay.metrics.registry import METRICS, MetricConfigError, build_metric, metric

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
