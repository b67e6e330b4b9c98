"""HoloDeck's executor-level test vectors (justinbarias/holodeck,
tests/unit/lib/test_runner/test_executor_*.py), ported to assay: each test names the
HoloDeck test whose behaviour it checks, drives assay's runner against an in-process Python
agent that behaves like HoloDeck's stubbed backend, and asserts the same field values.

Where assay differs from HoloDeck on purpose (docs/results.md), the assertion says so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from assay import SessionLost
from assay.cases import parse_suite
from assay.cases.models import TestCase, Turn
from assay.files.attach import attach_files
from assay.metrics.base import Metric, MetricContext, MetricOptions
from assay.reporters.markdown import render_markdown
from assay.results.models import (
    MetricResult,
    Report,
    ReportSummary,
    RunInfo,
    TestResult,
    TurnResult,
)
from assay.results.rollup import rollup_multi_turn, summarize, turn_passed
from assay.runner import CaseSettings, run_case, run_cases
from assay.targets.base import AgentSession, Reply, Target, TurnRequest
from assay.targets.python import PythonTarget
from tests.vectors import agents

AGENTS = "tests.vectors.agents"
GT = "aaaaaaaaaa"  # levenshtein against it: each 'b' in a 10-letter reply costs 0.1


def reply_scoring(score: float) -> str:
    """A reply whose levenshtein similarity to GT is ``score`` (a multiple of 0.1)."""
    keep = round(score * 10)
    return "a" * keep + "b" * (10 - keep)


# HoloDeck's per-turn metric tests configure BLEU (needs a ground truth) with a mocked score;
# assay's levenshtein needs a ground truth too and its score is set exactly by the reply.
BLEU = {"metric": "levenshtein", "threshold": 0.5}
ROUGE = {"metric": "fuzzy", "threshold": 0.5}


@pytest.fixture(autouse=True)
def _fresh_agents(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(agents, "SCRIPT", {})
    monkeypatch.setattr(agents, "log", [])
    monkeypatch.setattr(agents, "files_seen", [])
    monkeypatch.setattr(agents, "live", {"now": 0, "most": 0})


class CountingTarget(Target):
    """A python target whose sessions are counted as opened and closed."""

    def __init__(self, agent: str) -> None:
        self.inner = PythonTarget(f"{AGENTS}:{agent}")
        self.opened = 0
        self.closed = 0

    def session(self, session_id: str) -> AgentSession:
        self.opened += 1
        inner, outer = self.inner.session(session_id), self

        class Session(AgentSession):
            async def send(self, request: TurnRequest) -> Reply:
                return await inner.send(request)

            async def close(self) -> None:
                outer.closed += 1
                await inner.close()

        return Session()


def load(tests: list[dict[str, Any]], path: Path | None = None, **suite: Any) -> Any:
    return parse_suite({"name": "vectors", **suite, "tests": tests}, "suite.yaml", path).cases


async def run(
    test: dict[str, Any],
    agent: str | Target = "scripted",
    timeout: float = 5.0,
    path: Path | None = None,
    **suite: Any,
) -> TestResult:
    cases = load([test], path, **suite)
    if path is not None:  # files are read when the run is planned, as `assay run` does
        cases, _, problems = attach_files(cases, max_file_mb=10)
        assert problems == []
    [case] = cases
    target = agent if isinstance(agent, Target) else PythonTarget(f"{AGENTS}:{agent}")
    return await run_case(case, target, CaseSettings(turn_timeout_s=timeout, run_id="v" * 32))


async def run_all(
    tests: list[dict[str, Any]],
    agent: str,
    concurrency: int = 1,
    timeout: float = 5.0,
    **suite: Any,
) -> tuple[list[TestResult], ReportSummary, list[str]]:
    """The results in suite order, their summary, and the order on_result saw them in."""
    cases = load(tests, **suite)
    found: dict[int, TestResult] = {}
    seen: list[str] = []

    def on_result(position: int, result: TestResult) -> None:
        seen.append(f"enter-{result.test_name}")
        found[position] = result
        seen.append(f"leave-{result.test_name}")

    target = PythonTarget(f"{AGENTS}:{agent}")
    settings = CaseSettings(turn_timeout_s=timeout, run_id="v" * 32)
    await run_cases(
        [(i, c, 0) for i, c in enumerate(cases)], target, settings, concurrency, on_result
    )
    results = [found[i] for i in range(len(cases))]
    return results, summarize(results), seen


def details(turn: TurnResult) -> list[dict[str, Any]]:
    """The turn's arg_match_details as the report writes them (contract §2.1): assay keeps
    them as records, HoloDeck as dicts; the JSON is the same."""
    found = turn.model_dump(mode="json")["arg_match_details"]
    assert found is not None
    return list(found)


def turns_of(result: TestResult) -> list[TurnResult]:
    assert result.turns is not None
    return result.turns


def script(**steps: Any) -> None:
    agents.SCRIPT.update(steps)


def tools(*names: str, **args: Any) -> dict[str, Any]:
    return {"response": "r", "tool_invocations": [{"name": n, "args": args} for n in names]}


# --- test_executor.py: a single-turn test's agent failures ------------------------------


async def test_agent_invocation_timeout() -> None:
    # HoloDeck: test_executor.py::TestAgentInvocation::test_agent_timeout_error (llm_timeout
    # 5, the backend raising TimeoutError). The agent raises TimeoutError itself, at once: the
    # same text as overrunning the 5 s, without the wait.
    script(Query=TimeoutError())
    result = await run({"name": "test_timeout", "input": "Query"}, timeout=5)
    assert summarize([result]).failed == 1
    assert result.errors == ["Agent invocation timeout after 5s"]
    assert result.status == "error" and result.turns is None


async def test_agent_invocation_timeout_names_a_fractional_limit() -> None:
    # HoloDeck writes f"after {llm_timeout}s"; assay's limit, a float, is written with :g
    result = await run({"name": "t", "input": "slow"}, "stalls_on_slow", 0.2)
    assert result.errors == ["Agent invocation timeout after 0.2s"]


async def test_agent_invocation_generic_exception() -> None:
    # HoloDeck: test_executor.py::TestAgentInvocation::test_agent_invocation_generic_exception
    script(Query=ValueError("Invalid API key"))
    result = await run({"name": "test_error", "input": "Query"}, timeout=60)
    assert summarize([result]).failed == 1
    assert result.errors == ["Agent invocation error: Invalid API key"]


async def test_agent_invocation_exception_without_a_message_names_its_type() -> None:
    # on purpose unlike HoloDeck ("Agent invocation error: ", blank): docs/results.md
    script(Query=ValueError())
    result = await run({"name": "test_error", "input": "Query"})
    assert result.errors == ["Agent invocation error: ValueError"]


async def test_turn_exception_is_its_type_and_message() -> None:
    # HoloDeck: executor.py's _run_single_turn records f"{type(e).__name__}: {e}" for a turn
    script(a=ValueError("Invalid API key"), b="second-response")
    result = await run({"name": "mt", "turns": [{"input": "a"}, {"input": "b"}]})
    first, second = turns_of(result)
    assert first.errors == ["ValueError: Invalid API key"]
    assert second.errors == [] and second.response == "second-response"
    assert result.errors == ["[turn 0] ValueError: Invalid API key"]


# --- test_executor.py: a metric that raises --------------------------------------------


class RaisesWhileScoring(Metric):
    """Like HoloDeck's mocked evaluator: ``evaluate`` raises what it was given."""

    name: ClassVar[str] = "groundedness"
    requires = frozenset()

    def __init__(self, error: BaseException) -> None:
        super().__init__(MetricOptions(threshold=0.7))
        self.error = error

    async def evaluate(self, ctx: MetricContext) -> MetricResult:
        raise self.error


