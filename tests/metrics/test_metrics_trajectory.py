"""Trajectory metrics over a test's calls in order, and forbidden_tools on a turn."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from assay.metrics import MetricConfigError, build_metric
from assay.metrics.tools import ExpectedTool, parse_matcher
from assay.metrics.tools._alignment import in_order, longest_common, max_matching
from assay.results.models import MetricResult, ToolInvocation
from tests.metrics._helpers import call, context, conversation, score_conversation

SEARCH = ExpectedTool(name="search")
BOOK_8 = ExpectedTool(name="book", args={"hotel_id": parse_matcher({"one_of": [8, "8"]})})

ALL = (
    "trajectory_exact_match",
    "trajectory_in_order_match",
    "trajectory_any_order_match",
    "trajectory_precision",
    "trajectory_recall",
    "tool_selection_jaccard",
    "trajectory_lcs_ratio",
)


def scores(
    conv_calls: list[list[ToolInvocation]], expected: tuple[ExpectedTool, ...]
) -> dict[str, float]:
    conv = conversation(*conv_calls, expected=expected)
    out = {}
    for name in ALL:
        result = score_conversation(name, conv)
        assert result.score is not None, result.error
        assert (result.kind, result.dimension) == ("tool", "tool_use")
        out[name] = result.score
    return out


def test_an_extra_call_between_the_expected_ones() -> None:
    # turn 1: search_hotels; turn 2: get_weather, book_hotel(8). Expected: search, book(8).
    got = scores(
        [
            [call("search_hotels", location="Basel")],
            [call("get_weather"), call("book_hotel", hotel_id=8)],
        ],
        (SEARCH, BOOK_8),
    )
    assert got == pytest.approx(
        {
            "trajectory_exact_match": 0.0,  # 3 calls for 2 steps
            "trajectory_in_order_match": 1.0,  # search (call 0) then book (call 2)
            "trajectory_any_order_match": 1.0,
            "trajectory_precision": 2 / 3,  # 2 of 3 calls match a step
            "trajectory_recall": 1.0,  # 2 of 2 steps matched
            # names {book, search} vs {book_hotel, get_weather, search_hotels}: 2 / (2 + 3 - 2)
            "tool_selection_jaccard": 2 / 3,
            "trajectory_lcs_ratio": 2 / 3,  # LCS 2 / max(2, 3)
        }
    )


def test_parallel_calls_in_one_turn_in_reverse_order() -> None:
    got = scores([[call("book_hotel", hotel_id="8"), call("search_hotels")]], (SEARCH, BOOK_8))
    assert got == pytest.approx(
        {
            "trajectory_exact_match": 0.0,
            "trajectory_in_order_match": 0.0,  # book came before search
            "trajectory_any_order_match": 1.0,
            "trajectory_precision": 1.0,
            "trajectory_recall": 1.0,
            "tool_selection_jaccard": 1.0,
            "trajectory_lcs_ratio": 0.5,  # LCS 1 / max(2, 2)
        }
    )


def test_exact_trajectory() -> None:
    got = scores([[call("search_hotels")], [call("book_hotel", hotel_id=8)]], (SEARCH, BOOK_8))
    assert set(got.values()) == {1.0}


def test_an_argument_mismatch_is_explained() -> None:
    conv = conversation(
        [call("search_hotels"), call("book_hotel", hotel_id=3)], expected=(SEARCH, BOOK_8)
    )
    recall = score_conversation("trajectory_recall", conv)
    # search matched, book(8) not: 1 / 2
    assert recall.score == 0.5
    assert recall.reasoning == (
        "arg 'hotel_id' mismatch: expected one of 8, \"8\", got 3; 1 call(s) match no expected step"
    )
    exact = score_conversation("trajectory_exact_match", conv)
    # the right tool with another argument: the reason says which argument, not the name
    assert exact.reasoning == (
        "call 1 ('book_hotel'): arg 'hotel_id' mismatch: expected one of 8, \"8\", got 3"
    )
    in_order_result = score_conversation("trajectory_in_order_match", conv)
    assert in_order_result.reasoning == "step 1 ('book') has no matching call after step 0"
    # jaccard ignores arguments: {book, search} vs {book_hotel, search_hotels}
    assert score_conversation("tool_selection_jaccard", conv).score == 1.0


def test_count_expands_into_repeated_steps() -> None:
    twice = (ExpectedTool(name="search", count=2),)
    conv = conversation([call("search_a")], [call("search_b")], expected=twice)
    assert score_conversation("trajectory_exact_match", conv).score == 1.0
    once = conversation([call("search_a")], expected=twice)
    assert score_conversation("trajectory_recall", once).score == 0.5  # 1 of 2 steps


def test_a_forbidden_step_zeroes_every_metric() -> None:
    expected = (SEARCH, ExpectedTool(name="delete", count=0))
    conv = conversation([call("search_hotels"), call("delete_booking")], expected=expected)
    for name in ALL:
        result = score_conversation(name, conv)
        assert result.score == 0.0
        assert result.reasoning == "'delete' must not be called, found 1 call(s)"
    clean = conversation([call("search_hotels")], expected=expected)
    assert score_conversation("trajectory_exact_match", clean).score == 1.0


def test_empty_trajectories() -> None:
    assert set(scores([[]], ()).values()) == {1.0}  # nothing expected, nothing called
    assert scores([[call("x")]], ()) == {
        "trajectory_exact_match": 0.0,
        "trajectory_in_order_match": 1.0,  # the empty sequence is in any sequence
        "trajectory_any_order_match": 1.0,
        "trajectory_precision": 0.0,  # 0 of 1 calls expected
        "trajectory_recall": 1.0,
        "tool_selection_jaccard": 0.0,  # 0 / (0 + 1 - 0)
        "trajectory_lcs_ratio": 0.0,  # 0 / max(0, 1)
    }
    assert set(scores([[]], (SEARCH,)).values()) == {0.0}  # expected, never called


def test_unicode_tool_names() -> None:
    got = scores([[call("réserver_hôtel")]], (ExpectedTool(name="hôtel"),))
    assert set(got.values()) == {1.0}


def test_no_expected_trajectory_is_not_run() -> None:
    metric = build_metric("trajectory_recall", {})
    reason = metric.missing_conversation_input(conversation([call("x")]))
    assert reason == "no expected_trajectory on this test"


def test_threshold_on_a_graded_trajectory_metric() -> None:
    conv = conversation([call("search"), call("other")], expected=(SEARCH,))
    result = score_conversation("trajectory_precision", conv, threshold=0.5)
    assert (result.score, result.passed) == (0.5, True)


def test_alignment_helpers() -> None:
    eq = [[True, False, True], [False, True, False]]
    assert max_matching(2, 3, lambda i, j: eq[i][j]) == {0: 0, 1: 1}
    # step 0 fits calls 0 and 1, step 1 only call 0: a matching gives call 1 to step 0
    tight = [[True, True], [True, False]]
    assert max_matching(2, 2, lambda i, j: tight[i][j]) == {0: 1, 1: 0}
    assert in_order(2, 3, lambda i, j: (i, j) in {(0, 1), (1, 2)}) == [1, 2]
    assert in_order(2, 3, lambda i, j: (i, j) in {(0, 2), (1, 1)}) is None
    assert longest_common(3, 3, lambda i, j: "abc"[i] == "acb"[j]) in (
        [(0, 0), (1, 2)],
        [(0, 0), (2, 1)],
    )


def run_turn(calls: list[ToolInvocation], forbidden: Sequence[object]) -> MetricResult:
    metric = build_metric("forbidden_tools", {"tools": forbidden})
    return asyncio.run(metric.evaluate(context("ok", tools=calls)))


def test_forbidden_tools() -> None:
    tools = [call("search_hotels"), call("refund_ticket", amount=50)]
    forbidden = ["delete_account", {"name": "refund", "args": {"amount": {"approx": 50}}}]
    result = run_turn(tools, forbidden)
    assert (result.score, result.kind, result.dimension) == (0.0, "tool", "tool_use")
    assert result.details == {"called": ["refund_ticket"]}
    assert result.reasoning == "'refund' must not be called, found 1"
    small_refunds_ok = ["delete_account", {"name": "refund", "args": {"amount": {"approx": 500}}}]
    assert run_turn(tools, small_refunds_ok).score == 1.0
    assert run_turn([], ["delete_account"]).score == 1.0


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ([{"name": "refund", "args": {"amount": {"approx": "x"}}}], "tools[0].args.amount.approx"),
        (["ok", {"name": "x", "count": 2}], "tools[1].count: unknown key"),
        ([{"args": {}}], "tools[0].name: expected a tool name"),
    ],
)
def test_forbidden_tools_bad_options(tools: list[object], message: str) -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("forbidden_tools", {"tools": tools})
    field, text = exc.value.problems[0]
    assert field == "tools" and message in text
