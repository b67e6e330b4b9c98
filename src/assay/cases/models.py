"""Runnable test cases, compiled from a suite or a dataset."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from assay.files.model import Attachment, FileRef
from assay.metrics.base import Metric
from assay.metrics.tools import ExpectedTool
from assay.results.models import TestType, one_step_init


@one_step_init  # a dataset of 100,000 rows compiles 100,000 of each: one step, not 8
@dataclass(frozen=True)
class Turn:
    input: str
    turn_id: str | None = None  # the dataset's turn_id, sent to the agent when present
    ground_truth: str | None = None
    context: str | None = None
    expected_tools: tuple[ExpectedTool, ...] | None = None
    metrics: tuple[Metric, ...] = ()
    files: tuple[FileRef, ...] = ()  # as the suite or dataset names them
    attachments: tuple[Attachment, ...] = ()  # the files read, when the run is planned


@dataclass(frozen=True)
class GoalSpec:
    """A goal-driven test's configuration (specs/test-types.txt)."""

    goal: str
    instructions: str | None = None
    scenario: str | None = None
    restrictions: str | None = None
    context: dict[str, Any] | str | None = None
    max_turns: int = 10
    min_turns: int | None = None
    # a contract stated in the suite: behaviours the agent must show / must never show
    required: tuple[str, ...] | None = None
    prohibited: tuple[str, ...] | None = None

    @property
    def states_contract(self) -> bool:
        return self.required is not None or self.prohibited is not None


@one_step_init
@dataclass(frozen=True)
class TestCase:
    """One test: a single turn, a scripted conversation, or a goal for a simulated user
    (whose ``turns``, if any, are the scripted opening of its conversation)."""

    __test__ = False  # not a pytest class

    name: str
    type: TestType
    turns: tuple[Turn, ...] = ()
    goal: GoalSpec | None = None
    tags: tuple[str, ...] = ()
    source: str = ""  # where it came from: "suite.yaml: tests[2]", "lab2.csv: rows 2-4"
    test_metrics: tuple[Metric, ...] = ()  # scope "test": scored once over the conversation
    expected_trajectory: tuple[ExpectedTool, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
