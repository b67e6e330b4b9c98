"""Stored runs for the dashboard tests, written through the real Store API with fixed ids
and times (so pages, and the screenshots of them, are the same from one run to the next).

``seed_history`` stores eight runs of the suite ``travel-assistant``; the last two differ
in exactly the ways the compare tests check: ``baggage-fee`` passes in the seventh run and
fails in the eighth (a regression), ``hotel-search`` does the opposite (an improvement).
"""

from __future__ import annotations

from assay.results.models import (
    ArgMatchDetail,
    MetricResult,
    RunInfo,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)
from assay.results.rollup import rollup_multi_turn, single_turn_result, summarize
from assay.store import Store

SUITE = "travel-assistant"
RUNS = 8
MULTI_TURN = "window-seat-survives-a-flight-change"
REGRESSED = "baggage-fee"
IMPROVED = "hotel-search"
LONG_RESULT = {"hotels": [{"id": i, "name": f"Hotel {i}", "price_chf": 100 + i} for i in range(40)]}


def run_id(i: int) -> str:
    return f"{i:02d}" + "a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3"


def when(i: int, second: int = 0) -> str:
    return f"2025-03-{i + 1:02d}T09:{i:02d}:{second:02d}.000+00:00"


def metric(
    name: str, score: float, threshold: float | None = None, **extra: object
) -> MetricResult:
    passed = score >= (threshold if threshold is not None else 1.0)
    return MetricResult.model_validate(
        {"metric_name": name, "score": score, "threshold": threshold, "passed": passed, **extra}
    )


def single(name: str, i: int, answer: str, truth: str, good: bool, **extra: object) -> TestResult:
    turn = TurnResult(
        turn_index=0,
        input=f"{name.replace('-', ' ')}?",
        response=answer,
        ground_truth=truth,
        tool_calls=["lookup_policy"],
        tool_invocations=[
            ToolInvocation(name="lookup_policy", args={"topic": name}, result={"ok": True})
        ],
        metric_results=[
            metric("equality", 1.0 if good else 0.0, dimension="comparison"),
            metric("latency", 1.0, dimension="performance", details={"ms": 120 + i}),
        ],
        passed=good,
        execution_time_ms=120 + i,
        token_usage=TokenUsage(prompt_tokens=40, completion_tokens=12, total_tokens=52),
    )
    return single_turn_result(name, turn, when(i, 1), **extra)


def multi(i: int) -> TestResult:
    """Two turns with tool calls (one with a long result) and a failed tool assertion, then
    a third turn skipped after the session was lost."""
    first = TurnResult(
        turn_index=0,
        input="I prefer a window seat.",
        response="Noted: you prefer a window seat.",
        tool_calls=["search_hotels"],
        tool_invocations=[
            ToolInvocation(
                name="search_hotels",
                args={"location": "Basel", "max_price_chf": 180},
                result=LONG_RESULT,
                bytes=2400,
                duration_ms=41,
            )
        ],
        tools_matched=True,
        metric_results=[metric("latency", 1.0, dimension="performance")],
        passed=True,
        execution_time_ms=310,
    )
    second = TurnResult(
        turn_index=1,
        input="Move me to the later flight.",
        response="Your ticket is now on LX0114, seat 14C.",
        ground_truth="Your ticket is now on LX0114, seat 12A.",
        expected_tools=[{"name": "update_ticket", "args": {"seat_preference": "window"}}],
        tool_calls=["update_ticket"],
        tool_invocations=[
            ToolInvocation(
                name="update_ticket",
                args={"new_flight_id": "LX0114", "seat_preference": "aisle"},
                result={"seat": "14C"},
                duration_ms=12,
            )
        ],
        tools_matched=False,
        arg_match_details=[
            ArgMatchDetail(
                expected_tool="update_ticket",
                args_asserted={"seat_preference": "window"},
                matched_call_index=-1,
                unmatched_reason="update_ticket: arg 'seat_preference' expected 'window', "
                "got 'aisle'",
            )
        ],
        metric_results=[
            metric("equality", 0.0, dimension="comparison"),
            metric(
                "correctness",
                0.4,
                0.7,
                kind="judge",
                dimension="accuracy",
                model_used="gpt-4o-mini",
                reasoning="The seat is wrong: the user asked for a window seat.",
            ),
        ],
        passed=False,
        execution_time_ms=280,
    )
    third = TurnResult(
        turn_index=2,
        input="And a vegetarian meal, please.",
        passed=False,
        skipped=True,
        errors=["skipped: the agent lost the session (HTTP 404) on turn 1"],
        execution_time_ms=0,
    )
    return rollup_multi_turn(MULTI_TURN, [first, second, third], when(i, 2), tags=["seats"])


def run_results(i: int) -> list[TestResult]:
    """Run ``i``'s results: the pass rate rises over the runs, with the last pair's changes."""
    last = i == RUNS - 1
    results = [
        single(
            REGRESSED, i, "CHF 60" if not last else "CHF 70", "CHF 60", good=not last, tags=["fees"]
        ),
        single(IMPROVED, i, "3 hotels" if last else "none", "3 hotels", good=last, tags=["hotels"]),
        multi(i),
    ]
    for k in range(9):
        good = k < 3 + (min(i, RUNS - 2) * 6) // RUNS  # the last two runs differ only as above
        results.append(single(f"policy-{k}", i, "yes" if good else "no", "yes", good=good))
    return results


def store_run(store: Store, i: int, results: list[TestResult]) -> str:
    run = RunInfo(
        id=run_id(i),
        suite_name=SUITE,
        status="running",
        started_at=when(i),
        assay_version="0.1.0",
        target="http://127.0.0.1:8765/chat",
        config={"name": SUITE},
    )
    store.create_run(run)
    store.add_results(run.id, list(enumerate(results)))
    store.finish_run(run.id, "completed", summarize(results), when(i, 42))
    return run.id


def seed_history(store: Store) -> list[str]:
    """Store the eight runs; their ids, oldest first."""
    return [store_run(store, i, run_results(i)) for i in range(RUNS)]
