"""``forbidden_tools``: tools a turn must not call, e.g. ``{metric: forbidden_tools, tools:
[delete_account, {name: refund, args: {amount: {any: true}}}]}``. A name matches as a
substring of the called name, as in ``expected_tools``; with ``args``, only calls whose
arguments match are forbidden."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field, field_validator
from pydantic.config import JsonDict

from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric
from assay.metrics.tools.assertions import ExpectedTool, check_tool
from assay.metrics.tools.matchers import Matcher, MatcherError, parse_matcher


def forbidden_step(raw: str | dict[str, Any], where: str) -> ExpectedTool:
    if isinstance(raw, str):
        return ExpectedTool(name=raw, count=0)
    unknown = sorted(set(raw) - {"name", "args"})
    if unknown:
        raise ValueError(f"{where}.{unknown[0]}: unknown key; a forbidden tool has name, args")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ValueError(f"{where}.name: expected a tool name")
    args = raw.get("args")
    if args is None:
        return ExpectedTool(name=name, count=0)
    if not isinstance(args, dict):
        raise ValueError(f"{where}.args: expected a mapping of argument matchers")
    matchers: dict[str, Matcher] = {}
    for key, spec in args.items():
        try:
            matchers[str(key)] = parse_matcher(spec)
        except MatcherError as exc:
            sub = f".{exc.subpath}" if exc.subpath else ""
            raise ValueError(f"{where}.args.{key}{sub}: {exc}") from None
    return ExpectedTool(name=name, args=matchers, count=0)


# what forbidden_step accepts, for the suite schema
_STEP_SCHEMA: JsonDict = {
    "oneOf": [
        {"type": "string"},
        {
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 1}, "args": {"type": "object"}},
            "required": ["name"],
            "additionalProperties": False,
        },
    ]
}


class ForbiddenOptions(MetricOptions):
    tools: list[str | dict[str, Any]] = Field(
        min_length=1, json_schema_extra={"items": _STEP_SCHEMA}
    )

    @field_validator("tools")
    @classmethod
    def _compiles(cls, value: list[str | dict[str, Any]]) -> list[str | dict[str, Any]]:
        for i, raw in enumerate(value):
            forbidden_step(raw, f"tools[{i}]")
        return value


@metric("forbidden_tools")
class ForbiddenTools(Metric[ForbiddenOptions]):
    """1.0 when the turn called none of the forbidden tools; 0.0 naming those it called."""

    kind = "tool"
    dimension: ClassVar[str] = "tool_use"
    requires = frozenset()

    def __init__(self, options: ForbiddenOptions) -> None:
        super().__init__(options)
        self.steps = [forbidden_step(raw, f"tools[{i}]") for i, raw in enumerate(options.tools)]

    def measure(self, ctx: MetricContext) -> Score:
        problems = []
        called: list[str] = []
        for step in self.steps:
            hits, problem = check_tool(step, ctx.tool_invocations)
            if hits:
                problems.append(problem or f"{step.name!r} was called")
                called.extend(ctx.tool_invocations[i].name for i in hits)
        if not problems:
            return Score(1.0)
        return Score(0.0, reasoning="; ".join(problems), details={"called": called})