async def raising(error: BaseException, *inputs: str) -> TestResult:
    turns = tuple(Turn(input=q, metrics=(RaisesWhileScoring(error),)) for q in inputs)
    kind: Any = "single_turn" if len(inputs) == 1 else "multi_turn"
    case = TestCase(name="test_eval_error", type=kind, turns=turns)
    target = PythonTarget(f"{AGENTS}:scripted")
    return await run_case(case, target, CaseSettings(run_id="v" * 32))


async def test_evaluation_failure_recorded() -> None:
    # HoloDeck: test_executor.py::TestEvaluationMetrics::test_evaluation_failure_recorded;
    # its executor records str(e), in a single-turn test and on a turn alike
    script(Query="Response")
    [metric] = (await raising(RuntimeError("Evaluator failed"), "Query")).metric_results
    assert (metric.error, metric.passed, metric.score) == ("Evaluator failed", False, None)
    result = await raising(RuntimeError("Evaluator failed"), "Query", "Query")
    for turn in turns_of(result):
        [metric] = turn.metric_results
        assert (metric.error, metric.passed) == ("Evaluator failed", False)
    assert result.status == "failed" and result.errors == []


async def test_a_metric_error_without_a_message_names_its_type() -> None:
    # HoloDeck writes str(e), blank for RuntimeError(); assay's error is never blank
    script(Query="Response")
    [metric] = (await raising(RuntimeError(), "Query")).metric_results
    assert metric.error == "RuntimeError"
    [metric] = (await raising(SystemExit(3), "Query")).metric_results
    assert metric.error == "SystemExit(3)"


# --- test_executor_multi_turn.py -------------------------------------------------------


async def test_dispatch_detects_turns() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_dispatch_detects_turns
    script(a="resp-a", b="resp-b")
    target = CountingTarget("scripted")
    [case] = load([{"name": "mt", "turns": [{"input": "a"}, {"input": "b"}]}])
    result = await run_case(case, target, CaseSettings(run_id="v" * 32))
    assert target.opened == 1  # one session for the whole test
    assert agents.log == ["a", "b"]  # sent once per turn
    assert summarize([result]).total_tests == 1
    assert [t.response for t in turns_of(result)] == ["resp-a", "resp-b"]


