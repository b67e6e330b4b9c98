"""Trajectory metrics: a test's tool calls, across all its turns in order, against the test's
``expected_trajectory``.

An expected step matches a call as in ``expected_tools``: its name is a substring of the
called name and its ``args`` matchers hold (``check_tool``). A step with ``count: N`` (or
``count_exact: N``) stands for N consecutive calls; a step with count 0 is forbidden: a call
matching it scores the trajectory 0, whatever the metric. Calls made in parallel within one
turn are taken in the order the target reported them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

from assay.metrics.base import ConversationContext, Metric, Score
from assay.metrics.registry import metric
from assay.metrics.tools._alignment import in_order, longest_common, max_matching
from assay.metrics.tools.assertions import ExpectedTool, check_tool
from assay.results.models import ToolInvocation


def expand(steps: Sequence[ExpectedTool]) -> tuple[list[ExpectedTool], list[ExpectedTool]]:
    """The expected sequence (a step repeated ``count`` times) and the forbidden steps."""
    sequence: list[ExpectedTool] = []
    forbidden: list[ExpectedTool] = []
    for step in steps:
        times = step.count_exact if step.count_exact is not None else step.count
        if times == 0:
            forbidden.append(step)
        sequence.extend([step] * times)
    return sequence, forbidden


@dataclass
class Trajectory:
    """The expected steps and the actual calls, and which step matches which call."""

    expected: list[ExpectedTool]
    forbidden: list[ExpectedTool]
    calls: list[ToolInvocation]

    def __post_init__(self) -> None:
        self.ok = [
            [bool(check_tool(step, [call])[0]) for call in self.calls] for step in self.expected
        ]

    def match(self, i: int, j: int) -> bool:
        return self.ok[i][j]

    @cached_property
    def matching(self) -> dict[int, int]:
        """Order-free one-to-one matching, expected step -> call."""
        return max_matching(len(self.expected), len(self.calls), self.match)

    def violations(self) -> list[str]:
        found = []
        for step in self.forbidden:
            hits, _ = check_tool(step, self.calls)
            if hits:
                found.append(f"{step.name!r} must not be called, found {len(hits)} call(s)")
        return found

    def why_missing(self, i: int) -> str:
        """Why expected step ``i`` found no call, in the words of the tool assertions."""
        _, problem = check_tool(self.expected[i], self.calls)
        return problem or f"{self.expected[i].name!r} has no call left to match"

    def details(self) -> dict[str, Any]:
        return {
            "expected": [s.name for s in self.expected],
            "called": [c.name for c in self.calls],
            **({"forbidden": [s.name for s in self.forbidden]} if self.forbidden else {}),
        }


class _TrajectoryMetric(Metric):
    kind = "tool"
    dimension: ClassVar[str] = "tool_use"
    scope = "test"
    requires = frozenset({"expected_trajectory"})

    def measure_conversation(self, conv: ConversationContext) -> Score:
        assert conv.expected_trajectory is not None
        expected, forbidden = expand(conv.expected_trajectory)
        trajectory = Trajectory(expected, forbidden, conv.tool_invocations)
        details = trajectory.details()
        violations = trajectory.violations()
        if violations:
            return Score(0.0, reasoning="; ".join(violations), details=details)
        score, reason, extra = self.compare(trajectory)
        return Score(score, reasoning=reason, details=details | extra)

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        raise NotImplementedError


def _unmatched_reason(t: Trajectory) -> str | None:
    missing = [i for i in range(len(t.expected)) if i not in t.matching]
    extra = len(t.calls) - len(t.matching)
    parts = [t.why_missing(i) for i in missing[:3]]
    if extra:
        parts.append(f"{extra} call(s) match no expected step")
    return "; ".join(parts) or None


@metric("trajectory_exact_match")
class TrajectoryExactMatch(_TrajectoryMetric):
    """1 when the calls are exactly the expected steps, in order, nothing more."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        for i in range(min(len(t.expected), len(t.calls))):
            if not t.match(i, i):
                expected, got = t.expected[i].name, t.calls[i].name
                if expected in got:  # the right tool, called with other arguments
                    _, why = check_tool(t.expected[i], [t.calls[i]])
                    return 0.0, f"call {i} ({got!r}): {why}", {}
                return 0.0, f"call {i}: expected {expected!r}, got {got!r}", {}
        if len(t.expected) != len(t.calls):
            return 0.0, f"expected {len(t.expected)} calls, got {len(t.calls)}", {}
        return 1.0, None, {}


