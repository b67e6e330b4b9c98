"""Golden tests for the turn-result contract: pass rule (§3), roll-up (§4), summary (§5).
Every expected value below is worked out by hand from the contract's table."""

from __future__ import annotations

from assay.metrics.tools import ExpectedTool, check_expected_tools
from assay.results import (
    MetricResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
    rollup_multi_turn,
    single_turn_result,
    summarize,
    turn_passed,
)


def metric(name: str, score: float | None, passed: bool | None, **kw: object) -> MetricResult:
    return MetricResult(metric_name=name, score=score, passed=passed, **kw)  # type: ignore[arg-type]


def turn(i: int, **kw: object) -> TurnResult:
    base: dict[str, object] = {
        "turn_index": i,
        "input": f"q{i}",
        "execution_time_ms": 100 * (i + 1),
    }
    base.update(kw)
    t = TurnResult(passed=False, **base)  # type: ignore[arg-type]
    t.passed = turn_passed(t)
    return t


# --- §3 pass rule -------------------------------------------------------------------------


def test_a_clean_turn_passes() -> None:
    assert turn(0, response="ok", metric_results=[metric("m", 1.0, True)]).passed


def test_each_failure_condition_fails_the_turn() -> None:
    assert not turn(0, errors=["boom"]).passed
    assert not turn(0, skipped=True, errors=["skipped: lost"]).passed
    assert not turn(0, tools_matched=False).passed
    assert not turn(0, metric_results=[metric("a", 1.0, True), metric("b", 0.2, False)]).passed


def test_null_tools_matched_and_null_metric_pass_do_not_fail() -> None:
    # passed is None means "no verdict" (m.passed != false holds), tools_matched None: no assertion
    assert turn(0, tools_matched=None, metric_results=[metric("a", None, None)]).passed


# --- §4 roll-up, row by row --------------------------------------------------------------


def three_turns() -> list[TurnResult]:
    call = ToolInvocation(name="lookup", args={"q": 1}, result=2, bytes=1)
    sub = ToolInvocation(name="subtract", args={"a": 5, "b": 3}, result=2, bytes=1)
    return [
        turn(
            0,
            response="r0",
            tool_calls=["lookup"],
            tool_invocations=[call],
            expected_tools=["lookup"],
            tools_matched=True,
            metric_results=[metric("numeric", 1.0, True), metric("equality", 1.0, True)],
            token_usage=TokenUsage(
                prompt_tokens=10,
                completion_tokens=2,
                total_tokens=12,
                cache_creation_tokens=1,
                cache_read_tokens=3,
            ),
        ),
        turn(
            1,
            response="r1",
            tool_calls=["subtract", "lookup"],
            tool_invocations=[sub, call],
            expected_tools=[{"name": "subtract", "count": 1}, "lookup"],
            tools_matched=False,
            metric_results=[metric("numeric", 0.0, False)],
            token_usage=TokenUsage(
                prompt_tokens=20,
                completion_tokens=4,
                total_tokens=24,
                cache_creation_tokens=0,
                cache_read_tokens=5,
            ),
            errors=["slow"],
        ),
        turn(2, response=None, errors=["timed out", "again"]),
    ]


def test_rollup_every_row_of_the_table() -> None:
    turns = three_turns()
    r = rollup_multi_turn("t", turns, "2026-01-01T00:00:00+00:00")
    assert r.test_type == "multi_turn"
    assert r.test_input == "q0\n---\nq1\n---\nq2"
    assert r.agent_response is None  # turns[-1].response
    assert r.tool_calls == ["lookup", "subtract", "lookup"]
    assert [c.name for c in r.tool_invocations] == ["lookup", "subtract", "lookup"]
    assert r.expected_tools == ["lookup", {"name": "subtract", "count": 1}]  # union, in order
    assert r.tools_matched is False  # turn 1 asserted and failed
    assert r.ground_truth is None
    assert r.passed is False
    assert r.execution_time_ms == 100 + 200 + 300
    assert r.token_usage == TokenUsage(
        prompt_tokens=30,
        completion_tokens=6,
        total_tokens=36,
        cache_creation_tokens=1,
        cache_read_tokens=8,
    )
    assert r.errors == ["[turn 1] slow", "[turn 2] timed out", "[turn 2] again"]
    assert r.timestamp == "2026-01-01T00:00:00+00:00"
    assert r.turns == turns
    by_name = {m.metric_name: m for m in r.metric_results}
    assert set(by_name) == {"numeric", "equality"}  # each name once
    assert by_name["numeric"].score == 0.5  # mean(1.0, 0.0); turn 2 did not run it
    assert by_name["numeric"].passed is False
    assert by_name["equality"].score == 1.0  # only turn 0 ran it: skipped turns don't count
    assert by_name["equality"].passed is True


def errored(name: str) -> MetricResult:
    """A metric whose code raised, with ``fail_on_error: false``: no verdict, no score."""
    return metric(name, None, None, kind="code", error="ValueError: boom")


