"""The goal-driven test trace (specs/test-types.txt, "Penelope Trace Structure")."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class CriterionEvaluation(_Record):
    criterion: str
    kind: Literal["required", "prohibited"]
    met: bool
    evidence: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0, le=1)
    reasoning: str | None = None


class GoalEvaluation(_Record):
    all_criteria_met: bool
    criteria_evaluations: list[CriterionEvaluation] = Field(default_factory=list)
    confidence: float = Field(ge=0, le=1)
    reasoning: str | None = None
    evidence: list[str] = Field(default_factory=list)


class TraceTurn(_Record):
    turn_number: int
    reasoning: str | None = None
    assistant_message: dict[str, Any] | None = None  # what the simulated user sent
    tool_message: dict[str, Any] | None = None  # the agent's reply and its tool calls


class GoalMetric(_Record):
    score: float
    is_successful: bool
    confidence: float


class GoalTrace(_Record):
    status: Literal["success", "failure", "error"]
    goal_achieved: bool
    turns_used: int
    findings: list[str] = Field(default_factory=list)
    history: list[TraceTurn] = Field(default_factory=list)
    goal_evaluation: GoalEvaluation | None = None
    execution_stats: dict[str, Any] = Field(default_factory=dict)
    metrics: dict[str, GoalMetric] = Field(default_factory=dict)
