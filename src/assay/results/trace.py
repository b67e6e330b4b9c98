"""The goal-driven test trace (specs/test-types.txt, "Penelope Trace Structure").

The keys and their meaning follow the spec: ``status``, ``goal_achieved``, ``turns_used``,
``findings``, ``history`` (per turn: ``turn_number``, ``reasoning``, ``assistant_message``,
``tool_message``), ``goal_evaluation`` (``all_criteria_met``, ``criteria_evaluations``,
``confidence``, ``reasoning``, ``evidence``), ``execution_stats`` and
``metrics["Goal Achievement"]`` (``score``, ``is_successful``, ``confidence``).

In ``history``, as in the source, ``assistant_message`` is the simulated user's action
(OpenAI's message shape: its text, and a ``send_message_to_target`` tool call) and
``tool_message`` is what that action returned: the agent's reply, its tool calls, or the
error the turn ended with. assay adds ``schema_version`` (this schema's version,
``assay schema trace``) and ``contract`` (the evaluation contract the test was judged
against).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.results.models import TokenUsage, ToolInvocation

TRACE_SCHEMA_VERSION = "1.0"
GOAL_METRIC = "Goal Achievement"

BehaviourSource = Literal["goal", "instructions", "restrictions", "scenario", "suite"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class Evidence(_Record):
    turn: int = Field(ge=1, description="the turn (history's turn_number) it comes from")
    quote: str
    verbatim: bool = Field(
        default=False, description="the quote was found, as written, in that turn"
    )


class CriterionEvaluation(_Record):
    criterion: str
    kind: Literal["required", "prohibited"]
    source: BehaviourSource | None = Field(
        default=None, description="the test field the behaviour was derived from"
    )
    met: bool = Field(
        description="required: shown; prohibited: never occurred (one occurrence is a violation)"
    )
    evidence: list[Evidence] = Field(default_factory=list)
    confidence: float = Field(ge=0, le=1)
    reasoning: str | None = None


def unmet_behaviour(kind: str, criterion: str) -> str:
    """``prohibited behaviour occurred: Promise a refund``, ``required behaviour not shown:
    ...``: how the trace, the terminal and every report word a behaviour that failed."""
    what = "occurred" if kind == "prohibited" else "not shown"
    return f"{kind} behaviour {what}: {criterion}"


class GoalEvaluation(_Record):
    all_criteria_met: bool
    criteria_evaluations: list[CriterionEvaluation] = Field(default_factory=list)
    confidence: float = Field(ge=0, le=1)
    reasoning: str | None = None
    evidence: list[Evidence] = Field(default_factory=list)


class ToolCallFunction(_Record):
    name: str
    arguments: str  # JSON text, as in OpenAI's messages


class ToolCall(_Record):
    id: str
    type: Literal["function"] = "function"
    function: ToolCallFunction


class SimulatedUserMessage(_Record):
    """The simulated user's action on a turn: the message it sent to the agent."""

    role: str = "assistant"
    content: str
    tool_calls: list[ToolCall] = Field(default_factory=list)


class AgentMessage(_Record):
    """What the agent returned for the turn: its reply text, or the error the turn ended
    with (``success`` false; the simulated user and the judge were shown it)."""

    role: str = "tool"
    tool_call_id: str | None = None
    name: str | None = None
    content: str
    success: bool = True
    error: str | None = None
    tool_invocations: list[ToolInvocation] = Field(default_factory=list)
    latency_ms: float | None = None


class TraceTurn(_Record):
    turn_number: int = Field(ge=1)
    reasoning: str | None = Field(
        default=None, description="the simulated user's reasoning; null for a scripted turn"
    )
    assistant_message: SimulatedUserMessage | None = None
    tool_message: AgentMessage | None = None


class RoleStats(_Record):
    """Calls, tokens and cost of one party of the test, kept apart from the others."""

    model: str | None = None
    calls: int = 0
    token_usage: TokenUsage = Field(default_factory=TokenUsage)
    cost_usd: float | None = None
    structured_output: str | None = Field(
        default=None, description="how JSON was asked for: json_schema, json_object, prompt"
    )


class TurnTiming(_Record):
    turn_number: int
    simulated_user_ms: float | None = None  # null for a scripted opening turn
    agent_ms: float


class ExecutionStats(_Record):
    duration_ms: float
    # simulated_user_failed: the simulated user gave no usable next message (stop_reason)
    stopped_by: Literal[
        "simulated_user", "simulated_user_failed", "max_turns", "session_lost", "not_started"
    ]
    stop_reason: str | None = None
    successful_replies: int
    failed_turns: int
    turn_timings: list[TurnTiming] = Field(default_factory=list)
    agent: RoleStats = Field(default_factory=RoleStats)
    simulated_user: RoleStats = Field(default_factory=RoleStats)
    judge: RoleStats = Field(default_factory=RoleStats)
    contract: RoleStats = Field(default_factory=RoleStats)


class GoalMetric(_Record):
    score: float | None = Field(ge=0, le=1, description="the share of behaviours met")
    is_successful: bool = Field(description="every behaviour met")
    confidence: float = Field(ge=0, le=1)


class ContractBehaviour(_Record):
    behaviour: str
    source: BehaviourSource


class TraceContract(_Record):
    """The evaluation contract the conversation was judged against."""

    hash: str
    origin: Literal["suite", "file", "store", "derived"]
    file: str | None = None
    simulated_user_objective: str
    adversarial: bool
    confidence: float
    required: list[ContractBehaviour] = Field(default_factory=list)
    prohibited: list[ContractBehaviour] = Field(default_factory=list)


class GoalTrace(_Record):
    schema_version: str = TRACE_SCHEMA_VERSION
    status: Literal["success", "failure", "error"]
    goal_achieved: bool
    turns_used: int
    findings: list[str] = Field(default_factory=list)
    history: list[TraceTurn] = Field(default_factory=list)
    goal_evaluation: GoalEvaluation | None = None
    execution_stats: ExecutionStats | None = None
    metrics: dict[str, GoalMetric] = Field(default_factory=dict)
    contract: TraceContract | None = None


def trace_json_schema() -> dict[str, Any]:
    """The trace's JSON Schema (draft 2020-12), versioned by ``$id``."""
    schema = GoalTrace.model_json_schema(mode="serialization")
    schema["$id"] = f"urn:assay:schema:trace:{TRACE_SCHEMA_VERSION}"
    schema["title"] = f"assay goal-driven test trace, version {TRACE_SCHEMA_VERSION}"
    return schema