async def test_legacy_single_turn_unchanged() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_legacy_single_turn_unchanged
    # (assay has no separate invoke_once path: a single-turn test is one turn of one session)
    script(hi="hi back")
    result = await run({"name": "legacy", "input": "hi"})
    assert result.turns is None
    assert result.agent_response == "hi back"


async def test_turns_strictly_sequential() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_turns_strictly_sequential
    await run({"name": "seq", "turns": [{"input": x} for x in "abc"]}, "one_at_a_time")
    assert agents.log == ["start-a", "end-a", "start-b", "end-b", "start-c", "end-c"]


async def test_session_closed_on_completion() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_session_closed_on_completion
    script(a="ok", b="ok")
    target = CountingTarget("scripted")
    await run({"name": "c", "turns": [{"input": "a"}, {"input": "b"}]}, target)
    assert (target.opened, target.closed) == (1, 1)


async def test_session_closed_on_failure() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_session_closed_on_failure
    script(a=RuntimeError("boom"))
    target = CountingTarget("scripted")
    result = await run({"name": "c", "turns": [{"input": "a"}]}, target)
    # a turn's error is HoloDeck's f"{type(e).__name__}: {e}"
    assert turns_of(result)[0].errors == ["RuntimeError: boom"]
    assert (target.opened, target.closed) == (1, 1)


async def test_turn_timeout_fails_turn_continues_next() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_turn_timeout_fails_turn_continues_next
    # HoloDeck's backend raises TimeoutError; here the agent overruns the turn's deadline.
    result = await run(
        {"name": "t", "turns": [{"input": "slow"}, {"input": "b"}]}, "stalls_on_slow", 0.2
    )
    first, second = turns_of(result)
    assert first.passed is False
    assert first.errors == ["timeout"]
    assert first.skipped is False
    assert second.response == "second-response"
    assert second.passed is True


async def test_turn_timeout_raised_by_the_agent_itself() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_turn_timeout_fails_turn_continues_next, with
    # the stub's TimeoutError raised by the agent, as HoloDeck's backend raises it.
    script(a=TimeoutError(), b="second-response")
    first, second = turns_of(await run({"name": "t", "turns": [{"input": "a"}, {"input": "b"}]}))
    assert first.passed is False
    assert first.skipped is False
    # the agent's own TimeoutError is the turn's timeout, as HoloDeck records it
    assert first.errors == ["timeout"]
    assert second.response == "second-response"
    assert second.passed is True


async def test_two_consecutive_session_errors_mark_remaining_skipped() -> None:
    # HoloDeck: test_executor_multi_turn.py::
    #   test_two_consecutive_session_errors_mark_remaining_skipped
    # HoloDeck's BackendSessionError is a turn failure the session may recover from: an
    # agent's exception. (assay.SessionLost is stronger: the agent says the session is gone,
    # and every later turn is skipped at once; see docs/results.md.)
    script(a="first ok", b=RuntimeError("session lost"), c=RuntimeError("session lost"), d="ok")
    result = await run({"name": "s", "turns": [{"input": x} for x in "abcd"]})
    turns = turns_of(result)
    assert len(turns) == 4
    assert turns[0].passed is True
    assert turns[1].passed is False and turns[1].skipped is False
    assert turns[2].passed is False and turns[2].skipped is False
    assert turns[3].skipped is True
    assert any("unrecoverable" in e.lower() for e in turns[3].errors)
    assert agents.log == ["a", "b", "c"]  # the skipped turn was not sent


async def test_isolated_session_error_does_not_skip() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_isolated_session_error_does_not_skip
    script(a="r1", b=RuntimeError("blip"), c="r3", d="r4")
    result = await run({"name": "s", "turns": [{"input": x} for x in "abcd"]})
    turns = turns_of(result)
    assert len(turns) == 4
    assert turns[1].passed is False
    assert turns[1].skipped is False
    assert turns[2].passed is True  # recovered
    assert turns[3].passed is True


async def test_isolated_session_lost_skips_at_once() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_isolated_session_error_does_not_skip, with
    # the session error raised as assay.SessionLost
    script(a="r1", b=SessionLost("blip"), c="r3", d="r4")
    result = await run({"name": "s", "turns": [{"input": x} for x in "abcd"]})
    turns = turns_of(result)
    assert len(turns) == 4
    assert turns[1].passed is False
    assert turns[1].skipped is False
    # Deliberate difference (docs/results.md, SPEC §4): SessionLost is the agent saying the
    # session is gone, so the remaining turns are skipped at once; HoloDeck's one
    # BackendSessionError skips nothing (an agent's other errors behave so here, above).
    assert [t.skipped for t in turns[2:]] == [True, True]
    assert turns[2].errors == [
        "skipped: the session is unrecoverable: the agent lost the session at turn 1"
    ]
    assert agents.log == ["a", "b"]


