"""A suite's ``target:`` (SPEC §2): the http, openai, python and demo targets, and the
openai target's tools."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from assay._factories import empty_dict, empty_list
from assay._spec_base import MODULE_NAME, Strict, module_name
from assay.limits import DEFAULT_MAX_REPLY_MB


class ResponseMapping(Strict):
    """JSONPath expressions that pick fields out of an HTTP target's reply."""

    text: str = "$.response"
    tool_invocations: str | None = "$.tool_invocations"
    token_usage: str | None = "$.token_usage"
    session_id: str | None = None


def env_substituted(http_pieces: Any) -> dict[str, Any]:
    """The validation context of a suite whose ``${VAR}``s the loader has substituted
    (``assay.cases.loader``): a value that came from one is not read for another, nor as a
    template; ``http_pieces``: the http target's ``url``, ``headers`` and ``body`` as written,
    each string apart from what its references gave (``assay._env_vars.pieces_of``)."""
    return {"env_substituted": True, "http_pieces": http_pieces}


class HttpTarget(Strict):
    url: str
    method: Literal["POST", "GET", "PUT"] = "POST"
    headers: dict[str, str] = Field(default_factory=empty_dict)
    body: dict[str, Any] | str | None = None
    vars: dict[str, Any] = Field(default_factory=empty_dict)  # {{ vars.x }} in url, headers, body
    response: ResponseMapping = Field(default_factory=ResponseMapping)
    timeout_s: float = Field(default=30.0, gt=0)
    stream: bool = False
    max_in_flight: int | None = Field(default=None, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    max_reply_mb: float = Field(default=DEFAULT_MAX_REPLY_MB, gt=0)
    _pieces: dict[str, Any] | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _note_substitution(self, info: ValidationInfo) -> HttpTarget:
        if info.context and info.context.get("env_substituted"):
            pieces = info.context.get("http_pieces")
            self._pieces = pieces if isinstance(pieces, dict) else {}
        return self

    def pieces(self, field: Literal["url", "headers", "body"]) -> Any:
        """When ``${VAR}`` was substituted already (by the suite loader): ``field`` as written,
        each string apart from what its references gave (``pieces_of``; check a string's with
        ``given_pieces``, for the value may have changed since); None for a config built in
        code, whose headers the target substitutes."""
        return None if self._pieces is None else self._pieces.get(field)

    @property
    def env_substituted(self) -> bool:
        """Whether ``${VAR}`` was substituted already (by the suite loader)."""
        return self._pieces is not None


TOOL_NAME = r"^[A-Za-z0-9_-]{1,64}$"  # what OpenAI's API takes as a function's name
TOOL_IMPLEMENTATION = MODULE_NAME[:-1] + r"(:[A-Za-z_][A-Za-z0-9_]*)?$"
DEFAULT_MAX_TOOL_ROUNDS = 8
_CANNED = ("result", "error", "cases")


def _tool_implementation(value: str) -> str:
    module, _, function = value.partition(":")
    module_name(module)
    if ":" in value and not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", function):
        raise ValueError(f"expected module or module:function, got {value!r}")
    return value


def _tool_name(value: str) -> str:
    if not re.match(TOOL_NAME, value):
        raise ValueError(
            f"a tool's name is 1 to 64 letters, digits, _ or - (the API's rule), got {value!r}"
        )
    return value


ToolName = Annotated[
    str, AfterValidator(_tool_name), WithJsonSchema({"type": "string", "pattern": TOOL_NAME})
]
ToolImplementation = Annotated[
    str,
    AfterValidator(_tool_implementation),
    WithJsonSchema(
        {"type": "string", "pattern": TOOL_IMPLEMENTATION, "not": {"pattern": r"\.py(:|$)"}}
    ),
]
# a JSON Schema (checked against the dialect's own) of an object: a tool's arguments
ToolParameters = Annotated[
    dict[str, Any],
    WithJsonSchema(
        {
            "allOf": [
                {"$ref": "https://json-schema.org/draft/2020-12/schema"},
                {
                    "type": "object",
                    "properties": {"type": {"const": "object"}},
                    "required": ["type"],
                },
            ]
        }
    ),
]


class ToolCase(Strict):
    """A canned outcome for the calls whose arguments include ``args``."""

    model_config = ConfigDict(
        json_schema_extra={"oneOf": [{"required": ["result"]}, {"required": ["error"]}]}
    )

    args: dict[str, Any]
    result: Any = None
    error: str | None = None

    @model_validator(mode="after")
    def _one_outcome(self) -> ToolCase:
        given = [k for k in ("result", "error") if k in self.model_fields_set]
        if len(given) != 1:
            raise ValueError("give a case exactly one of result: or error:")
        return self


class OpenAITool(Strict):
    """A function the openai target offers the model: declared by a JSON Schema, run by a
    Python function (``implementation``) or answered with canned ``result``/``error``/
    ``cases``."""

    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {
                    "required": ["implementation"],
                    "not": {"anyOf": [{"required": [k]} for k in _CANNED]},
                },
                {
                    "not": {
                        "anyOf": [
                            {"required": ["implementation"]},
                            {"required": ["result", "error"]},
                        ]
                    },
                    "anyOf": [{"required": [k]} for k in _CANNED],
                },
            ]
        }
    )

    name: ToolName
    description: str | None = None
    parameters: ToolParameters = Field(default_factory=lambda: {"type": "object", "properties": {}})
    # a module next to the suite with a function of the tool's name, or module:function
    implementation: ToolImplementation | None = None
    result: Any = None  # canned: what every call gets (unless a case matches)
    error: str | None = None  # canned: every call fails with this
    cases: list[ToolCase] = Field(default_factory=empty_list)

    @field_validator("parameters")
    @classmethod
    def _json_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        import jsonschema  # only for suites that declare tools

        try:
            jsonschema.Draft202012Validator.check_schema(value)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"not a valid JSON Schema: {exc.message}") from None
        if value.get("type") != "object":
            raise ValueError("a tool's arguments are an object: give the schema type: object")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> OpenAITool:
        canned = [k for k in _CANNED if k in self.model_fields_set]
        if self.implementation is not None and canned:
            raise ValueError(f"give either implementation: or canned {'/'.join(canned)}:, not both")
        if self.implementation is None and not canned:
            raise ValueError(
                "give implementation: (a module next to the suite) or a canned result:, "
                "error: or cases:"
            )
        if "error" in self.model_fields_set and "result" in self.model_fields_set:
            raise ValueError("give result: or error:, not both (cases: can mix them)")
        return self


