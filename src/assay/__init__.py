"""assay: test LLM agents and chatbots turn by turn.

The public API, for Python agents, custom metrics and programmatic runs. Everything else is
reached through its package (``assay.results``, ``assay.metrics``, ...).
"""

from assay.cases import LoadedSuite, TestCase, load_suite, parse_suite
from assay.errors import (
    AssayError,
    ConfigError,
    DatasetError,
    JudgeError,
    SessionLost,
    StoreError,
    TargetError,
)
from assay.metrics import Metric, MetricContext, MetricOptions, Score, metric
from assay.results import MetricResult, Report, TestResult, TokenUsage, ToolInvocation, TurnResult
from assay.targets import Reply, Target, TurnRequest
from assay.version import __version__

__all__ = [
    "AssayError",
    "ConfigError",
    "DatasetError",
    "JudgeError",
    "LoadedSuite",
    "Metric",
    "MetricContext",
    "MetricOptions",
    "MetricResult",
    "Reply",
    "Report",
    "Score",
    "SessionLost",
    "StoreError",
    "Target",
    "TargetError",
    "TestCase",
    "TestResult",
    "TokenUsage",
    "ToolInvocation",
    "TurnRequest",
    "TurnResult",
    "__version__",
    "load_suite",
    "metric",
    "parse_suite",
]