async def test_per_turn_tool_invocations_partitioned() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_per_turn_tool_invocations_partitioned
    script(
        a={"response": "r1", "tool_invocations": [{"name": "search", "args": {}, "result": "a"}]},
        b={"response": "r2", "tool_invocations": [{"name": "calc", "args": {}, "result": "b"}]},
    )
    result = await run({"name": "p", "turns": [{"input": "a"}, {"input": "b"}]})
    first, second = turns_of(result)
    assert [ti.name for ti in first.tool_invocations] == ["search"]
    assert [ti.name for ti in second.tool_invocations] == ["calc"]


async def test_token_usage_rollup_sum() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_token_usage_rollup_sum
    def usage(p: int, c: int, t: int, cc: int, cr: int) -> dict[str, int]:
        return {
            "prompt_tokens": p,
            "completion_tokens": c,
            "total_tokens": t,
            "cache_creation_tokens": cc,
            "cache_read_tokens": cr,
        }

    script(
        a={"response": "r1", "token_usage": usage(10, 5, 15, 2, 3)},
        b={"response": "r2", "token_usage": usage(20, 10, 30, 4, 6)},
    )
    result = await run({"name": "u", "turns": [{"input": "a"}, {"input": "b"}]})
    total = result.token_usage
    assert total is not None
    assert total.prompt_tokens == 30
    assert total.completion_tokens == 15
    assert total.total_tokens == 45
    assert total.cache_creation_tokens == 6
    assert total.cache_read_tokens == 9


async def test_files_flattened_into_turn_prompt_not_replayed(tmp_path: Path) -> None:
    # HoloDeck: test_executor_multi_turn.py::test_files_flattened_into_turn_prompt_not_replayed
    # HoloDeck puts a file's text into the turn's prompt; assay hands a python agent the
    # turn's files in its `files` keyword. Either way only the turn that attaches it gets it.
    (tmp_path / "chart.md").write_text("<<chart bytes>>")
    test = {
        "name": "f",
        "turns": [{"input": "look at this", "files": ["chart.md"]}, {"input": "plain second"}],
    }
    await run(test, "reads_files", path=tmp_path / "suite.yaml")
    assert len(agents.files_seen) == 2
    (q1, f1), (q2, f2) = agents.files_seen
    assert q1 == "look at this" and [f["text"] for f in f1] == ["<<chart bytes>>"]
    assert q2 == "plain second" and f2 == []  # not replayed


async def test_test_case_passed_requires_all_turns_passed() -> None:
    # HoloDeck: test_executor_multi_turn.py::test_test_case_passed_requires_all_turns_passed
    results, summary, _ = await run_all(
        [
            {
                "name": "fr16",
                "turns": [{"input": "ok1"}, {"input": "slow"}, {"input": "ok2"}],
            }
        ],
        "stalls_on_slow",
        timeout=0.2,
    )
    assert results[0].passed is False
    assert summary.passed == 0
    assert summary.failed == 1


# --- test_executor_per_turn_tools.py ---------------------------------------------------


async def test_tool_name_match_substring_scoped_to_turn() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_tool_name_match_substring_scoped_to_turn
    script(t1=tools("subtract"), t2=tools(), t3=tools("lookup"))
    test = {
        "name": "scoped",
        "turns": [
            {"input": "t1"},
            {"input": "t2"},
            {"input": "t3", "expected_tools": ["subtract"]},
        ],
    }
    turns = turns_of(await run(test))
    assert turns[0].tools_matched is None
    assert turns[1].tools_matched is None
    assert turns[2].tools_matched is False
    assert turns[2].passed is False


async def test_per_turn_tool_match_inherits_substring_contract() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::
    #   test_per_turn_tool_match_inherits_substring_contract
    script(t=tools("Math-subtract"))
    test = {"name": "substring", "turns": [{"input": "t", "expected_tools": ["subtract"]}]}
    assert turns_of(await run(test))[0].tools_matched is True


async def test_missing_expected_tool_fails_turn() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_missing_expected_tool_fails_turn
    script(t=tools())
    test = {"name": "missing", "turns": [{"input": "t", "expected_tools": ["divide"]}]}
    result = await run(test)
    turn = turns_of(result)[0]
    assert turn.tools_matched is False
    assert turn.passed is False
    assert any("divide" in e for e in turn.errors)
    # the reason is in both, as HoloDeck writes it; a wrong tool fails, it does not error
    assert turn.errors == turn.tool_mismatches == ["no call to 'divide' found"]
    assert result.errors == ["[turn 0] no call to 'divide' found"]
    assert result.status == "failed"


async def test_extra_tools_do_not_fail_turn() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_extra_tools_do_not_fail_turn
    script(t=tools("subtract", "lookup"))
    test = {"name": "extra", "turns": [{"input": "t", "expected_tools": ["subtract"]}]}
    turn = turns_of(await run(test))[0]
    assert turn.tools_matched is True
    assert turn.passed is True


