"""``rubric``: a judge metric you write in the suite, in the manner of G-Eval.

    - metric: rubric
      name: politeness                      # optional label
      criteria: The response is polite and never blames the user.
      evaluation_steps:                     # optional; generic steps when absent
        - Read the response and note any impolite phrase.
        - Check whether the user is blamed for the problem.
      fields: [input, response]             # what the judge sees
      scale: [1, 5]                         # the judge's raw scale
      threshold: 0.7                        # on the 0-1 score

The judge's raw score is mapped linearly to 0–1 (``(raw - low) / (high - low)``) and kept in
``details.raw_score``.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, field_validator

from assay.metrics.base import MetricContext
from assay.metrics.judge._verdict import Verdict, scale_verdict
from assay.metrics.judge.base import TAGS, Field_, JudgeMetric, JudgeOptions, turn_fields
from assay.metrics.registry import metric

RUBRIC_PROMPT = """\
Evaluate the material below against these criteria:
{criteria}

Evaluation steps:
{steps}

Give an integer score from {low} (the criteria are not met at all) to {high} (fully met)."""

DEFAULT_STEPS = (
    "Read the criteria carefully.",
    "Read the material and note every part that meets or fails the criteria.",
    "Weigh what you noted and decide how well the criteria are met as a whole.",
)

DEFAULT_FIELDS: tuple[Field_, ...] = ("input", "response")

_MISSING = {
    "ground_truth": "no ground truth (Answer) for this turn",
    "context": "no context for this turn",
    "history": "needs a multi-turn conversation",
    "tool_calls": "no tool calls on this turn",
}


class RubricOptions(JudgeOptions):
    criteria: str = Field(min_length=1)
    evaluation_steps: list[str] = Field(default_factory=list)
    fields: list[Field_] = Field(default_factory=lambda: list(DEFAULT_FIELDS), min_length=1)
    scale: tuple[int, int] = (1, 5)

    @field_validator("scale")
    @classmethod
    def _ordered(cls, value: tuple[int, int]) -> tuple[int, int]:
        if value[0] >= value[1]:
            raise ValueError(f"scale must be [low, high] with low < high, got {list(value)}")
        return value

    @field_validator("fields")
    @classmethod
    def _unique(cls, value: list[Field_]) -> list[Field_]:
        return list(dict.fromkeys(value))


@metric("rubric")
class Rubric(JudgeMetric[RubricOptions]):
    default_threshold: ClassVar[float | None] = 0.5
    prompt: ClassVar[str] = RUBRIC_PROMPT

    @property
    def rubric(self) -> RubricOptions:
        return self.options

    def make_verdict(self) -> Verdict:
        low, high = self.rubric.scale
        return scale_verdict(low, high)

    def instructions(self) -> str:
        opts = self.rubric
        steps = opts.evaluation_steps or DEFAULT_STEPS
        low, high = opts.scale
        shown = ", ".join(f"<{TAGS[f]}>" for f in opts.fields)
        return (
            self.prompt.format(
                criteria=opts.criteria.strip(),
                steps="\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1)),
                low=low,
                high=high,
            )
            + f"\n\nThe material: {shown}."
        )

    def fields_read(self) -> list[Field_]:
        return self.rubric.fields

    def missing_input(self, ctx: MetricContext) -> str | None:
        reason = super().missing_input(ctx)
        if reason is not None:
            return reason
        values = turn_fields(ctx)
        for name in self.rubric.fields:
            if name in _MISSING and not values[name]:
                return _MISSING[name]
        return None
