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
    # serialisation schema marks them required (as contract §2 does for tool_calls, errors...).
    if name == "trace":  # versioned: a trace says which schema_version it follows
        schema = trace_json_schema()
    else:
        schema = SCHEMA_MODELS[name].model_json_schema(mode="serialization")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema
