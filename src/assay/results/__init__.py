"""Result records, their roll-up and their JSON Schemas."""

from assay.results.models import (
    SCHEMA_VERSION,
    ArgMatchDetail,
    MetricKind,
    MetricResult,
    NotRun,
    Report,
    ReportSummary,
    RunInfo,
    TestResult,
    TestType,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)
from assay.results.rollup import (
    SummaryBuilder,
    rollup_metrics,
    rollup_multi_turn,
    single_turn_result,
    summarize,
    turn_passed,
)

__all__ = [
    "SCHEMA_VERSION",
    "ArgMatchDetail",
    "MetricKind",
    "MetricResult",
    "NotRun",
    "Report",
    "ReportSummary",
    "RunInfo",
    "SummaryBuilder",
    "TestResult",
    "TestType",
    "TokenUsage",
    "ToolInvocation",
    "TurnResult",
    "rollup_metrics",
    "rollup_multi_turn",
    "single_turn_result",
    "summarize",
    "turn_passed",
]
