"""Per-turn tool assertions: do the turn's tool calls satisfy its ``expected_tools``?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.metrics.tools.matchers import Matcher, show
from assay.results.models import ArgMatchDetail, ToolInvocation


@dataclass(frozen=True)
class ExpectedTool:
    """One expected call. ``name`` matches as a case-sensitive substring of the called name.

    ``count`` is a lower bound on matching calls within the turn (0: must not be called);
    ``count_exact`` and ``max_count`` bound it exactly or from above.
    """

    name: str
    args: Mapping[str, Matcher] | None = None
    count: int = 1
    count_exact: int | None = None
    max_count: int | None = None
    explicit: frozenset[str] = field(default_factory=frozenset)  # options the user wrote

    def normalized(self) -> str | dict[str, Any]:
        """The contract's normalised form: a bare name, or ``{name, args?, count}``."""
        if self.args is None and not self.explicit:
            return self.name
        out: dict[str, Any] = {"name": self.name}
        if self.args is not None:
            out["args"] = {k: m.as_json() for k, m in self.args.items()}
        out["count"] = self.count
        if self.count_exact is not None:
            out["count_exact"] = self.count_exact
        if self.max_count is not None:
            out["max_count"] = self.max_count
        return out


@dataclass
class ToolCheck:
    tools_matched: bool | None
    arg_match_details: list[ArgMatchDetail] | None
    mismatches: list[str]


def _first_arg_failure(matchers: Mapping[str, Matcher], args: Mapping[str, Any]) -> str | None:
    for key, matcher in matchers.items():
        if key not in args:
            return f"arg {key!r} missing"
        if not matcher.matches(args[key]):
            return f"arg {key!r} mismatch: expected {matcher.describe()}, got {show(args[key])}"
    return None


def _calls(n: int, name: str) -> str:
    return f"{n} call{'' if n == 1 else 's'} to {name!r}"


def _count_problem(tool: ExpectedTool, found: int) -> str | None:
    if tool.count_exact is not None:
        if found == tool.count_exact:
            return None
        return f"expected exactly {_calls(tool.count_exact, tool.name)}, found {found}"
    if tool.max_count is not None and found > tool.max_count:
        return f"expected at most {_calls(tool.max_count, tool.name)}, found {found}"
    if tool.count == 0:
        return None if found == 0 else f"{tool.name!r} must not be called, found {found}"
    if found < tool.count:
        if found == 0 and tool.count == 1:
            return f"no call to {tool.name!r} found"
        return f"expected at least {_calls(tool.count, tool.name)}, found {found}"
    return None


def check_tool(tool: ExpectedTool, calls: Sequence[ToolInvocation]) -> tuple[list[int], str | None]:
    """The indices of the calls that satisfy ``tool``, and why it failed (None if it held)."""
    candidates = [i for i, call in enumerate(calls) if tool.name in call.name]
    if tool.args is None:
        return candidates, _count_problem(tool, len(candidates))
    matchers = tool.args
    satisfying = [i for i in candidates if _first_arg_failure(matchers, calls[i].args) is None]
    problem = _count_problem(tool, len(satisfying))
    if problem and not satisfying and tool.count > 0 and tool.count_exact != 0:
        if not candidates:
            problem = f"no call to {tool.name!r} found"
        else:
            # explain through the last candidate, as HoloDeck's evaluate_expected_tools does
            problem = _first_arg_failure(matchers, calls[candidates[-1]].args)
    return satisfying, problem


def check_expected_tools(
    expected: Sequence[ExpectedTool] | None, calls: Sequence[ToolInvocation]
) -> ToolCheck:
    if expected is None:
        return ToolCheck(None, None, [])
    if not expected:  # an empty list expects nothing, so it holds (HoloDeck's rule)
        return ToolCheck(True, None, [])
    details: list[ArgMatchDetail] = []
    mismatches: list[str] = []
    for tool in expected:
        satisfying, problem = check_tool(tool, calls)
        if problem:
            mismatches.append(problem)
        if tool.args is not None:
            matched = satisfying[0] if satisfying and problem is None else -1
            if matched < 0 and problem is None:  # a must-not-call assertion that held
                problem_text: str | None = f"not called, as required (no call to {tool.name!r})"
            else:
                problem_text = problem
            details.append(
                ArgMatchDetail(
                    expected_tool=tool.name,
                    args_asserted={k: m.as_json() for k, m in tool.args.items()},
                    matched_call_index=matched,
                    unmatched_reason=None if matched >= 0 else problem_text,
                )
            )
    return ToolCheck(not mismatches, details or None, mismatches)