@metric("trajectory_in_order_match")
class TrajectoryInOrderMatch(_TrajectoryMetric):
    """1 when the expected steps occur in order among the calls; other calls may come
    between them."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        placed = in_order(len(t.expected), len(t.calls), t.match)
        if placed is not None:
            return 1.0, None, {"matched_calls": placed}
        # the longest prefix of steps that fits says which step broke the order
        n = len(t.calls)
        k = max(k for k in range(len(t.expected)) if in_order(k, n, t.match) is not None)
        if k == 0:
            return 0.0, t.why_missing(0), {}
        return 0.0, f"step {k} ({t.expected[k].name!r}) has no matching call after step {k - 1}", {}


@metric("trajectory_any_order_match")
class TrajectoryAnyOrderMatch(_TrajectoryMetric):
    """1 when every expected step has a call of its own, in any order; other calls may
    occur too."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        if len(t.matching) == len(t.expected):
            return 1.0, None, {}
        missing = [i for i in range(len(t.expected)) if i not in t.matching]
        return 0.0, "; ".join(t.why_missing(i) for i in missing[:3]), {}


@metric("trajectory_precision")
class TrajectoryPrecision(_TrajectoryMetric):
    """Calls that match an expected step (one call per step) / all calls. No calls: 1 when
    nothing was expected, else 0."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        if not t.calls:
            return (0.0, "no tool was called", {}) if t.expected else (1.0, None, {})
        score = len(t.matching) / len(t.calls)
        return score, _unmatched_reason(t) if score < 1 else None, {"matched": len(t.matching)}


@metric("trajectory_recall")
class TrajectoryRecall(_TrajectoryMetric):
    """Expected steps matched by a call (one call per step) / expected steps; 1 when
    nothing was expected."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        if not t.expected:
            return 1.0, None, {}
        score = len(t.matching) / len(t.expected)
        return score, _unmatched_reason(t) if score < 1 else None, {"matched": len(t.matching)}


@metric("trajectory_lcs_ratio")
class TrajectoryLcsRatio(_TrajectoryMetric):
    """The longest common subsequence of steps and calls / the longer of the two; both
    empty: 1."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        longest = max(len(t.expected), len(t.calls))
        if longest == 0:
            return 1.0, None, {}
        pairs = longest_common(len(t.expected), len(t.calls), t.match)
        score = len(pairs) / longest
        reason = None if score == 1 else f"{len(pairs)} of {longest} steps line up in order"
        return score, reason, {"lcs": len(pairs)}


@metric("tool_selection_jaccard")
class ToolSelectionJaccard(_TrajectoryMetric):
    """Which tools, not how: |expected names ∩ called names| / |expected ∪ called|, each
    name once, a called name counting for an expected one it contains. Arguments, order and
    counts are ignored; both empty: 1."""

    def compare(self, t: Trajectory) -> tuple[float, str | None, dict[str, Any]]:
        wanted = sorted({s.name for s in t.expected})
        called = sorted({c.name for c in t.calls})
        if not wanted and not called:
            return 1.0, None, {}
        pairs = max_matching(len(wanted), len(called), lambda i, j: wanted[i] in called[j])
        union = len(wanted) + len(called) - len(pairs)
        score = len(pairs) / union
        unused = [wanted[i] for i in range(len(wanted)) if i not in pairs]
        chosen = set(pairs.values())
        surplus = [called[j] for j in range(len(called)) if j not in chosen]
        reason = None
        if score < 1:
            reason = ", ".join(
                ([f"not called: {', '.join(unused)}"] if unused else [])
                + ([f"not expected: {', '.join(surplus)}"] if surplus else [])
            )
        return score, reason, {"intersection": len(pairs), "union": union}
