"""JSON Schemas of the public records, as printed by ``assay schema NAME``."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assay.config import Suite
from assay.results.models import Report, TestResult, TurnResult
from assay.results.trace import GoalTrace, trace_json_schema

SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "suite": Suite,
    "test-result": TestResult,
    "turn-result": TurnResult,
    "report": Report,
    "trace": GoalTrace,
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a public record, by its CLI name."""
    if name == "suite":  # made from the loader's models and the metric registry
        from assay.cases.schema import suite_schema

        return suite_schema()
    # Records describe assay's output, where every field is always present: the
    # serialisation schema marks them required, except in the records the turn-result
    # contract describes, which require what the contract requires (CONTRACT_REQUIRED).
    if name == "trace":  # versioned: a trace says which schema_version it follows
        schema = trace_json_schema()
    else:
        schema = SCHEMA_MODELS[name].model_json_schema(mode="serialization")
        for record in (schema, *schema.get("$defs", {}).values()):
            required = CONTRACT_REQUIRED.get(record.get("title"))
            if required is not None:
                record["required"] = [f for f in record["required"] if f in required]
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


# specs/turn-result-contract.txt: §2's "Required" column for a TurnResult; for what a turn
# holds, the fields of its example (a metric result without assay's dimension and details,
# token usage with three of the five counters, a tool invocation without "error"), which a
# record following the contract may leave out; assay writes every field all the same
CONTRACT_REQUIRED: dict[str, frozenset[str]] = {
    "TurnResult": frozenset(
        (
            "turn_index",
            "input",
            "tool_calls",
            "tool_invocations",
            "metric_results",
            "passed",
            "execution_time_ms",
            "errors",
        )
    ),
    "MetricResult": frozenset(
        (
            "metric_name",
            "kind",
            "score",
            "threshold",
            "passed",
            "scale",
            "error",
            "retry_count",
            "evaluation_time_ms",
            "model_used",
            "reasoning",
        )
    ),
    "TokenUsage": frozenset(("prompt_tokens", "completion_tokens", "total_tokens")),
    "ToolInvocation": frozenset(("name", "args", "result", "bytes", "duration_ms")),
}
