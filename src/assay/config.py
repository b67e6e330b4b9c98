"""The suite file's models (SPEC §2): the single source for the YAML, the CLI and the API.

These models check the structure of a suite; ``assay.cases`` then compiles it into runnable
test cases (matchers, metric instances) and reports problems with their field paths.
A suite's ``target:`` is in ``assay.target_config``; the options of a run, which override
``execution:``, in ``assay.run_options``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    AfterValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from assay._factories import empty_list
from assay._spec_base import MODULE_NAME, Open, Strict, module_name, shorthand
from assay.limits import DEFAULT_MAX_FILE_MB, DEFAULT_MAX_REPLY_MB
from assay.target_config import TargetConfig

DEFAULT_CONCURRENCY = 16
WORKERS_FROM_TESTS = 300  # a run with more tests uses every core by default (--workers)
DEFAULT_TURN_TIMEOUT_S = 60.0
DEFAULT_METRIC_TIMEOUT_S = 300.0  # one metric on one turn, judge calls and re-asks included
DEFAULT_RETRIES = 3
DEFAULT_MAX_TURNS = 10
MAX_MAX_TURNS = 50
# a goal test's user may not stop before this many messages, and its conversation needs as
# many successful agent replies to be judged, unless max_turns or min_turns allows fewer
DEFAULT_MIN_TURNS = 2

TEST_SHAPES = ("input", "turns", "goal")  # a test has one of these (a goal may open with turns)
# A model call's reply length when none is set: small local models otherwise run on to
# the context limit (or past the timeout) when they lose the thread.
DEFAULT_MODEL_MAX_TOKENS = 1024
StructuredOutput = Literal["auto", "json_schema", "json_object", "prompt"]


def goal_floor(min_turns: int | None, max_turns: int) -> int:
    """A goal test's fewest messages before its user may stop (``min_turns``, else 2 where
    ``max_turns`` allows it)."""
    return min_turns if min_turns is not None else min(DEFAULT_MIN_TURNS, max_turns)


def replies_needed(min_turns: int | None, max_turns: int) -> int:
    """A goal test's fewest successful agent replies for a verdict: 2, or fewer where the
    test lets its conversation end sooner (``max_turns: 1``, ``min_turns: 1``)."""
    return min(DEFAULT_MIN_TURNS, goal_floor(min_turns, max_turns))


class ModelConfig(Strict):
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


class ExecutionConfig(Strict):
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1)
    turn_timeout_s: float = Field(default=DEFAULT_TURN_TIMEOUT_S, gt=0)
    metric_timeout_s: float = Field(default=DEFAULT_METRIC_TIMEOUT_S, gt=0)
    retries: int = Field(default=DEFAULT_RETRIES, ge=0)
    repeat: int = Field(default=1, ge=1)
    max_file_mb: float = Field(default=DEFAULT_MAX_FILE_MB, gt=0)


class MetricSpec(Open):
    """``equality`` or ``{metric: numeric, relative_tolerance: 0.01}``; the options are
    checked by the metric itself when the suite is compiled."""

    metric: str

    @model_validator(mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        value = shorthand("metric")(value)
        # a code grader is written {type: code, grader: module:callable}
        if isinstance(value, dict) and "metric" not in value and value.get("type") == "code":
            value = {k: v for k, v in value.items() if k != "type"} | {"metric": "code"}
        return value

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ExpectedToolSpec(Open):
    """``lookup`` or ``{name, args?, count?}``; matchers and counts are compiled later."""

    OPTIONS: ClassVar[tuple[str, ...]] = ("args", "count", "count_exact", "max_count")

    name: str

    @model_validator(mode="before")
    @classmethod
    def _short(cls, value: Any) -> Any:
        return shorthand("name")(value)

    @field_validator("name")
    @classmethod
    def _named(cls, name: str) -> str:
        if not name.strip():  # a substring of every name: it would match any call
            raise ValueError("the tool's name is empty: it would match every call")
        return name

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def _some_ground_truth(value: str | None) -> str | None:
    """An expected answer written out but empty is refused (as HoloDeck refuses it)."""
    if value is not None and not value.strip():
        raise ValueError("ground_truth is empty: leave it out when there is no expected answer")
    return value


def _some_test_name(value: str) -> str:
    """A test name written out but blank is refused (HoloDeck: "name must be non-empty if
    provided"); left out, the loader names the test by its place."""
    if not value.strip():
        raise ValueError("the test name is empty: give the test a name, or leave name out")
    return value


class FileSpec(Strict):
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
        return shorthand("path")(value)


class TurnSpec(Strict):
    input: str
    ground_truth: str | None = None
    context: str | None = None
    expected_tools: list[ExpectedToolSpec] | None = None
    metrics: list[MetricSpec] | None = None
    files: list[FileSpec] | None = None

    _ground_truth = field_validator("ground_truth")(_some_ground_truth)

    @field_validator("context", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        # one message naming the fix, not pydantic's "Input should be a valid string"
        if value is not None and not _is_text(value):
            raise ValueError(
                f"a turn's context is text (what its metrics check the reply against), not "
                f"{type(value).__name__}: write it as text"
            )
        return value


def blank_behaviour(text: str) -> bool:
    """A behaviour of a goal test's contract with nothing to judge: blank, or only full
    stops (which the contract's normalisation drops)."""
    return not text.replace(".", "").strip()


def _is_text(value: Any) -> bool:
    """Text, or a number, which is text as written (tests/cases/test_numbers_as_written.py);
    not a flag."""
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _not_json(value: Any, where: str) -> str | None:
    """What in ``value`` JSON has no word for (YAML builds dates, bytes and sets; a key of
    true or null is not text), said with where it is; None when it is all JSON."""
    if value is None or isinstance(value, str | int | float):
        return None
    if isinstance(value, list):
        inside = (_not_json(item, f"{where}[{i}]") for i, item in enumerate(value))
        return next((found for found in inside if found is not None), None)
    if isinstance(value, dict):
        for key, item in value.items():
            if not _is_text(key):
                shown = (
                    "null" if key is None else str(key).lower() if isinstance(key, bool) else key
                )
                return f"{where} has the key {shown}, which is not text"
            if (found := _not_json(item, f"{where}.{key}")) is not None:
                return found
        return None
    return f"{where} is a {type(value).__name__} ({value!s:.40}), which JSON cannot hold"


_GOAL_ONLY = ("instructions", "scenario", "restrictions", "min_turns", "required", "prohibited")


class TestSpec(Strict):
    __test__ = False  # not a pytest class
    # the schema says what _one_shape checks: exactly one of input, turns, goal, except
    # that a goal test may open with scripted turns
    model_config = ConfigDict(
        json_schema_extra={
            "oneOf": [
                {"required": ["input"]},
                {"required": ["turns"], "not": {"required": ["goal"]}},
                {"required": ["goal"]},
            ],
            "required": [],  # a test without a name is named by its place (the loader)
        }
    )

    name: str  # given by the loader when the suite leaves it out (``unnamed_test``)
    description: str | None = None
    tags: list[str] = Field(default_factory=empty_list)
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
    # strict: YAML's ``true`` is not a turn count
    max_turns: int = Field(default=DEFAULT_MAX_TURNS, ge=1, le=MAX_MAX_TURNS, strict=True)
    min_turns: int | None = Field(default=None, ge=1, strict=True)
    # the evaluation contract stated in the suite (no derivation): behaviours of the agent,
    # prohibited ones written without negation ("Promise a refund")
    required: list[str] | None = None
    prohibited: list[str] | None = None

    _ground_truth = field_validator("ground_truth")(_some_ground_truth)
    _name = field_validator("name")(_some_test_name)

    @field_validator("context", mode="before")
    @classmethod
    def _text_or_mapping(cls, value: Any) -> Any:
        # one message at tests[i].context, not pydantic's one per type; a number is text as
        # written (tests/cases/test_numbers_as_written.py), a flag or a list is neither
        if value is not None and not _is_text(value) and not isinstance(value, dict):
            fix = "write it as text or a mapping" if isinstance(value, list) else "quote it"
            raise ValueError(
                f"context is text or a mapping (what the user knows), not "
                f"{type(value).__name__}: {fix}"
            )
        # a mapping goes to the models as JSON: a date in it would fail the run, not the load
        if isinstance(value, dict) and (found := _not_json(value, "context")) is not None:
            raise ValueError(f"{found} (a context mapping is sent as JSON): quote it")
        return value

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
        if "max_turns" in self.model_fields_set:  # it has a default: written out, it is stray
            stray.append("max_turns")
        if stray:
            verb = "belongs" if len(stray) == 1 else "belong"
            raise ValueError(f"{', '.join(stray)} {verb} to goal-driven tests; add goal:")
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
            if any(blank_behaviour(item) for item in items):
                raise ValueError(f"{key} has an empty behaviour")
        stated = self.required is not None or self.prohibited is not None
        if stated and not (self.required or self.prohibited):
            raise ValueError(
                "required and prohibited list no behaviour: list at least one, or leave both "
                "out to derive the contract from the goal"
            )
        return self

    @property
    def test_type(self) -> Literal["single_turn", "multi_turn", "goal"]:
        if self.goal is not None:
            return "goal"
        return "multi_turn" if self.turns is not None else "single_turn"


PluginModule = Annotated[
    str,
    AfterValidator(module_name),
    WithJsonSchema({"type": "string", "pattern": MODULE_NAME, "not": {"pattern": r"\.py$"}}),
]


class Suite(Strict):
    name: str
    description: str | None = None
    target: TargetConfig | None = None
    judge: ModelConfig | None = None
    # the simulated user of goal-driven tests; the judge's model when not given
    simulator: ModelConfig | None = None
    execution: ExecutionConfig = Field(default_factory=ExecutionConfig)
    metrics: list[MetricSpec] = Field(default_factory=empty_list)
    datasets: list[str] = Field(default_factory=empty_list)
    # modules of the user's that register metrics (@assay.metric), next to the suite
    plugins: list[PluginModule] = Field(default_factory=empty_list)
    tests: list[TestSpec] = Field(default_factory=empty_list)

    @model_validator(mode="after")
    def _unique_names(self) -> Suite:
        seen: set[str] = set()
        for test in self.tests:
            if test.name in seen:
                raise ValueError(f"two tests are named {test.name!r}; test names must be unique")
            seen.add(test.name)
        return self
