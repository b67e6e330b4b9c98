"""The JSON Schema of a suite file (``assay schema suite``), made from what the loader uses:
the pydantic models of ``assay.config`` and, for each metric in the registry, its options
model. So the schema accepts what the loader accepts, short forms included
(``metrics: [equality]``, ``expected_tools: [lookup]``), and editors complete metric names
and their options."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue, models_json_schema
from pydantic_core import core_schema

from assay._env_vars import REFERENCE
from assay.config import ExpectedToolSpec, Suite
from assay.metrics import METRICS, Metric

DIALECT = "https://json-schema.org/draft/2020-12/schema"
REF = "#/$defs/{model}"
# ${VAR} or ${VAR:-default} alone: the loader substitutes it before reading the number
VARIABLE = {"type": "string", "pattern": f"^{REFERENCE}$"}


class _LoaderSchema(GenerateJsonSchema):
    """Pydantic's schema, plus what the loader does that pydantic leaves out: a string field
    of a model with ``coerce_numbers_to_str`` takes a number too (YAML's
    ``ground_truth: 640``), and a number or a boolean may be written as ``${VAR}``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._coercing: list[bool] = []

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        config = schema.get("config") or {}
        self._coercing.append(bool(config.get("coerce_numbers_to_str")))
        try:
            return super().model_schema(schema)
        finally:
            self._coercing.pop()

    def int_schema(self, schema: core_schema.IntSchema) -> JsonSchemaValue:
        return {"anyOf": [super().int_schema(schema), VARIABLE]}

    def float_schema(self, schema: core_schema.FloatSchema) -> JsonSchemaValue:
        return {"anyOf": [super().float_schema(schema), VARIABLE]}

    def bool_schema(self, schema: core_schema.BoolSchema) -> JsonSchemaValue:
        return {"anyOf": [super().bool_schema(schema), VARIABLE]}

    def str_schema(self, schema: core_schema.StringSchema) -> JsonSchemaValue:
        out = super().str_schema(schema)
        if self._coercing and self._coercing[-1]:
            out["type"] = ["string", "number"]
        return out


def suite_schema() -> dict[str, Any]:
    """The suite file's JSON Schema (draft 2020-12)."""
    metrics = [(entry.name, entry.item) for entry in METRICS.entries()]
    options = list(dict.fromkeys(cls.Options for _, cls in metrics))
    refs, top = models_json_schema(
        [(Suite, "validation"), *((o, "validation") for o in options)],
        ref_template=REF,
        schema_generator=_LoaderSchema,
    )
    defs: dict[str, Any] = top["$defs"]
    option_defs = {o: _def_name(refs[(o, "validation")]) for o in options}
    branches = [_metric_branch(name, cls, defs[option_defs[cls.Options]]) for name, cls in metrics]
    for name in set(option_defs.values()) - _referenced(defs, exclude=set(option_defs.values())):
        defs.pop(name)  # inlined into each metric's branch
    bare = [name for name, cls in metrics if _takes_no_options(cls)]
    defs["MetricSpec"] = {
        "title": "Metric",
        "description": "a metric's name, or {metric: NAME, ...its options}",
        "oneOf": [{"type": "string", "enum": bare}, *branches],
    }
    defs["ExpectedToolSpec"] = _expected_tool(defs["ExpectedToolSpec"])
    defs["FileSpec"] = _file(defs["FileSpec"])
    schema = defs.pop(_def_name(refs[(Suite, "validation")]))
    return {"$schema": DIALECT, **schema, "$defs": dict(sorted(defs.items()))}


def _def_name(ref: JsonSchemaValue) -> str:
    return str(ref["$ref"]).rpartition("/")[2]


def _takes_no_options(cls: type[Metric[Any]]) -> bool:
    """Whether the metric's name alone is a valid spec, as the loader decides it (a field
    may be required, or a validator may need one of several)."""
    try:
        cls.Options.model_validate({})
    except ValidationError:
        return False
    return True


def _metric_branch(name: str, cls: type[Metric[Any]], options: dict[str, Any]) -> dict[str, Any]:
    """``{metric: NAME, ...options}``; a code grader may be written ``{type: code, ...}``."""
    branch = copy.deepcopy(options)
    branch["title"] = name
    summary = (cls.__doc__ or "").strip().split("\n\n")[0]
    if summary:
        branch["description"] = " ".join(summary.split())
    else:
        branch.pop("description", None)
    properties = {"metric": {"const": name}, **branch.get("properties", {})}
    required = ["metric", *branch.get("required", [])]
    if name == "code":
        properties["type"] = {"const": "code"}
        required.remove("metric")
        branch["oneOf"] = [{"required": ["metric"]}, {"required": ["type"]}]
    branch["properties"] = properties
    branch["required"] = required
    return branch


def _expected_tool(spec: dict[str, Any]) -> dict[str, Any]:
    """``lookup`` or ``{name, args, count, count_exact, max_count}`` (args: a matcher or a
    literal per argument, any JSON value)."""
    count = {"type": "integer", "minimum": 0}
    types = {"args": {"type": "object"}, "count": count, "count_exact": count, "max_count": count}
    properties = {"name": spec["properties"]["name"]}
    properties.update({key: types[key] for key in ExpectedToolSpec.OPTIONS})
    mapping = {
        "type": "object",
        "properties": properties,
        "required": ["name"],
        "additionalProperties": False,
    }
    return {
        "title": "ExpectedTool",
        "description": "a tool's name (contained in the called name), or {name, ...}",
        "oneOf": [{"type": "string"}, mapping],
    }


def _file(spec: dict[str, Any]) -> dict[str, Any]:
    """``report.pdf`` or ``{path, mime_type, as}``."""
    return {
        "title": "File",
        "description": "a file's path, relative to the suite, or {path, mime_type, as}",
        "oneOf": [{"type": "string", "minLength": 1}, {**spec, "title": "FileMapping"}],
    }


def _referenced(defs: dict[str, Any], exclude: set[str]) -> set[str]:
    """The defs some other def refers to (``exclude`` does not count as a referrer)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                found.add(ref.rpartition("/")[2])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for name, node in defs.items():
        if name not in exclude:
            walk(node)
    return found
