"""JSON Schemas of the public records, as printed by ``assay schema NAME``."""

from __future__ import annotations

from copy import deepcopy
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
        for record in (schema, *list(schema.get("$defs", {}).values())):
            required = CONTRACT_REQUIRED.get(record.get("title"))
            if required is not None:
                record["required"] = [f for f in record["required"] if f in required]
            _accept_holodeck(record, schema)
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
    # the contract gives no Required column for a TestResult: HoloDeck's model requires these
    # (its legacy results have no test_type, turns or test_name, which it may leave null)
    "TestResult": frozenset(("test_input", "passed", "execution_time_ms", "timestamp")),
}

_NULLABLE_OBJECT: dict[str, Any] = {"anyOf": [{"type": "object"}, {"type": "null"}]}
_NULLABLE_STRING: dict[str, Any] = {"anyOf": [{"type": "string"}, {"type": "null"}]}
_NULLABLE_INTEGER: dict[str, Any] = {"anyOf": [{"type": "integer"}, {"type": "null"}]}

# HoloDeck's ProcessedFileInput (a file it attached, with the Markdown it sent): assay
# writes ProcessedFile (the file's metadata, never its content)
HOLODECK_PROCESSED_FILE: dict[str, Any] = {
    "title": "HoloDeckProcessedFile",
    "description": "a file HoloDeck processed; assay writes ProcessedFile",
    "type": "object",
    "properties": {
        "original": {"type": "object", "description": "the file input as configured"},
        "markdown_content": {"type": "string"},
        "metadata": _NULLABLE_OBJECT,
        "cached_path": _NULLABLE_STRING,
        "processing_time_ms": _NULLABLE_INTEGER,
        "error": _NULLABLE_STRING,
    },
    "required": ["original", "markdown_content"],
    "additionalProperties": False,
}
HOLODECK_METRIC_KINDS = ("rag", "geval")  # its other kinds, standard and code, are assay's


def _accept_holodeck(record: dict[str, Any], schema: dict[str, Any]) -> None:
    """Let ``record`` (a definition in ``schema``) accept what HoloDeck writes and assay
    does not (justinbarias/holodeck, models/test_result.py), so a result HoloDeck wrote
    validates: a null test_name, its processed files, a turn's grader_details, its metric
    kinds, scales and null counts. assay's own records are unchanged."""
    properties = record.get("properties", {})
    title = record.get("title")
    if title == "TestResult":
        properties["test_name"] = {
            **_NULLABLE_STRING,
            "title": "Test Name",
            "description": "assay always writes it; HoloDeck may leave it out or null",
        }
        files = properties["processed_files"]
        files["items"] = {"anyOf": [files["items"], {"$ref": "#/$defs/HoloDeckProcessedFile"}]}
        schema.setdefault("$defs", {})["HoloDeckProcessedFile"] = deepcopy(HOLODECK_PROCESSED_FILE)
    elif title == "TurnResult":
        properties["grader_details"] = {
            **_NULLABLE_OBJECT,
            "title": "Grader Details",
            "description": "HoloDeck's: metric name -> its grader's payload; assay does not "
            "write it",
        }
    elif title == "MetricResult":
        kind = properties["kind"]
        kind["enum"] = [*kind["enum"], *HOLODECK_METRIC_KINDS]
        # HoloDeck's model: any scale ("0-100"), or none; counts it may leave null
        properties["scale"] = {**_NULLABLE_STRING, "title": "Scale"}
        for name in ("retry_count", "evaluation_time_ms"):
            properties[name] = {**properties[name], "type": ["integer", "null"]}
