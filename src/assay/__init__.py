"""assay: test LLM agents and chatbots turn by turn.

The public API, for programmatic runs (``assay.run``, docs/python-api.md), Python agents and
custom metrics. Everything else is reached through its package (``assay.results``,
``assay.metrics``, ...).

``import assay`` is light: each name below is imported when first used, so a tool that only
needs ``assay.__version__`` or the exceptions pays nothing for aiohttp, SQLAlchemy or the
dashboard.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_names
from assay.errors import (
    AssayError,
    ConfigError,
    DatasetError,
    JudgeError,
    SessionLost,
    StoreError,
    TargetError,
)
from assay.version import __version__

if TYPE_CHECKING:
    from assay.api import run, run_async
    from assay.cases import LoadedSuite, TestCase, load_suite, parse_suite
    from assay.metrics import Metric, MetricContext, MetricOptions, Score, metric
    from assay.results import (
        MetricResult,
        Report,
        TestResult,
        TokenUsage,
        ToolInvocation,
        TurnResult,
    )
    from assay.run_options import RunOptions
    from assay.runner.observer import RunStart
    from assay.targets import Reply, Target, TurnRequest

# each lazily imported name, and the module it comes from
_LAZY = {
    "run": "assay.api",
    "run_async": "assay.api",
    "RunOptions": "assay.run_options",
    "RunStart": "assay.runner.observer",
    "LoadedSuite": "assay.cases",
    "TestCase": "assay.cases",
    "load_suite": "assay.cases",
    "parse_suite": "assay.cases",
    "Metric": "assay.metrics",
    "MetricContext": "assay.metrics",
    "MetricOptions": "assay.metrics",
    "Score": "assay.metrics",
    "metric": "assay.metrics",
    "MetricResult": "assay.results",
    "Report": "assay.results",
    "TestResult": "assay.results",
    "TokenUsage": "assay.results",
    "ToolInvocation": "assay.results",
    "TurnResult": "assay.results",
    "Reply": "assay.targets",
    "Target": "assay.targets",
    "TurnRequest": "assay.targets",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


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
    "RunOptions",
    "RunStart",
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
    "run",
    "run_async",
]
