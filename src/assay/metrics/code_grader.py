"""``code``: a grader of your own, ``module:callable``, written ``{type: code, grader: ...}``.

The grader is imported when the suite loads (an import failure is a load-time error naming
``grader``). It receives the turn's ``MetricContext`` (frozen; its tool calls are copies) and
returns a bool, a number in 0-1, a ``Score``, or a dict with ``score``, ``passed``,
``reason`` and ``details`` (each optional, but one of score/passed is needed); a score
without a verdict passes at the threshold, else at 0.5 (HoloDeck's gate). It may be
async. It runs in-process, with the same trust as the suite that names it, but whatever it
raises (``sys.exit`` included) or however long it runs fails only this metric.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from pydantic import field_validator

from assay._imports import import_callable
from assay._isolation import describe
from assay.errors import ConfigError
from assay.metrics._user_code import GraderReturnError, UserFunction, UserFunctionMetric
from assay.metrics.base import MetricOptions, Score
from assay.metrics.registry import metric
from assay.results.models import MetricResult

DIMENSIONS = ("comparison", "safety", "performance", "reasoning", "multi_turn", "tool_use")

# A score the grader gave no verdict for passes here when the metric has no threshold:
# HoloDeck's default gate (its code-grader contract, section 5).
DEFAULT_GATE = 0.5


def import_grader(spec: str) -> Any:
    try:
        return import_callable(spec, what="grader")
    except ConfigError as exc:
        raise ValueError("; ".join(p.message for p in exc.problems)) from None


class CodeOptions(MetricOptions):
    grader: str
    fail_on_error: bool = True
    dimension: str = "comparison"

    @field_validator("grader")
    @classmethod
    def _importable(cls, value: str) -> str:
        import_grader(value)
        return value

    @field_validator("dimension")
    @classmethod
    def _known_dimension(cls, value: str) -> str:
        if value not in DIMENSIONS:
            raise ValueError(f"dimension must be one of {', '.join(DIMENSIONS)}")
        return value


@metric("code")
class Code(UserFunctionMetric[CodeOptions]):
    """A user grader's verdict. A grader that raises fails this metric, scored 0 (or, with
    ``fail_on_error: false``, leaves it unjudged: ``passed`` null, the error recorded)."""

    kind = "code"
    requires = frozenset()

    def __init__(self, options: CodeOptions) -> None:
        super().__init__(options)
        self.grader = import_grader(options.grader)

    @property
    def user_function(self) -> UserFunction:
        fn: UserFunction = self.grader
        return fn

    @property
    def label(self) -> str:
        return self.options.name or f"code:{self.options.grader.rpartition(':')[2]}"

    def result(self, outcome: Score, started: float, **extra: Any) -> MetricResult:
        if outcome.passed is None and self.options.threshold is None:
            outcome = dataclasses.replace(outcome, passed=outcome.score >= DEFAULT_GATE)
        return (
            super()
            .result(outcome, started, **extra)
            .model_copy(update={"dimension": self.options.dimension})
        )

    def error_of(self, exc: BaseException) -> str:
        """``RuntimeError: message``: HoloDeck's code grader names the type (its executor's
        other evaluators record the message alone). A return assay cannot use: its reason."""
        return str(exc) if isinstance(exc, GraderReturnError) else describe(exc)

    def failure(self, error: str, started: float, **extra: Any) -> MetricResult:
        failed = super().failure(error, started, **extra)
        update: dict[str, Any] = {"dimension": self.options.dimension}
        if self.options.fail_on_error:
            update["score"] = 0.0  # a failed grader scores 0, as HoloDeck's
        else:
            update["passed"] = None
        return failed.model_copy(update=update)
