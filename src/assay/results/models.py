"""The per-turn result contract (specs/turn-result-contract.txt), as pydantic models.

One record type flows end to end: the runner produces these, the store persists them,
reporters render them and the dashboard serves them.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal, TypeVar, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from assay._factories import empty_dict, empty_list
from assay._millis import whole_ms

SCHEMA_VERSION = "1.0"

TestType = Literal["single_turn", "multi_turn", "goal"]
MetricKind = Literal["standard", "tool", "code", "judge", "conversation"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class TokenUsage(_Record):
    """Token counters; all five are summed element-wise by ``+``."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_creation_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cache_creation_tokens=self.cache_creation_tokens + other.cache_creation_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
        )


class ToolInvocation(_Record):
    name: str
    args: dict[str, Any] = Field(default_factory=empty_dict)
    result: Any = None
    bytes: int | None = None
    # whole milliseconds, as the contract's example and HoloDeck's ToolInvocation have it
    duration_ms: Annotated[int | None, BeforeValidator(whole_ms)] = None
    error: str | None = None


class ProcessedFile(_Record):
    """A file a turn attached (``files:``), as it was sent: its metadata, never its content."""

    name: str
    path: str = Field(description="as written in the suite or the dataset")
    mime_type: str
    bytes: int
    sha256: str
    read_as: Literal["text", "pdf", "xlsx", "image", "binary"] = Field(
        description="how it was read: UTF-8 text, a PDF's text, a workbook's sheets as "
        "Markdown tables, an image, or bytes sent unread"
    )
    pages: int | None = None  # a PDF's
    sheets: list[str] | None = None  # a workbook's
    text_chars: int | None = Field(default=None, description="characters of text sent")


class MetricResult(_Record):
    metric_name: str
    kind: MetricKind = "standard"
    score: float | None = None
    threshold: float | None = None
    passed: bool | None = None
    scale: Literal["0-1"] = "0-1"
    error: str | None = None
    retry_count: int = 0
    # whole milliseconds, as the contract's example has it
    evaluation_time_ms: Annotated[int, BeforeValidator(whole_ms)] = 0
    model_used: str | None = None
    reasoning: str | None = None
    dimension: str | None = None
    details: dict[str, Any] | None = None


METRIC_KINDS = frozenset(get_args(MetricKind))
_M = TypeVar("_M", bound=BaseModel)
_new = object.__new__
# the four slots every model has, set by their own descriptors (what ``object.__setattr__``
# finds for these names on any model class, looked up once here instead of at each call)
_set_dict = vars(BaseModel)["__dict__"].__set__
_set_fields_set = vars(BaseModel)["__pydantic_fields_set__"].__set__
_set_extra = vars(BaseModel)["__pydantic_extra__"].__set__
_set_private = vars(BaseModel)["__pydantic_private__"].__set__


def prevalidated(cls: type[_M], values: dict[str, Any], given: set[str]) -> _M:
    """A model made as validation makes it, without validating: ``values`` holds every field,
    in field order, each already of exactly its field's type (the caller checked, and takes
    the validating constructor otherwise); ``given``: the fields a caller would have passed.
    For the few records made once per turn, where validation costs more than the turn's
    other bookkeeping; ``model_construct`` costs more still."""
    model = _new(cls)
    _set_dict(model, values)
    _set_fields_set(model, given)
    _set_extra(model, None)
    _set_private(model, None)
    return model


_T = TypeVar("_T")