class OpenAITarget(Strict):
    base_url: str
    model: str
    api_key_env: str | None = "OPENAI_API_KEY"
    system_prompt: str | None = None
    temperature: float | None = None
    timeout_s: float = Field(default=60.0, gt=0)
    max_in_flight: int | None = Field(default=None, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    max_reply_mb: float = Field(default=DEFAULT_MAX_REPLY_MB, gt=0)
    # functions offered to the model; the target runs the calls and sends the results back
    tools: list[OpenAITool] = Field(default_factory=empty_list)
    # model replies with tool calls answered per turn; one more is a failed turn
    max_tool_rounds: int = Field(default=DEFAULT_MAX_TOOL_ROUNDS, ge=1)

    @model_validator(mode="after")
    def _unique_tools(self) -> OpenAITarget:
        names = [t.name for t in self.tools]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"two tools are named {twice[0]!r}; tool names must be unique")
        return self


class TargetConfig(Strict):
    http: HttpTarget | None = None
    openai: OpenAITarget | None = None
    python: str | None = None
    demo: Literal["travel"] | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> TargetConfig:
        chosen = [k for k in ("http", "openai", "python", "demo") if getattr(self, k) is not None]
        if len(chosen) != 1:
            raise ValueError(
                "give exactly one of http, openai, python, demo"
                + (f" (got {', '.join(chosen)})" if chosen else "")
            )
        return self

    @field_validator("python")
    @classmethod
    def _module_func(cls, value: str | None) -> str | None:
        if value is not None and (value.count(":") != 1 or not all(value.split(":"))):
            raise ValueError(f"expected 'module:function', got {value!r}")
        return value

    @property
    def kind(self) -> str:
        return next(k for k in ("http", "openai", "python", "demo") if getattr(self, k))