async def test_no_expected_tools_leaves_matched_none() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_no_expected_tools_leaves_matched_none
    script(t=tools("lookup"))
    result = await run({"name": "none", "turns": [{"input": "t"}]})
    assert turns_of(result)[0].tools_matched is None
    assert result.tools_matched is None


async def test_rollup_tools_matched_all_true() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_rollup_tools_matched_all_true
    script(t1=tools("a"), t2=tools(), t3=tools("b"))
    test = {
        "name": "all-true",
        "turns": [
            {"input": "t1", "expected_tools": ["a"]},
            {"input": "t2"},
            {"input": "t3", "expected_tools": ["b"]},
        ],
    }
    assert (await run(test)).tools_matched is True


async def test_rollup_tools_matched_all_none() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_rollup_tools_matched_all_none
    script(t1=tools(), t2=tools())
    result = await run({"name": "all-none", "turns": [{"input": "t1"}, {"input": "t2"}]})
    assert result.tools_matched is None


async def test_rollup_tools_matched_any_false() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_rollup_tools_matched_any_false
    script(t1=tools("a"), t2=tools("other"))
    test = {
        "name": "any-false",
        "turns": [
            {"input": "t1", "expected_tools": ["a"]},
            {"input": "t2", "expected_tools": ["b"]},
        ],
    }
    result = await run(test)
    first, second = turns_of(result)
    assert first.tools_matched is True
    assert second.tools_matched is False
    assert result.tools_matched is False


async def test_a_failed_turn_still_checks_its_expected_tools() -> None:
    # HoloDeck: executor.py's _run_single_turn checks a turn's expected_tools whether or not
    # send() raised, against the calls it made (none): tools_matched false, and the reason
    script(t1=ValueError("backend down"), t2=tools("subtract"))
    test = {
        "name": "failed-turn-tools",
        "turns": [
            {
                "input": "t1",
                "expected_tools": ["divide", {"name": "subtract", "args": {"a": 206588}}],
            },
            {"input": "t2", "expected_tools": ["subtract"]},
        ],
    }
    result = await run(test)
    first, second = turns_of(result)
    assert first.tools_matched is False and first.response is None
    assert first.tool_mismatches == ["no call to 'divide' found", "no call to 'subtract' found"]
    assert details(first) == [
        {
            "expected_tool": "subtract",
            "args_asserted": {"a": 206588},
            "matched_call_index": -1,
            "unmatched_reason": "no call to 'subtract' found",
        }
    ]
    # the turn's own error first, then the mismatch reasons (HoloDeck's order)
    assert first.errors == ["ValueError: backend down", *first.tool_mismatches]
    assert second.tools_matched is True
    assert result.tools_matched is False and result.status == "error"


async def test_a_failed_single_turn_test_still_checks_its_expected_tools() -> None:
    # HoloDeck: executor.py's single-turn path validates tool_calls ([] after the agent
    # raised) against expected_tools: tools_matched false
    script(Query=ValueError("Invalid API key"))
    test = {"name": "t", "input": "Query", "expected_tools": ["search"]}
    result = await run(test)
    assert result.tools_matched is False
    assert result.tool_mismatches == ["no call to 'search' found"]
    assert result.arg_match_details is None  # a name-only assertion has no entry
    assert result.errors == ["Agent invocation error: Invalid API key", *result.tool_mismatches]
    assert result.status == "error"


async def test_a_skipped_turn_checks_no_tools() -> None:
    # HoloDeck: a skipped TurnResult has tools_matched None (nothing was sent)
    script(t1=SessionLost("gone"))
    test = {
        "name": "skipped",
        "turns": [{"input": "t1"}, {"input": "t2", "expected_tools": ["divide"]}],
    }
    skipped = turns_of(await run(test))[1]
    assert skipped.skipped and skipped.tools_matched is None and skipped.tool_mismatches == []


def test_rollup_helper_pure_logic() -> None:
    # HoloDeck: test_executor_per_turn_tools.py::test_rollup_helper_pure_logic
    # (assay's roll-up of tools_matched is a row of rollup_multi_turn, checked through it)
    def rolled(*matched: bool | None) -> bool | None:
        turns = [
            TurnResult(turn_index=i, input="x", tools_matched=m, passed=True, execution_time_ms=0)
            for i, m in enumerate(matched)
        ]
        return rollup_multi_turn("t", turns, "2026-01-01T00:00:00+00:00").tools_matched

    assert rolled(None, None) is None
    assert rolled(True, None) is True
    assert rolled(True, False) is False
    assert rolled(False) is False


# --- test_executor_arg_matching.py -----------------------------------------------------


