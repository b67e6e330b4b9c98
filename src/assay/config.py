"""The suite file's models (SPEC §2): the single source for the YAML, the CLI and the API.

These models check the structure of a suite; ``assay.cases`` then compiles it into runnable
test cases (matchers, metric instances) and reports problems with their field paths.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from assay.limits import DEFAULT_MAX_FILE_MB

DEFAULT_CONCURRENCY = 16
WORKERS_FROM_TESTS = 300  # a run with more tests uses every core by default (--workers)
DEFAULT_TURN_TIMEOUT_S = 60.0
DEFAULT_METRIC_TIMEOUT_S = 300.0  # one metric on one turn, judge calls and re-asks included
DEFAULT_RETRIES = 3
DEFAULT_MAX_TURNS = 10
MAX_MAX_TURNS = 50
DEFAULT_MAX_REPLY_MB = 10.0  # the largest reply read from a target or model, decompressed
MODULE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"
TEST_SHAPES = ("input", "turns", "goal")  # a test has one of these (a goal may open with turns)
# A model call's reply length when none is set: small local models otherwise run on to
# the context limit (or past the timeout) when they lose the thread.
DEFAULT_MODEL_MAX_TOKENS = 1024
StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


class _Open(BaseModel):
    """A spec whose unknown keys are options, checked later by their owner."""

    model_config = ConfigDict(extra="allow", coerce_numbers_to_str=True)


def _shorthand(key: str) -> Any:
    """Accept ``"x"`` as a short form of ``{key: "x"}``."""

    def expand(value: Any) -> Any:
        return {key: value} if isinstance(value, str) else value

    return expand


class ResponseMapping(_Strict):
    """JSONPath expressions that pick fields out of an HTTP target's reply."""

    text: str = "$.response"
    tool_invocations: str | None = "$.tool_invocations"
    token_usage: str | None = "$.token_usage"
    session_id: str | None = None


class HttpTarget(_Strict):
    url: str
    method: Literal["POST", "GET", "PUT"] = "POST"
    headers: dict[str, str] = Field(default_factory=dict)
    body: dict[str, Any] | str | None = None
    vars: dict[str, Any] = Field(default_factory=dict)  # {{ vars.x }} in url, headers, body
    response: ResponseMapping = Field(default_factory=ResponseMapping)
    timeout_s: float = Field(default=30.0, gt=0)
    stream: bool = False
    max_in_flight: int | None = Field(default=None, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    max_reply_mb: float = Field(default=DEFAULT_MAX_REPLY_MB, gt=0)


TOOL_NAME = r"^[A-Za-z0-9_-]{1,64}$"  # what OpenAI's API takes as a function's name
TOOL_IMPLEMENTATION = MODULE_NAME[:-1] + r"(:[A-Za-z_][A-Za-z0-9_]*)?$"
DEFAULT_MAX_TOOL_ROUNDS = 8
_CANNED = ("result", "error", "cases")


def _tool_implementation(value: str) -> str:
    module, _, function = value.partition(":")
    _module_name(module)
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


class ToolCase(_Strict):
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


class OpenAITool(_Strict):
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
    cases: list[ToolCase] = Field(default_factory=list)

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


class OpenAITarget(_Strict):
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
    tools: list[OpenAITool] = Field(default_factory=list)
    # model replies with tool calls answered per turn; one more is a failed turn
    max_tool_rounds: int = Field(default=DEFAULT_MAX_TOOL_ROUNDS, ge=1)

    @model_validator(mode="after")
    def _unique_tools(self) -> OpenAITarget:
        names = [t.name for t in self.tools]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise ValueError(f"two tools are named {twice[0]!r}; tool names must be unique")
        return self


class TargetConfig(_Strict):
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


class ModelConfig(_Strict):
    """A judge or simulated-user model (SPEC §7)."""

    provider: Literal["openai", "anthropic"]
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    temperature: float = 0.0
    # null sends none (the server's own limit applies)
    max_tokens: int | None = Field(default=DEFAULT_MODEL_MAX_TOKENS, ge=1)
    # how JSON replies are asked for; "auto" tries json_schema, then json_object with the
    # schema, then plain text with an example in the prompt, and remembers what worked
    structured_output: StructuredOutput = "auto"
    timeout_s: float = Field(default=60.0, gt=0)
    max_in_flight: int | None = Field(default=None, ge=1)
    requests_per_minute: float | None = Field(default=None, gt=0)
    max_reply_mb: float = Field(default=DEFAULT_MAX_REPLY_MB, gt=0)


class ExecutionConfig(_Strict):
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1)
    turn_timeout_s: float = Field(default=DEFAULT_TURN_TIMEOUT_S, gt=0)
    metric_timeout_s: float = Field(default=DEFAULT_METRIC_TIMEOUT_S, gt=0)
    retries: int = Field(default=DEFAULT_RETRIES, ge=0)
    repeat: int = Field(default=1, ge=1)
    max_file_mb: float = Field(default=DEFAULT_MAX_FILE_MB, gt=0)