def test_a_metric_that_gave_no_verdict_on_any_turn_rolls_up_without_one() -> None:
    """§4 ``passed = all(turn_passed for that metric)``, over the verdicts there are: none on
    any turn is no verdict (null, as the same metric on a single turn), not a pass."""
    turns = [
        turn(i, metric_results=[metric("equality", 1.0, True), errored("code:boom")])
        for i in range(2)
    ]
    r = rollup_multi_turn("t", turns, "ts")
    by_name = {m.metric_name: m for m in r.metric_results}
    boom = by_name["code:boom"]
    assert (boom.passed, boom.score) == (None, None)
    assert boom.error == "ValueError: boom; ValueError: boom"
    assert by_name["equality"].passed is True
    assert (r.passed, r.status) == (True, "passed")  # equality held; boom failed nothing
    single = single_turn_result("s", turn(0, metric_results=[errored("code:boom")]), "ts")
    assert single.metric_results[0].passed is None  # the same as on a single turn
    # the summary counts the rolled-up metric on the test, as the single turn's
    s = summarize([r, single])
    assert s.metrics_evaluated == {"equality": 1, "code:boom": 2}
    assert s.average_scores == {"equality": 1.0}


def test_a_rolled_up_verdict_is_false_if_any_turn_failed_else_true_if_any_passed() -> None:
    cases = [
        ([None, True], True),
        ([True, None, True], True),
        ([None, False], False),
        ([True, None, False], False),
        ([None, None, None], None),
    ]
    for verdicts, expected in cases:
        turns = [
            turn(i, metric_results=[metric("m", None if v is None else float(v), v)])
            for i, v in enumerate(verdicts)
        ]
        [rolled] = rollup_multi_turn("t", turns, "ts").metric_results
        assert rolled.passed is expected, verdicts


def test_rollup_omits_a_metric_no_turn_ran_and_tools_null_without_assertions() -> None:
    turns = [turn(0, response="a"), turn(1, response="b")]
    r = rollup_multi_turn("t", turns, "ts")
    assert r.metric_results == []
    assert r.tools_matched is None
    assert r.token_usage is None
    assert (r.passed, r.status) == (False, "not_run")  # nothing was checked on any turn
    assert r.agent_response == "b"


def test_rollup_tools_matched_true_when_all_asserting_turns_match() -> None:
    turns = [turn(0, tools_matched=True), turn(1, tools_matched=None), turn(2, tools_matched=True)]
    assert rollup_multi_turn("t", turns, "ts").tools_matched is True


def test_a_skipped_turn_that_expected_tools_makes_the_tests_tools_matched_not_null() -> None:
    # "null if no turn asserted tools": the skipped turn asserted them (its own stays null)
    skipped = {"skipped": True, "errors": ["skipped: session lost"], "expected_tools": ["x"]}
    turns = [turn(0, response="a"), turn(1, **skipped)]
    assert rollup_multi_turn("t", turns, "ts").tools_matched is True
    turns.append(turn(2, response="c", expected_tools=["y"], tools_matched=False))
    assert rollup_multi_turn("t", turns, "ts").tools_matched is False


def test_a_skipped_turn_fails_the_test() -> None:
    turns = [turn(0, response="a"), turn(1, skipped=True, errors=["skipped: session lost"])]
    r = rollup_multi_turn("t", turns, "ts")
    assert r.passed is False
    assert r.errors == ["[turn 1] skipped: session lost"]


def test_token_usage_add_sums_all_five_counters() -> None:
    a = TokenUsage(
        prompt_tokens=1,
        completion_tokens=2,
        total_tokens=3,
        cache_creation_tokens=4,
        cache_read_tokens=5,
    )
    b = TokenUsage(
        prompt_tokens=10,
        completion_tokens=20,
        total_tokens=30,
        cache_creation_tokens=40,
        cache_read_tokens=50,
    )
    assert a + b == TokenUsage(
        prompt_tokens=11,
        completion_tokens=22,
        total_tokens=33,
        cache_creation_tokens=44,
        cache_read_tokens=55,
    )


def test_single_turn_result_has_no_turns_list() -> None:
    t = turn(
        0, response="Paris", ground_truth="Paris", metric_results=[metric("equality", 1, True)]
    )
    r = single_turn_result("capital", t, "ts")
    assert r.turns is None
    assert r.test_type == "single_turn"
    assert (r.test_input, r.agent_response, r.ground_truth) == ("q0", "Paris", "Paris")
    assert r.passed is True and r.status == "passed"