async def test_fuzzy_regex_args_populate_arg_match_details() -> None:
    # HoloDeck: test_executor_arg_matching.py::test_fuzzy_regex_args_populate_arg_match_details
    script(q=tools("Math-subtract", a=206588.0, b="181001", c=42))
    expected = {
        "name": "subtract",
        "args": {"a": {"fuzzy": "206588"}, "b": {"regex": r"^181001(\.0+)?$"}, "c": 42},
    }
    result = await run(
        {"name": "fuzzy-regex", "turns": [{"input": "q", "expected_tools": [expected]}]}
    )
    turn = turns_of(result)[0]
    assert turn.tools_matched is True
    assert turn.arg_match_details is not None
    assert len(turn.arg_match_details) == 1
    entry = details(turn)[0]
    assert entry["expected_tool"] == "subtract"
    assert entry["matched_call_index"] == 0
    assert entry["unmatched_reason"] is None


async def test_missing_arg_fails_turn_with_reason() -> None:
    # HoloDeck: test_executor_arg_matching.py::test_missing_arg_fails_turn_with_reason
    script(q=tools("subtract", b=181001))
    expected = {"name": "subtract", "args": {"a": 206588}}
    result = await run(
        {"name": "missing-arg", "turns": [{"input": "q", "expected_tools": [expected]}]}
    )
    turn = turns_of(result)[0]
    assert turn.tools_matched is False
    assert turn.passed is False
    assert turn.arg_match_details is not None
    entry = details(turn)[0]
    assert entry["matched_call_index"] == -1
    assert "a" in entry["unmatched_reason"]
    assert "missing" in entry["unmatched_reason"]


async def test_extras_ignored() -> None:
    # HoloDeck: test_executor_arg_matching.py::test_extras_ignored
    script(q=tools("Math-divide", a=1, rounding_mode="half-up"))
    expected = {"name": "divide", "args": {"a": 1}}
    result = await run({"name": "extras", "turns": [{"input": "q", "expected_tools": [expected]}]})
    turn = turns_of(result)[0]
    assert turn.tools_matched is True
    assert turn.passed is True


async def test_name_matches_but_args_mismatch_fails() -> None:
    # HoloDeck: test_executor_arg_matching.py::test_name_matches_but_args_mismatch_fails
    script(q=tools("subtract", a=999))
    expected = {"name": "subtract", "args": {"a": 206588}}
    test = {"name": "name-ok-args-bad", "turns": [{"input": "q", "expected_tools": [expected]}]}
    turn = turns_of(await run(test))[0]
    assert turn.tools_matched is False
    assert turn.passed is False
    entry = details(turn)[0]
    assert entry["matched_call_index"] == -1
    assert "999" in entry["unmatched_reason"]


# --- test_executor_per_turn_metrics.py -------------------------------------------------


def names(metrics: list[MetricResult]) -> list[str]:
    return [m.metric_name for m in metrics]


async def test_turn_with_ground_truth_runs_metrics() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_turn_with_ground_truth_runs_metrics
    script(q1=reply_scoring(0.8))
    test = {"name": "gt-turn", "turns": [{"input": "q1", "ground_truth": GT}]}
    result = await run(test, metrics=[BLEU])
    [turn] = turns_of(result)
    assert names(turn.metric_results) == ["levenshtein"]
    assert turn.metric_results[0].passed is True
    assert turn.metric_results[0].score == pytest.approx(0.8)


async def test_turn_without_ground_truth_skips_text_metrics() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_turn_without_ground_truth_skips_text_metrics
    script(q1="r1", q2=reply_scoring(0.9))
    test = {"name": "no-gt", "turns": [{"input": "q1"}, {"input": "q2", "ground_truth": GT}]}
    first, second = turns_of(await run(test, metrics=[BLEU]))
    assert names(first.metric_results) == []
    assert names(second.metric_results) == ["levenshtein"]


async def test_per_turn_evaluations_override_agent_defaults() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_per_turn_evaluations_override_agent_defaults
    script(q1=GT, q2=GT)
    test = {
        "name": "override",
        "turns": [
            {"input": "q1", "ground_truth": GT},
            {"input": "q2", "ground_truth": GT, "metrics": [ROUGE]},
        ],
    }
    first, second = turns_of(await run(test, metrics=[BLEU]))  # suite level: the agent's
    assert names(first.metric_results) == ["levenshtein"]
    assert names(second.metric_results) == ["fuzzy"]


async def test_test_case_evaluations_override_agent_when_turn_unset() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::
    #   test_test_case_evaluations_override_agent_when_turn_unset
    script(q1=GT)
    test = {"name": "mid", "turns": [{"input": "q1", "ground_truth": GT}], "metrics": [ROUGE]}
    [turn] = turns_of(await run(test, metrics=[BLEU]))
    assert names(turn.metric_results) == ["fuzzy"]