class RunOptions(BaseModel):
    """Every option of a run, one list for the three ways in: ``assay.run(...)``'s keyword
    arguments, ``assay run``'s flags (``--turn-timeout-s``; ``datasets`` is ``dataset=`` and
    ``--dataset``) and, for the keys of ``execution:``, the suite.

    The one override rule: an option given (to ``assay.run`` or on the command line) wins
    over the suite's ``execution:``, which wins over the default. ``target`` and ``judge``
    replace the suite's own; ``datasets`` are added to the suite's ``datasets:``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    datasets: list[Path] = Field(
        default_factory=list,
        description="a CSV/XLSX/JSONL file whose rows are added as tests (repeatable)",
    )
    target: str | None = Field(
        default=None,
        description="the agent to test, replacing the suite's target: an http(s) URL, demo, "
        "or module:function",
    )
    judge: str | None = Field(
        default=None,
        description="PROVIDER:MODEL (openai or anthropic) for judge metrics and goal tests, "
        "replacing the suite's judge",
    )
    judge_base_url: str | None = Field(
        default=None, description="the judge's server, e.g. a local Ollama's /v1 URL"
    )
    concurrency: int | None = Field(
        default=None,
        ge=1,
        description=f"conversations run at once (execution.concurrency, default "
        f"{DEFAULT_CONCURRENCY})",
    )
    workers: int | None = Field(
        default=None,
        ge=1,
        description=f"worker processes the tests are shared over, each with its share of the "
        f"concurrency and endpoint limits (default: one per core when the run has more than "
        f"{WORKERS_FROM_TESTS} tests, else 1); with --executor ray, the Ray tasks",
    )
    executor: Literal["local", "ray"] | None = Field(
        default=None,
        description="local (this machine's processes, the default) or ray (Ray tasks; pip "
        "install 'assay[ray]')",
    )
    ray_address: str | None = Field(
        default=None,
        description="the Ray cluster for --executor ray: ray://HOST:10001, or auto for the "
        "one this machine belongs to (default: a local Ray started for the run)",
    )
    repeat: int | None = Field(
        default=None, ge=1, description="run each test K times (execution.repeat, default 1)"
    )
    limit: int | None = Field(default=None, ge=1, description="run only the first N tests")
    keyword: str | None = Field(
        default=None,
        description="run only the tests whose names match EXPR: words matched as "
        "case-insensitive substrings, with and, or, not and parentheses, as in pytest's -k",
    )
    tags: list[str] = Field(
        default_factory=list,
        description="run only the tests with this tag (repeatable: a test runs if it has any "
        "of them)",
    )
    only_failed: str | None = Field(
        default=None,
        description="run only the tests that failed or errored in the stored run RUN_ID (a "
        "new run, comparable with assay diff); without a suite, that run's suite and datasets",
    )
    turn_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description=f"seconds one turn may take (execution.turn_timeout_s, default "
        f"{DEFAULT_TURN_TIMEOUT_S:g})",
    )
    metric_timeout_s: float | None = Field(
        default=None,
        gt=0,
        description=f"seconds one metric may take on one turn (execution.metric_timeout_s, "
        f"default {DEFAULT_METRIC_TIMEOUT_S:g})",
    )
    retries: int | None = Field(
        default=None,
        ge=0,
        description=f"retries of a failed connection, 429 or 5xx (execution.retries, default "
        f"{DEFAULT_RETRIES})",
    )
    max_file_mb: float | None = Field(
        default=None,
        gt=0,
        description=f"the largest file a test may attach, in MB (execution.max_file_mb, "
        f"default {DEFAULT_MAX_FILE_MB:g})",
    )
    no_cache: bool = Field(default=False, description="bypass the judge response cache")

    def execution(self, suite: ExecutionConfig) -> ExecutionConfig:
        """The suite's ``execution:`` (its defaults filled in) with the options given here."""
        given = {
            name: value
            for name in ExecutionConfig.model_fields
            if (value := getattr(self, name)) is not None
        }
        return suite.model_copy(update=given)


