"""Metrics: the protocol, the registry and the built-in metrics (imported to register them)."""

from assay.metrics import comparison  # noqa: F401  (registers the metrics)
from assay.metrics.base import (
    METRICS,
    Exchange,
    Metric,
    MetricContext,
    MetricOptions,
    Score,
    register_metric,
)
from assay.metrics.registry import MetricConfigError, build_metric, known_metrics

__all__ = [
    "METRICS",
    "Exchange",
    "Metric",
    "MetricConfigError",
    "MetricContext",
    "MetricOptions",
    "Score",
    "build_metric",
    "known_metrics",
    "register_metric",
]
