"""Structured-output metrics: is the response JSON, and does it follow a JSON Schema?"""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator

from assay._json import NotJson, load_reply
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric

MAX_REPORTED_ERRORS = 5


class JsonOptions(MetricOptions):
    allow_code_fence: bool = False  # accept a reply that is one ```json fenced block


@metric("json_valid")
class JsonValid(Metric[JsonOptions]):
    """1.0 when the whole response parses as JSON."""

    requires = frozenset({"response"})

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None
        try:
            load_reply(ctx.response, allow_code_fence=self.options.allow_code_fence)
        except NotJson as exc:
            return Score(0.0, reasoning=str(exc))
        return Score(1.0)


def _where(path: Any) -> str:
    """A jsonschema error path as ``$.items[2].name``."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


class JsonSchemaOptions(JsonOptions):
    model_config = ConfigDict(populate_by_name=True)  # "schema" is a BaseModel attribute

    json_schema: dict[str, Any] = Field(alias="schema")

    @field_validator("json_schema")
    @classmethod
    def _valid_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        import jsonschema  # a slow import, needed only when a schema is given

        try:
            jsonschema.validators.validator_for(value).check_schema(value)
        except jsonschema.SchemaError as exc:
            raise ValueError(
                f"not a valid JSON Schema: {exc.message} (at {_where(exc.absolute_path)})"
            ) from None
        return value


@metric("json_schema")
class JsonSchema(Metric[JsonSchemaOptions]):
    """1.0 when the response is JSON valid against ``schema`` (any JSON Schema draft; the
    ``$schema`` key picks it, else the latest). The first errors are in the details."""

    requires = frozenset({"response"})

    def __init__(self, options: JsonSchemaOptions) -> None:
        super().__init__(options)
        self.allow_code_fence = options.allow_code_fence
        from jsonschema.validators import validator_for

        self.validator = validator_for(options.json_schema)(options.json_schema)

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None
        try:
            document = load_reply(ctx.response, allow_code_fence=self.allow_code_fence)
        except NotJson as exc:
            return Score(0.0, reasoning=str(exc))
        errors = list(self.validator.iter_errors(document))
        if not errors:
            return Score(1.0)
        shown = [f"{_where(e.absolute_path)}: {e.message}" for e in errors[:MAX_REPORTED_ERRORS]]
        return Score(
            0.0,
            reasoning=f"{len(errors)} schema violation(s); first: {shown[0]}",
            details={"errors": shown, "error_count": len(errors)},
        )