class MetricSpec(_Open):
    """``equality`` or ``{metric: numeric, relative_tolerance: 0.01}``; the options are
    checked by the metric itself when the suite is compiled."""

    metric: str

    @model_validator(mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        value = _shorthand("metric")(value)
        # a code grader is written {type: code, grader: module:callable}
        if isinstance(value, dict) and "metric" not in value and value.get("type") == "code":
            value = {k: v for k, v in value.items() if k != "type"} | {"metric": "code"}
        return value

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ExpectedToolSpec(_Open):
    """``lookup`` or ``{name, args?, count?}``; matchers and counts are compiled later."""

    OPTIONS: ClassVar[tuple[str, ...]] = ("args", "count", "count_exact", "max_count")

    name: str

    @model_validator(mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        return _shorthand("name")(value)

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class FileSpec(_Strict):
    """A file attached to a turn: ``report.pdf`` or ``{path, mime_type, as: text|binary}``,
    the path relative to the suite's folder."""

    model_config = ConfigDict(populate_by_name=True)

    path: str = Field(min_length=1)
    mime_type: str | None = None
    read_as: Literal["text", "binary"] | None = Field(
        default=None,
        alias="as",
        description="text: send its text (a PDF's, a workbook's as tables); binary: its bytes",
    )

    @model_validator(mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        return _shorthand("path")(value)


class TurnSpec(_Strict):
    input: str
    ground_truth: str | None = None
    context: str | None = None
    expected_tools: list[ExpectedToolSpec] | None = None
    metrics: list[MetricSpec] | None = None
    files: list[FileSpec] | None = None


_GOAL_ONLY = ("instructions", "scenario", "restrictions", "min_turns", "required", "prohibited")


class TestSpec(_Strict):
    __test__ = False  # not a pytest class
    # the schema says what _one_shape checks: exactly one of input, turns, goal, except
    # that a goal test may open with scripted turns
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"required": ["input"]},
                {"required": ["turns"], "not": {"required": ["goal"]}},
                {"required": ["goal"]},
            ]
        }
    )

    name: str
    description: str | None = None
    tags: list[str] = Field(default_factory=list)
    metrics: list[MetricSpec] | None = None
    # single-turn
    input: str | None = None
    ground_truth: str | None = None
    context: str | dict[str, Any] | None = None  # also a goal test's additional context
    expected_tools: list[ExpectedToolSpec] | None = None
    files: list[FileSpec] | None = None
    # scripted multi-turn
    turns: list[TurnSpec] | None = None
    expected_trajectory: list[ExpectedToolSpec] | None = None
    # goal-driven (specs/test-types.txt); ``turns``, when given, open the conversation
    goal: str | None = None
    instructions: str | None = None
    scenario: str | None = None
    restrictions: str | None = None
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=MAX_MAX_TURNS)
    min_turns: int | None = Field(default=None, ge=1)
    # the evaluation contract stated in the suite (no derivation): behaviours of the agent,
    # prohibited ones written without negation ("Promise a refund")
    required: list[str] | None = None
    prohibited: list[str] | None = None

    @model_validator(mode="after")
    def _one_shape(self) -> TestSpec:
        if self.goal is not None:
            return self._goal_shape()
        shapes = [k for k in TEST_SHAPES if getattr(self, k) is not None]
        if len(shapes) != 1:
            raise ValueError(
                "a test has exactly one of input (single-turn), turns (scripted multi-turn) "
                "or goal (goal-driven)"
                + (f"; this one has {' and '.join(shapes)}" if shapes else "; this one has none")
            )
        if self.turns is not None and not self.turns:
            raise ValueError("turns is empty: give at least one turn, or use input")
        per_turn = [
            k for k in ("ground_truth", "expected_tools", "context", "files") if getattr(self, k)
        ]
        if self.turns is not None and per_turn:
            raise ValueError(
                f"{' and '.join(per_turn)} go on each turn of a multi-turn test, not on the "
                "test (move it under the turn it belongs to)"
            )
        stray = [k for k in _GOAL_ONLY if getattr(self, k) is not None]
        if stray:
            raise ValueError(f"{', '.join(stray)} belong to goal-driven tests; add goal:")
        return self

    def _goal_shape(self) -> TestSpec:
        assert self.goal is not None
        if not self.goal.strip():
            raise ValueError("goal is empty")
        if self.input is not None:
            raise ValueError(
                "a goal-driven test has no input: its simulated user writes the messages "
                "(to script how the conversation opens, give turns:)"
            )
        if self.ground_truth or self.expected_tools or self.files:
            raise ValueError(
                "ground_truth, expected_tools and files go on each turn, not on a goal test"
            )
        if self.turns is not None and not self.turns:
            raise ValueError("turns is empty: give the opening turns, or leave turns out")
        if self.turns is not None and len(self.turns) > self.max_turns:
            raise ValueError(f"{len(self.turns)} opening turns exceed max_turns ({self.max_turns})")
        if self.min_turns is not None and self.min_turns > self.max_turns:
            raise ValueError(f"min_turns ({self.min_turns}) exceeds max_turns ({self.max_turns})")
        for key in ("required", "prohibited"):
            items = getattr(self, key) or []
            if any(not item.strip() for item in items):
                raise ValueError(f"{key} has an empty behaviour")
        return self

    @property
    def test_type(self) -> Literal["single_turn", "multi_turn", "goal"]:
        if self.goal is not None:
            return "goal"
        return "multi_turn" if self.turns is not None else "single_turn"