async def test_rollup_mean_across_turns() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_rollup_mean_across_turns
    script(q1=reply_scoring(0.8), q2=reply_scoring(0.4), q3=reply_scoring(0.6))
    test = {
        "name": "rollup-mean",
        "turns": [{"input": q, "ground_truth": GT} for q in ("q1", "q2", "q3")],
    }
    result = await run(test, metrics=[BLEU])
    rolled = [m for m in result.metric_results if m.metric_name == "levenshtein"]
    assert len(rolled) == 1
    assert rolled[0].score == pytest.approx(0.6, rel=1e-6)
    assert rolled[0].passed is False  # turn 2 scored 0.4 < 0.5


async def test_rollup_skips_turns_without_metric() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_rollup_skips_turns_without_metric
    script(q1=reply_scoring(0.8), q2="r2", q3=reply_scoring(1.0))
    test = {
        "name": "rollup-skip",
        "turns": [
            {"input": "q1", "ground_truth": GT},
            {"input": "q2"},  # no ground truth: levenshtein does not run
            {"input": "q3", "ground_truth": GT},
        ],
    }
    result = await run(test, metrics=[BLEU])
    rolled = [m for m in result.metric_results if m.metric_name == "levenshtein"]
    assert len(rolled) == 1
    assert rolled[0].score == pytest.approx(0.9, rel=1e-6)


async def test_metric_omitted_when_every_turn_skipped() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_metric_omitted_when_every_turn_skipped
    script(q1="r1", q2="r2")
    result = await run(
        {"name": "all-skip", "turns": [{"input": "q1"}, {"input": "q2"}]}, metrics=[BLEU]
    )
    assert "levenshtein" not in names(result.metric_results)


async def test_failing_turn_flips_rolled_up_passed() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_failing_turn_flips_rolled_up_passed
    script(q1=reply_scoring(0.9), q2=reply_scoring(0.9), q3=reply_scoring(0.3))
    test = {"name": "flip", "turns": [{"input": q, "ground_truth": GT} for q in ("q1", "q2", "q3")]}
    result = await run(test, metrics=[BLEU])
    rolled = [m for m in result.metric_results if m.metric_name == "levenshtein"]
    assert len(rolled) == 1
    assert rolled[0].score == pytest.approx(0.7, rel=1e-6)  # the mean passes 0.5...
    assert rolled[0].passed is False  # ...but turn 3 did not
    assert result.passed is False


def a_turn(**fields: Any) -> TurnResult:
    return TurnResult(
        **{"turn_index": 0, "input": "q", "passed": True, "execution_time_ms": 0, **fields}
    )


def test_turn_with_errors_only_fails() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_turn_with_errors_only_fails
    assert turn_passed(a_turn(errors=["timeout"])) is False


def test_skipped_turn_fails() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_skipped_turn_fails
    assert turn_passed(a_turn(skipped=True)) is False


def test_tools_matched_false_fails() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_tools_matched_false_fails
    turn = a_turn(
        response="r", expected_tools=["subtract"], tool_calls=["lookup"], tools_matched=False
    )
    assert turn_passed(turn) is False


def test_metric_failed_fails_turn() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::test_metric_failed_fails_turn
    metric = MetricResult(
        metric_name="bleu", kind="standard", score=0.1, threshold=0.5, passed=False, scale="0-1"
    )
    turn = a_turn(response="r", ground_truth="gt", metric_results=[metric])
    assert turn_passed(turn) is False


async def test_executor_composes_turn_passed_from_all_conjuncts() -> None:
    # HoloDeck: test_executor_per_turn_metrics.py::
    #   test_executor_composes_turn_passed_from_all_conjuncts
    script(q1=reply_scoring(0.9), q2=reply_scoring(0.1))
    test = {"name": "conj", "turns": [{"input": q, "ground_truth": GT} for q in ("q1", "q2")]}
    first, second = turns_of(await run(test, metrics=[BLEU]))
    assert first.passed is True
    assert second.passed is False  # 0.1 < 0.5


# --- test_executor_parallel.py ---------------------------------------------------------


async def test_parallel_respects_semaphore() -> None:
    # HoloDeck: test_executor_parallel.py::test_parallel_respects_semaphore
    tests = [{"name": f"c{i}", "turns": [{"input": "t"}]} for i in range(4)]
    await run_all(tests, "counting", concurrency=2)
    assert agents.live["most"] <= 2
    assert agents.live["most"] >= 2  # reaches the limit


async def test_turns_within_case_stay_sequential() -> None:
    # HoloDeck: test_executor_parallel.py::test_turns_within_case_stay_sequential
    tests = [{"name": "a", "turns": [{"input": x} for x in ("a1", "a2", "a3")]}]
    await run_all(tests, "one_at_a_time", concurrency=4)
    assert agents.log == ["start-a1", "end-a1", "start-a2", "end-a2", "start-a3", "end-a3"]


