"""A test on which nothing was checked is not_run, never passed; the counts every output
shows come from one helper and keep the contract's ``passed + failed == total_tests``.

Expected values are worked out by hand from the rule in ``results/rollup.py``: a test counts
as checked when a metric ran and gave a verdict, or a tool assertion was evaluated."""

from __future__ import annotations

from assay.results import (
    NOTHING_CHECKED,
    MetricResult,
    StatusCounts,
    TestResult,
    TurnResult,
    rollup_multi_turn,
    settle,
    single_turn_result,
    summarize,
    turn_passed,
)

NO_TOKENS = "the target reported no token usage"


def turn(i: int = 0, **kw: object) -> TurnResult:
    t = TurnResult(turn_index=i, input=f"q{i}", execution_time_ms=5, passed=False, **kw)  # type: ignore[arg-type]
    t.passed = turn_passed(t)
    return t


def metric(name: str, passed: bool | None, **kw: object) -> MetricResult:
    return MetricResult(metric_name=name, score=1.0 if passed else 0.0, passed=passed, **kw)  # type: ignore[arg-type]


def single(**kw: object) -> TestResult:
    return single_turn_result("t", turn(**kw), "ts")


def test_a_reply_with_nothing_to_compare_is_not_run_with_the_reason() -> None:
    r = single(response="hello")
    assert (r.passed, r.status) == (False, "not_run")
    assert r.errors == [NOTHING_CHECKED]
    assert r.errors[0] == "not run: nothing to check: no expected answer, tools or metric ran"


def test_the_reason_names_each_metric_that_could_not_run() -> None:
    r = single(
        response="hi", metrics_not_run={"cost": NO_TOKENS, "semantic_similarity": "no model"}
    )
    assert r.status == "not_run"
    assert r.errors == [f"{NOTHING_CHECKED} (cost: {NO_TOKENS}; semantic_similarity: no model)"]


def test_a_score_without_a_verdict_checks_nothing() -> None:
    # passed None: the metric measured but did not judge; the contract lets the turn pass
    t = turn(response="hi", metric_results=[metric("length", None)])
    assert t.passed  # contract §3 is unchanged at turn level
    assert single_turn_result("t", t, "ts").status == "not_run"


def test_each_kind_of_check_makes_a_passing_test_passed() -> None:
    by_metric = single(response="Paris", metric_results=[metric("equality", True)])
    by_tools = single(response="ok", tools_matched=True)
    for r in (by_metric, by_tools):
        assert (r.passed, r.status, r.errors) == (True, "passed", [])


def test_a_failure_is_never_hidden_as_not_run() -> None:
    agent_error = single(errors=["HTTP 500 from http://127.0.0.1/chat: boom"])
    assert (agent_error.passed, agent_error.status) == (False, "error")
    broken_metric = single(response="x", metric_results=[metric("m", False, error="ValueError")])
    assert (broken_metric.passed, broken_metric.status) == (False, "failed")
    wrong_tools = single(response="x", tools_matched=False)
    assert wrong_tools.status == "failed"


def test_a_multi_turn_test_is_checked_when_any_turn_checked_something() -> None:
    checked = rollup_multi_turn(
        "m", [turn(0, response="a"), turn(1, response="b", tools_matched=True)], "ts"
    )
    assert (checked.passed, checked.status) == (True, "passed")
    unchecked = rollup_multi_turn("m", [turn(0, response="a"), turn(1, response="b")], "ts")
    assert (unchecked.passed, unchecked.status) == (False, "not_run")
    assert all(t.passed for t in unchecked.turns or [])  # each turn still passes (§3)
    lost = rollup_multi_turn("m", [turn(0, response="a"), turn(1, errors=["timed out"])], "ts")
    assert (lost.status, lost.errors) == ("error", ["[turn 1] timed out"])


def test_settle_again_after_a_test_scoped_metric_decides_from_it() -> None:
    """The runner appends trajectory and conversation metrics after the roll-up; settling
    again counts them: a pass makes the test passed, a failure failed, never not_run."""
    passing = single(response="x")
    passing.metric_results.append(metric("trajectory", True))
    assert (settle(passing).status, passing.passed, passing.errors) == ("passed", True, [])
    failing = single(response="x")
    failing.metric_results.append(metric("trajectory", False))
    assert (settle(failing).status, failing.passed, failing.errors) == ("failed", False, [])
    again = single(response="x", metrics_not_run={"cost": NO_TOKENS})
    assert settle(settle(again)).errors == [f"{NOTHING_CHECKED} (cost: {NO_TOKENS})"]