class _Factory:
    """A parameter left to its field's default factory (shown as dataclasses shows it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def one_step_init(cls: type[_T]) -> type[_T]:
    """``cls``, a frozen dataclass made once or more per turn (``TurnRequest``,
    ``MetricContext``, ``Score``) or per dataset row (``Turn``, ``TestCase``), with an
    ``__init__`` that fills the instance's
    ``__dict__`` in one step instead of one ``object.__setattr__`` per field (what a frozen
    dataclass's own ``__init__`` does): the same parameters, in the same order, with the
    same defaults and default factories. For classes without ``__post_init__``, init-only
    or keyword-only fields, and without ``__slots__``."""
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: one_step_init cannot make its __init__")
    # the instance's ``__dict__`` set by its descriptor: what ``object.__setattr__`` finds
    # for the name (the first in the class's MRO), looked up here once instead of per call
    where = next(c for c in cls.__mro__ if "__dict__" in vars(c))
    env: dict[str, Any] = {"_set_dict": vars(where)["__dict__"].__set__, "_FACTORY": _FACTORY}
    params, items = [], []
    for f in fields:
        if not f.init or f.kw_only or f.name.startswith("_"):
            raise TypeError(f"{cls.__name__}.{f.name}: one_step_init cannot make its __init__")
        value = f.name
        if f.default is not dataclasses.MISSING:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            value = f"_factory_{f.name}() if {f.name} is _FACTORY else {f.name}"
        else:
            params.append(f.name)
        items.append(f"{f.name!r}: {value}")
    body = f"_set_dict(self, {{{', '.join(items)}}})"
    source = f"def __init__(self, {', '.join(params)}):\n    {body}\n"
    exec(source, env)  # as dataclasses makes its own __init__
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    setattr(cls, "__init__", init)  # noqa: B010 (the class's own, replaced)
    return cls


class ArgMatchDetail(_Record):
    expected_tool: str
    args_asserted: dict[str, Any]
    matched_call_index: int
    unmatched_reason: str | None = None

    def __getitem__(self, field: str) -> Any:
        """``detail["matched_call_index"]``: the contract gives an entry as a JSON object, and
        HoloDeck's own results hold it as a dict, so code written for them reads it so."""
        try:
            return self.__dict__[field]
        except KeyError:
            raise KeyError(field) from None


class TurnResult(_Record):
    turn_index: int
    input: str
    response: str | None = None
    ground_truth: str | None = None
    expected_tools: list[str | dict[str, Any]] | None = None
    tool_calls: list[str] = Field(default_factory=empty_list)
    tool_invocations: list[ToolInvocation] = Field(default_factory=empty_list)
    tools_matched: bool | None = None
    arg_match_details: list[ArgMatchDetail] | None = None
    tool_mismatches: list[str] = Field(
        default_factory=empty_list, description="why each failed tool assertion failed"
    )
    metric_results: list[MetricResult] = Field(default_factory=empty_list)
    metrics_not_run: dict[str, str] = Field(
        default_factory=empty_dict, description="metric name -> why it did not run on this turn"
    )
    processed_files: list[ProcessedFile] = Field(
        default_factory=empty_list, description="the files this turn attached"
    )
    passed: bool
    execution_time_ms: int
    time_to_first_token_ms: int | None = None
    token_usage: TokenUsage | None = None
    errors: list[str] = Field(default_factory=empty_list)
    skipped: bool = False


class TestResult(_Record):
    __test__ = False  # not a pytest class

    test_name: str
    test_type: TestType
    test_input: str
    agent_response: str | None = None
    processed_files: list[ProcessedFile] = Field(
        default_factory=empty_list, description="the files the turns attached, in turn order"
    )
    tool_calls: list[str] = Field(default_factory=empty_list)
    tool_invocations: list[ToolInvocation] = Field(default_factory=empty_list)
    expected_tools: list[str | dict[str, Any]] | None = None
    tools_matched: bool | None = None
    arg_match_details: list[ArgMatchDetail] | None = None
    tool_mismatches: list[str] = Field(
        default_factory=empty_list,
        description="a single-turn test's: why each failed tool assertion failed (a multi-turn "
        "test's are on its turns)",
    )
    ground_truth: str | None = None
    metric_results: list[MetricResult] = Field(default_factory=empty_list)
    metrics_not_run: dict[str, str] = Field(default_factory=empty_dict)
    passed: bool
    status: Literal["passed", "failed", "error", "not_run"] = "passed"
    execution_time_ms: int
    time_to_first_token_ms: int | None = None  # single-turn tests; see each turn otherwise
    token_usage: TokenUsage | None = None
    errors: list[str] = Field(default_factory=empty_list)
    warnings: list[str] = Field(
        default_factory=empty_list,
        description="what did not fail the test but was left out (a reply's unreadable token "
        "usage) or changed to store the result (a clamped number, cleaned text)",
    )
    timestamp: str
    turns: list[TurnResult] | None = Field(
        default=None, description="Present only for multi-turn test cases; never empty."
    )
    trace: dict[str, Any] | None = None
    repeat_index: int = 0
    tags: list[str] = Field(default_factory=empty_list)


class RunInfo(_Record):
    id: str
    suite_name: str
    status: Literal["running", "completed", "interrupted", "failed"] = "completed"
    started_at: str
    finished_at: str | None = None
    assay_version: str
    git_commit: str | None = None
    target: str | None = None
    config: dict[str, Any] = Field(default_factory=empty_dict)


class NotRun(_Record):
    """A metric that did not run on some tests (missing inputs, no judge model)."""

    tests: int
    reason: str


class RepeatStats(_Record):
    """A test run K times (``--repeat K``)."""

    runs: int
    passed: int
    pass_at_1: float  # the share of runs that passed
    pass_all: bool  # pass^K: every run passed
    flaky: bool  # some runs passed and some failed


def pass_percent(passed: int, total: int) -> float | None:
    """``passed`` of ``total`` tests as a percentage, 0-100 (HoloDeck's ``pass_rate``);
    None for no tests, where there is no rate (not 0: nothing failed either)."""
    return passed * 100 / total if total else None


def pass_share(passed: int, total: int) -> float | None:
    """``passed`` of ``total`` tests as a share, 0-1 (what "80.0%" shows); None for none."""
    return passed / total if total else None


_TOTAL_TIME_NAMES = (
    ("execution_time_ms", "total_duration_ms"),
    ("total_duration_ms", "execution_time_ms"),
)


class ReportSummary(_Record):
    """Counts test cases, not turns: ``passed + failed == total_tests``."""

    total_tests: int = 0
    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_run: int = 0
    pass_rate: float | None = Field(
        default=None,
        description="percentage of tests passed, 0-100: 100 * passed / total_tests; "
        "null with no tests",
    )
    total_turns: int = 0
    metrics_evaluated: dict[str, int] = Field(default_factory=empty_dict)
    metrics_not_run: dict[str, NotRun] = Field(
        default_factory=empty_dict, description="metrics absent on some tests, and the first reason"
    )
    average_scores: dict[str, float] = Field(default_factory=empty_dict)
    dimensions: dict[str, dict[str, float | int]] = Field(default_factory=empty_dict)
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    execution_time_ms: int = Field(default=0, description="the tests' times summed, ms")
    total_duration_ms: int = Field(
        default=0, description="HoloDeck's name for execution_time_ms: the same value"
    )
    repeat: int = 1
    pass_at_1: float | None = Field(default=None, description="mean over tests, --repeat > 1")
    pass_all_k: float | None = Field(
        default=None, description="share of tests whose K runs all passed (pass^K)"
    )
    flaky_tests: list[str] = Field(default_factory=empty_list)
    repeats: dict[str, RepeatStats] = Field(default_factory=empty_dict)

    @model_validator(mode="before")
    @classmethod
    def _one_total_time(cls, data: Any) -> Any:
        # HoloDeck's summaries name the total total_duration_ms, assay's written before it
        # was added only execution_time_ms: either reads as both
        if isinstance(data, dict):
            for given, missing in _TOTAL_TIME_NAMES:
                if given in data and missing not in data:
                    return {**data, missing: data[given]}
        return data

    @model_validator(mode="after")
    def _rate_from_counts(self) -> ReportSummary:
        # derived from the counts whatever was read: summaries written before it became a
        # percentage (stored runs, report files) hold the 0-1 share, which 1.0 leaves unclear
        self.pass_rate = pass_percent(self.passed, self.total_tests)
        return self

    @property
    def pass_fraction(self) -> float | None:
        """``passed / total_tests`` (0-1), what ``--fail-under`` and the reports' "80.0%"
        read; None for no tests."""
        return pass_share(self.passed, self.total_tests)


class Report(_Record):
    schema_version: str = SCHEMA_VERSION
    run: RunInfo
    results: list[TestResult]
    summary: ReportSummary
