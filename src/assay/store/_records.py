"""The small records the store returns besides the result models, and its lookup error."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal, get_args

from assay.errors import ConfigError, Problem

RunStatus = Literal["running", "completed", "interrupted", "failed"]
RUN_STATUSES: tuple[str, ...] = get_args(RunStatus)


@dataclass(frozen=True)
class RunRecord:
    """One line of ``assay runs``: a stored run and its totals so far."""

    id: str
    suite_name: str
    status: str
    started_at: str
    finished_at: str | None
    total: int
    passed: int
    failed: int
    target: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class MetricOutcome:
    score: float | None
    passed: bool | None


@dataclass(frozen=True)
class TestOutcome:
    """What a comparison of runs needs of one stored test result."""

    __test__ = False  # not a pytest class

    test_name: str
    repeat_index: int
    status: str
    passed: bool
    metrics: dict[str, MetricOutcome] = field(default_factory=dict)
    # the files it sent, (path, sha256) in turn order: a test whose files changed is not
    # the same test
    files: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> tuple[str, int]:
        return (self.test_name, self.repeat_index)


class RunNotFound(ConfigError):
    """No stored run has this id (or id prefix); exit code 2, like any bad argument."""

    def __init__(self, ref: str, store: str, too_short: int | None = None) -> None:
        """``too_short``: the shortest prefix accepted, when ``ref`` is shorter."""
        self.ref = ref
        if too_short is not None:
            message = (
                f"{ref!r} is too short to name a run: give at least {too_short} characters of "
                "its id (`assay runs` lists the ids)"
            )
        else:
            message = (
                f"no stored run {ref!r} in {store}; `assay runs` lists the stored runs and "
                "their ids (pass the same --store URL to it)"
            )
        super().__init__([Problem("options", "RUN_ID", message)])
