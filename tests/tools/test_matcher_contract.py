"""The multi-turn contract's matcher table (HoloDeck, specs/032-multi-turn-test-cases,
``tool-arg-matchers.md`` §7, the 23-row SC-006 acceptance matrix), row by row, through the
matchers a suite compiles (``parse_matcher``) and the per-turn tool check the runner uses;
then its None semantics (§5), count threshold (§6), missing and extra arguments, and the
mismatch reasons. Expected values are the contract's, not this code's."""

from __future__ import annotations

from typing import Any

import pytest

from assay.metrics.tools import ExpectedTool, check_expected_tools, parse_matcher
from assay.results import ToolInvocation


def expected(args: dict[str, Any], count: int = 1) -> ExpectedTool:
    return ExpectedTool(
        name="subtract", args={k: parse_matcher(v) for k, v in args.items()}, count=count
    )


def check(args: dict[str, Any], *calls: dict[str, Any], count: int = 1) -> Any:
    invocations = [ToolInvocation(name="subtract", args=c) for c in calls]
    return check_expected_tools([expected(args, count)], invocations)


# (row, asserted matcher for arg a, the actual value of a, passes)
MATRIX: list[tuple[int, Any, Any, bool]] = [
    (1, 206588, 206588, True),
    (2, 206588, 206588.0, True),  # int <-> float
    (3, 206588, 206000, False),
    (4, 206588.0, 206588, True),
    (5, {"fuzzy": "206588"}, "206,588", True),  # separator tolerance
    (6, {"fuzzy": "206588"}, "206 588", True),  # whitespace tolerance
    (7, {"fuzzy": "206588"}, 206588.0, True),
    (8, {"fuzzy": "206588"}, 205000, False),  # no distance tolerance
    (9, {"fuzzy": "14.14%"}, 0.1414, True),  # percent
    (10, {"fuzzy": "YES"}, "yes", True),  # case
    (11, {"fuzzy": "YES"}, " yes ", True),  # whitespace trim
    (12, {"regex": "^2009.*$"}, "2009 cash flow", True),  # anchored fullmatch
    (13, {"regex": "^2009.*$"}, "report 2009 cash flow", False),  # not anchored to start
    (14, {"regex": r"^181001(\.0+)?$"}, "181001.0", True),
    (15, {"regex": r"^181001(\.0+)?$"}, "181001.5", False),
    (18, True, True, True),  # bool
    (19, True, 1, False),  # bool != int
    (20, [1, 2], [1, 2], True),  # list eq
    (21, [1, 2], [1.0, 2.0], True),  # element numeric eq
    (22, {"mode": "fast"}, {"mode": "fast"}, True),  # dict eq
]


@pytest.mark.parametrize(("row", "matcher", "actual", "passes"), MATRIX)
def test_matrix_row(row: int, matcher: Any, actual: Any, passes: bool) -> None:
    result = check({"a": matcher}, {"a": actual})
    assert result.tools_matched is passes, f"row {row}"
    (detail,) = result.arg_match_details
    assert detail.matched_call_index == (0 if passes else -1)
    assert (detail.unmatched_reason is None) is passes


def test_row_16_missing_arg_fails_and_says_missing() -> None:
    result = check({"a": 206588}, {"b": 1})
    assert result.tools_matched is False
    (detail,) = result.arg_match_details
    assert detail.matched_call_index == -1
    assert detail.unmatched_reason == "arg 'a' missing"


def test_row_17_extra_args_are_ignored() -> None:
    result = check({"a": 206588}, {"a": 206588, "b": "x", "c": "y"})
    assert result.tools_matched is True
    (detail,) = result.arg_match_details
    assert (detail.matched_call_index, detail.unmatched_reason) == (0, None)


def test_row_23_any_call_wins_and_the_first_satisfying_one_is_reported() -> None:
    result = check({"a": {"fuzzy": "206588"}}, {"a": 99}, {"a": 206588.0})
    assert result.tools_matched is True
    (detail,) = result.arg_match_details
    assert (detail.matched_call_index, detail.unmatched_reason) == (1, None)


def test_none_semantics() -> None:
    assert parse_matcher(None).matches(None)  # literal None matches None only
    assert not parse_matcher(None).matches(0)
    assert not parse_matcher(0).matches(None)
    assert parse_matcher({"fuzzy": "none"}).matches(None)  # fuzzy compares "none"
    assert parse_matcher({"regex": "None"}).matches(None)  # regex compares str(None)
    assert not parse_matcher({"regex": "none"}).matches(None)  # ... case-sensitively


def test_count_threshold_counts_satisfying_calls_only() -> None:
    one_of_two = check({"a": {"fuzzy": "206588"}}, {"a": 206588}, {"a": 99}, count=2)
    assert one_of_two.tools_matched is False
    assert one_of_two.mismatches == ["expected at least 2 calls to 'subtract', found 1"]
    two = check({"a": {"fuzzy": "206588"}}, {"a": 206588}, {"a": 206588.0}, count=2)
    assert two.tools_matched is True