def test_a_single_turn_result_carries_its_turns_tool_mismatches() -> None:
    """A single-turn result's fields are its turn's, ``tool_mismatches`` too: the reason a
    name-only or ``count`` assertion failed, which ``arg_match_details`` does not hold."""
    calls = [
        ToolInvocation(name="lookup"),
        ToolInvocation(name="subtract", args={"a": 206588}),
    ]
    for expected, reasons in [
        ([ExpectedTool(name="subtract", count=0)], ["'subtract' must not be called, found 1"]),
        (
            [ExpectedTool(name="lookup"), ExpectedTool(name="missing")],
            ["no call to 'missing' found"],
        ),
    ]:
        check = check_expected_tools(expected, calls)
        assert check.mismatches == reasons and check.arg_match_details is None
        t = turn(
            0,
            response="206588",
            tool_calls=["lookup", "subtract"],
            tool_invocations=calls,
            expected_tools=[e.normalized() for e in expected],
            tools_matched=check.tools_matched,
            tool_mismatches=check.mismatches,
        )
        r = single_turn_result("s", t, "ts")
        assert r.tool_mismatches == reasons
        assert (r.passed, r.status, r.errors, r.arg_match_details) == (False, "failed", [], None)
        assert r.model_dump(mode="json")["tool_mismatches"] == reasons
    # a multi-turn test's stay on its turns, as its arg_match_details do
    assert rollup_multi_turn("m", [t], "ts").tool_mismatches == []


# --- §5 summary invariant ------------------------------------------------------------------


def test_summary_counts_tests_not_turns_and_averages_rolled_up_scores() -> None:
    multi = rollup_multi_turn("m", three_turns(), "ts")  # numeric 0.5, equality 1.0, failed
    single_ok = single_turn_result(
        "s1", turn(0, response="x", metric_results=[metric("numeric", 1.0, True)]), "ts"
    )
    single_bad = single_turn_result(
        "s2", turn(0, response="y", metric_results=[metric("numeric", 0.0, False)]), "ts"
    )
    s = summarize([multi, single_ok, single_bad])
    assert s.total_tests == 3  # not 5 turns
    assert s.total_turns == 5
    assert s.passed + s.failed == s.total_tests
    assert (s.passed, s.failed) == (1, 2)
    assert s.metrics_evaluated == {"numeric": 3, "equality": 1}
    # mean of rolled-up test scores: (0.5 + 1.0 + 0.0) / 3, not the per-turn mean (2/4)
    assert s.average_scores["numeric"] == (0.5 + 1.0 + 0.0) / 3
    assert s.average_scores["equality"] == 1.0


def test_summary_counts_metrics_not_run_per_test_with_the_first_reason() -> None:
    no_truth = "no ground truth (Answer) for this turn"
    multi = rollup_multi_turn(
        "m",
        [
            turn(0, metrics_not_run={"equality": no_truth}),
            turn(1, metrics_not_run={"equality": no_truth, "correctness": "no judge"}),
        ],
        "ts",
    )
    single = single_turn_result("s", turn(0, metrics_not_run={"correctness": "no judge"}), "ts")
    s = summarize([multi, single, single_turn_result("ok", turn(0), "ts")])
    # per test, not per turn: the two turns of "m" count once
    assert {k: (v.tests, v.reason) for k, v in s.metrics_not_run.items()} == {
        "equality": (1, no_truth),
        "correctness": (2, "no judge"),
    }


def test_a_metric_name_run_twice_in_one_single_turn_test_counts_once() -> None:
    """§5: metrics_evaluated counts the tests a metric appears in, average_scores averages
    test scores. A single-turn test with two ``contains`` checks (one result each) is one
    test for ``contains``, scoring their mean, as a multi-turn roll-up merges a name."""
    twice = single_turn_result(
        "s1",
        turn(0, metric_results=[metric("contains", 1.0, True), metric("contains", 0.0, False)]),
        "ts",
    )
    once = single_turn_result("s2", turn(0, metric_results=[metric("contains", 1.0, True)]), "ts")
    multi = rollup_multi_turn(
        "m",
        [
            turn(0, metric_results=[metric("contains", 1.0, True), metric("contains", 0.0, False)]),
            turn(1, metric_results=[metric("contains", 1.0, True), metric("contains", 1.0, True)]),
        ],
        "ts",
    )
    assert [m.metric_name for m in multi.metric_results] == ["contains"]  # once, merged
    s = summarize([twice, once, multi])
    assert s.metrics_evaluated == {"contains": 3}  # three tests, not six results
    # test scores 0.5, 1.0 and the multi-turn roll-up's mean of its four, 0.75
    assert s.average_scores["contains"] == (0.5 + 1.0 + 0.75) / 3


def test_an_empty_expected_tools_on_a_turn_is_kept_in_the_union() -> None:
    # contract §4: expected_tools is the union of the turns' assertions, null only when no
    # turn asserted tools; a turn's [] is an assertion (tools_matched true beside it)
    turns = [turn(0, expected_tools=[], tools_matched=True), turn(1)]
    result = rollup_multi_turn("t", turns, "2026-01-01T00:00:00+00:00")
    assert (result.expected_tools, result.tools_matched) == ([], True)
    none = rollup_multi_turn("t", [turn(0), turn(1)], "2026-01-01T00:00:00+00:00")
    assert (none.expected_tools, none.tools_matched) == (None, None)
