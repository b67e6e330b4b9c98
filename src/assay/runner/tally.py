"""What the run's summary counts of a result (``SummaryBuilder.add``): taken in the worker
that ran the test (``Tally.of``), sent to the driver along with the result's JSON, and
counted there (``counted``) without parsing the JSON back into a TestResult.

``counted`` is an adapter: it gives ``SummaryBuilder.add``, which takes a TestResult, a
stand-in with just the attributes ``add`` reads. (Not a ``TestResult.model_construct``:
pydantic inspects each ``default_factory`` as it constructs, milliseconds per result.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, cast

from assay.results.models import TestResult, TokenUsage
from assay.results.rollup import metrics_not_run


class Tally(NamedTuple):
    """What ``SummaryBuilder.add`` reads of a result (a tuple: cheap to pickle)."""

    test_name: str
    status: str
    passed: bool
    turns: int  # how many turns its ``turns`` list has; 0: none (a single-turn test)
    execution_time_ms: int
    token_usage: dict[str, int] | None
    metrics: list[tuple[str, float | None, str | None]]  # name, score, dimension
    metrics_not_run: dict[str, str]  # as ``rollup.metrics_not_run`` gives them

    @classmethod
    def of(cls, result: TestResult) -> Tally:
        usage = result.token_usage
        return cls(
            result.test_name,
            result.status,
            result.passed,
            len(result.turns or ()),
            result.execution_time_ms,
            None if usage is None else dict(usage),
            [(m.metric_name, m.score, m.dimension) for m in result.metric_results],
            metrics_not_run(result),
        )


@dataclass(frozen=True)
class _Turn:
    metrics_not_run: dict[str, str] = field(default_factory=dict)  # counted on the result


@dataclass(frozen=True)
class _Metric:
    metric_name: str
    score: float | None
    dimension: str | None


@dataclass(frozen=True)
class _Counted:
    test_name: str
    status: str
    passed: bool
    turns: list[_Turn] | None
    execution_time_ms: int
    token_usage: TokenUsage | None
    metric_results: list[_Metric]
    metrics_not_run: dict[str, str]


_NO_TURN = _Turn()


def counted(tally: Tally) -> TestResult:
    """A stand-in for the result ``tally`` was taken from, for ``SummaryBuilder.add`` only."""
    usage = tally.token_usage
    stand_in = _Counted(
        tally.test_name,
        tally.status,
        tally.passed,
        [_NO_TURN] * tally.turns or None,
        tally.execution_time_ms,
        None if usage is None else TokenUsage(**usage),
        [_Metric(*metric) for metric in tally.metrics],
        tally.metrics_not_run,
    )
    return cast(TestResult, stand_in)