@pytest.mark.parametrize(
    ("matcher", "actual", "pattern"),
    [
        (206588, 205000, "206588"),
        ({"fuzzy": "206588"}, 205000, "206588"),
        ({"regex": "^abc$"}, "xyz", "^abc$"),
    ],
)
def test_a_mismatch_reason_quotes_the_expected_pattern(
    matcher: Any, actual: Any, pattern: str
) -> None:
    (detail,) = check({"a": matcher}, {"a": actual}).arg_match_details
    assert detail.unmatched_reason is not None
    assert detail.unmatched_reason.startswith("arg 'a' mismatch: expected ")
    assert pattern in detail.unmatched_reason


@pytest.mark.parametrize(
    ("actual", "ok"),
    [
        ("206 588", True),  # spaces are removed before reading a number
        ("206\u00a0588", True),  # a no-break space is whitespace, so it is too
        ("206\u202f588", True),  # a narrow no-break space is a separator
        (206588.0001, False),  # no distance tolerance beyond float rounding
        ("206588.0001", False),
        ("2065 88", True),  # any grouping: every space goes
    ],
)
def test_fuzzy_numbers_beyond_the_table(actual: Any, ok: bool) -> None:
    assert parse_matcher({"fuzzy": "206588"}).matches(actual) is ok


# (pattern, actual, HoloDeck's match_fuzzy), each worked out by hand from HoloDeck's
# _normalize (strip, lower(), drop [,_\u202f] anywhere, runs of whitespace -> " "),
# _try_parse_number (a trailing "%" is /100, every " " removed, then float()) and
# match_fuzzy (both numbers: math.isclose with abs_tol 1e-9; else the texts are equal)
FUZZY_VECTORS: list[tuple[str, Any, bool]] = [
    ("Paris, France", "Paris France", True),  # "paris france" both
    ("$5,120", "$5120", True),  # "$5120" both, not a number
    ("5120 USD", "5,120 usd", True),  # "5120 usd" both
    ("hello_world", "helloworld", True),  # "_" dropped in text too
    ("12,34,567", 1234567, True),  # any grouping of digits
    ("1,5", 15, True),  # a comma is never a decimal point
    ("2 06588", 206588, True),  # "206588" once spaces are removed
    ("1000", "10_00", True),
    ("nan", "nan", False),  # both numbers, and nan is close to nothing
    ("inf", "Infinity", True),  # float("infinity") is inf; isclose(inf, inf)
    ("Straße", "STRASSE", False),  # lower(), not casefold(): "straße" != "strasse"
    ("-5", "\u22125", False),  # float() refuses U+2212; "-5" != "\u22125"
    ("New York City", "new york\u202fcity", False),  # "new yorkcity"
    ("abc", "abc ,", False),  # stripped before "," is dropped: "abc " != "abc"
    ("50 %", 0.5, True),  # "50 %": the "%" and the space go, 50 / 100
    ("0", "0.0000000001", True),  # within abs_tol 1e-9
    ("0", "0.000000002", False),
    ("1e3", 1000, True),  # float() syntax
    ("True", True, True),  # str(True).lower()
]


@pytest.mark.parametrize(("pattern", "actual", "ok"), FUZZY_VECTORS)
def test_fuzzy_follows_holodecks_match_fuzzy(pattern: str, actual: Any, ok: bool) -> None:
    assert parse_matcher({"fuzzy": pattern}).matches(actual) is ok
    result = check({"a": {"fuzzy": pattern}}, {"a": actual})
    assert result.tools_matched is ok


@pytest.mark.parametrize(
    ("calls", "reason"),
    [
        # the second call is reported, though each call misses by one argument
        (
            [{"a": 1, "b": 2}, {"a": 206588, "b": 3}],
            "arg 'b' mismatch: expected 2, got 3",
        ),
        (
            [{"a": 206588, "b": 3}, {"a": 1, "b": 2}],
            "arg 'a' mismatch: expected 206588, got 1",
        ),
        # the last call is reported even when an earlier one came closer
        (
            [{"a": 206588, "b": 3}, {"b": 9}],
            "arg 'a' missing",
        ),
    ],
)
def test_several_mismatching_calls_are_explained_by_the_last(
    calls: list[dict[str, Any]], reason: str
) -> None:
    # HoloDeck's evaluate_expected_tools keeps the reason of the last candidate that failed
    result = check({"a": 206588, "b": 2}, *calls)
    assert result.tools_matched is False
    (detail,) = result.arg_match_details
    assert (detail.matched_call_index, detail.unmatched_reason) == (-1, reason)
    assert result.mismatches == [reason]