def _module_name(name: str) -> str:
    if name.endswith(".py"):
        raise ValueError(f"write the module's name, {name[:-3]!r}, not its file name")
    if not re.match(MODULE_NAME, name):
        raise ValueError(
            f"expected a module name such as my_metrics (for my_metrics.py next to the "
            f"suite), got {name!r}"
        )
    return name


PluginModule = Annotated[
    str,
    AfterValidator(_module_name),
    WithJsonSchema({"type": "string", "pattern": MODULE_NAME, "not": {"pattern": r"\.py$"}}),
]


class Suite(_Strict):
    name: str
    description: str | None = None
    target: TargetConfig | None = None
    judge: ModelConfig | None = None
    # the simulated user of goal-driven tests; the judge's model when not given
    simulator: ModelConfig | None = None
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    metrics: list[MetricSpec] = Field(default_factory=list)
    datasets: list[str] = Field(default_factory=list)
    # modules of the user's that register metrics (@assay.metric), next to the suite
    plugins: list[PluginModule] = Field(default_factory=list)
    tests: list[TestSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_names(self) -> Suite:
        seen: set[str] = set()
        for test in self.tests:
            if test.name in seen:
                raise ValueError(f"two tests are named {test.name!r}; test names must be unique")
            seen.add(test.name)
        return self