def test_settle_keeps_the_reason_of_a_test_that_never_ran() -> None:
    goal = TestResult(
        test_name="g",
        test_type="goal",
        test_input="get a refund",
        passed=False,
        status="not_run",
        execution_time_ms=0,
        errors=["not run: goal-driven tests need a simulated-user model (simulator:)"],
        timestamp="ts",
    )
    assert settle(goal).errors == [
        "not run: goal-driven tests need a simulated-user model (simulator:)"
    ]
    assert goal.status == "not_run"


def test_one_count_for_every_output_disjoint_and_within_the_contract() -> None:
    results = [
        single(response="Paris", metric_results=[metric("equality", True)]),  # passed
        single(response="x", metric_results=[metric("equality", False)]),  # failed
        single(errors=["Agent invocation timeout after 5s"]),  # error
        single(errors=["Agent invocation error: no"]),  # error
        single(response="x"),  # not_run
    ]
    s = summarize(results)
    assert (s.total_tests, s.passed, s.failed, s.errored, s.not_run) == (5, 1, 4, 2, 1)
    assert s.passed + s.failed == s.total_tests  # contract §5: failed = did not pass
    counts = StatusCounts.of(s)
    assert (counts.passed, counts.failed, counts.errored, counts.not_run) == (1, 1, 2, 1)
    assert counts.total == 5
    assert counts.line() == "5 tests: 1 passed, 1 failed, 2 errored, 1 not run"
    assert s.pass_rate == 20.0  # a percentage: 1 of 5 tests passed


NO_TOOLS = "the expected tools are [], which asserts nothing"


def test_an_empty_expected_tools_holds_but_checks_nothing() -> None:
    """``expected_tools: []`` keeps ``tools_matched`` true (HoloDeck's rule) and asserts
    nothing: alone, the test is not run, with the reason."""
    r = single(response="ok", expected_tools=[], tools_matched=True)
    assert (r.passed, r.status, r.tools_matched) == (False, "not_run", True)
    assert r.errors == [
        f"not run: nothing to check: no expected answer, no metric ran, and {NO_TOOLS}"
    ]
    with_metric = single(
        response="ok", expected_tools=[], tools_matched=True, metric_results=[metric("m", True)]
    )
    assert with_metric.status == "passed"
    multi = rollup_multi_turn(
        "m", [turn(0, response="a", expected_tools=[], tools_matched=True)], "ts"
    )
    assert (multi.status, multi.tools_matched) == ("not_run", True)
    asserted = rollup_multi_turn(
        "m",
        [
            turn(0, response="a", expected_tools=[], tools_matched=True),
            turn(1, response="b", expected_tools=["lookup"], tools_matched=True),
        ],
        "ts",
    )
    assert asserted.status == "passed"


def test_the_reason_says_an_expected_answer_was_compared_by_no_metric() -> None:
    """A test with an expected answer is not told it has none: ``metrics: []`` asks for no
    metric, or the metrics listed gave no verdict (and each one's reason is given)."""
    no_metrics = single(response="Paris", ground_truth="Paris")
    assert no_metrics.status == "not_run"
    assert no_metrics.errors == [
        "not run: nothing to check: `metrics: []` asks for no metric, so the expected answer "
        "is compared by none"
    ]
    no_model = single(
        response="Paris", ground_truth="Paris", metrics_not_run={"semantic_similarity": "no model"}
    )
    assert no_model.errors == [
        "not run: nothing to check: no metric gave a verdict on the expected answer "
        "(semantic_similarity: no model)"
    ]
    with_tools = single(
        response="Paris", ground_truth="Paris", expected_tools=[], tools_matched=True
    )
    assert with_tools.errors == [
        "not run: nothing to check: `metrics: []` asks for no metric, so the expected answer "
        f"is compared by none, and {NO_TOOLS}"
    ]
    multi = rollup_multi_turn("m", [turn(0, response="a"), turn(1, ground_truth="b")], "ts")
    assert multi.errors[0].endswith("so the expected answer is compared by none")