async def test_reporter_writes_serialized() -> None:
    # HoloDeck: test_executor_parallel.py::test_reporter_writes_serialized
    tests = [{"name": f"tc-{i}", "turns": [{"input": "x"}]} for i in range(4)]
    _, _, seen = await run_all(tests, "counting", concurrency=3)
    assert len(seen) == 8
    for enter, leave in zip(seen[::2], seen[1::2], strict=True):
        assert enter.startswith("enter-") and leave.startswith("leave-")
        assert enter.split("-", 1)[1] == leave.split("-", 1)[1]


# --- test_reporter_multi_turn.py (what the reports carry; the Markdown's per-turn layout) ---


def a_report(results: list[TestResult]) -> Report:
    run_info = RunInfo(id="v" * 32, suite_name="vectors", started_at="t", assay_version="0")
    return Report(run=run_info, results=results, summary=summarize(results))


async def test_failure_pinpoints_turn_index() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_failure_pinpoints_turn_index
    script(
        q0="r0", q1="r1", q2={"response": "bbbbbbbbbb", "tool_invocations": [{"name": "lookup"}]}
    )
    test = {
        "name": "pinpoint",
        "turns": [
            {"input": "q0"},
            {"input": "q1"},
            {"input": "q2", "ground_truth": GT, "expected_tools": ["subtract"], "metrics": [BLEU]},
        ],
    }
    result = await run(test)
    assert [t.passed for t in turns_of(result)] == [True, True, False]
    md = render_markdown(a_report([result]))
    assert "Turn 2" in md  # the failing turn, by its index
    assert "levenshtein" in md  # the failing metric
    assert "subtract" in md  # the tool it did not call


async def test_json_reporter_includes_turns_field() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_json_reporter_includes_turns_field
    script(hi="r0", **{"who?": "r1", "joke?": "r2", "hello": "hi"})
    multi = await run(
        {"name": "chit-chat", "turns": [{"input": q} for q in ("hi", "who?", "joke?")]}
    )
    single = await run({"name": "legacy", "input": "hello"})
    multi_json = json.loads(a_report([multi]).model_dump_json())
    single_json = json.loads(a_report([single]).model_dump_json())
    assert multi_json["results"][0]["turns"] is not None
    assert len(multi_json["results"][0]["turns"]) == 3
    assert single_json["results"][0].get("turns") is None


async def test_single_turn_markdown_no_turns_section() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_single_turn_markdown_no_turns_section
    # (a failing test, so that its detail is rendered: a single turn carries no turn label)
    script(hello="hi")
    result = await run({"name": "legacy", "input": "hello", "ground_truth": "bye"})
    assert result.passed is False and result.turns is None
    md = render_markdown(a_report([result]))
    assert "legacy" in md
    assert "Turn 0" not in md and "Turn " not in md


async def test_markdown_shows_per_turn_metric_scores() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_markdown_shows_per_turn_metric_scores
    script(q0={"response": reply_scoring(0.8), "tool_invocations": [{"name": "subtract"}]})
    test = {
        "name": "metrics-per-turn",
        "turns": [{"input": "q0", "ground_truth": GT, "expected_tools": ["subtract"]}],
    }
    result = await run(test, metrics=[BLEU])
    [turn] = turns_of(result)
    assert turn.tools_matched is True and turn.passed is True
    md = render_markdown(a_report([result]))
    assert "levenshtein" in md
    assert "0.8" in md
    assert "✅" in md


async def chit_chat() -> TestResult:
    """HoloDeck's _multi_turn_report: three turns, all passing (each checked: assay does not
    pass a test on which nothing was checked)."""
    script(hi="r0", **{"who?": "r1", "joke?": "r2"})
    turns = [{"input": q, "ground_truth": f"r{i}"} for i, q in enumerate(("hi", "who?", "joke?"))]
    result = await run({"name": "chit-chat", "turns": turns}, metrics=["equality"])
    assert result.passed is True
    return result


async def test_markdown_renders_per_turn_rows() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_markdown_renders_per_turn_rows
    # (a passing multi-turn test is shown turn by turn too, in its own section)
    md = render_markdown(a_report([await chit_chat()]))
    for snippet in ("turn 0", "turn 1", "turn 2"):
        assert snippet in md.lower()
    assert "hi" in md and "who?" in md and "joke?" in md


async def test_markdown_hierarchy_parent_and_turns() -> None:
    # HoloDeck: test_reporter_multi_turn.py::test_markdown_hierarchy_parent_and_turns
    # assay's test heading is its own ("#### ✅ NAME (multi_turn, passed)", under a section,
    # not "### Test: NAME"); the Turns block and one deeper heading per turn are HoloDeck's.
    md = render_markdown(a_report([await chit_chat()]))
    assert "#### ✅ chit-chat (multi_turn, passed)" in md
    assert "#### Turns" in md
    assert md.count("##### Turn ") == 3
    rows = [line for line in md.splitlines() if line.startswith("###### Turn ")]
    assert [row.split(" — ")[0] for row in rows] == [f"###### Turn {i} ✅ passed" for i in range(3)]
    assert all(row.endswith("· equality 1.00") for row in rows)
