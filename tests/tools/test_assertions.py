"""Per-turn tool assertions: tools_matched, arg_match_details and their reasons."""

from __future__ import annotations

from typing import Any

from assay.metrics.tools import ExpectedTool, check_expected_tools, parse_matcher
from assay.results import ToolInvocation


def call(name: str, **args: Any) -> ToolInvocation:
    return ToolInvocation(name=name, args=args)


def tool(name: str, count: int = 1, **args: Any) -> ExpectedTool:
    return ExpectedTool(
        name=name,
        args={k: parse_matcher(v) for k, v in args.items()} if args else None,
        count=count,
    )


def test_no_expected_tools_means_null() -> None:
    check = check_expected_tools(None, [call("x")])
    assert (check.tools_matched, check.arg_match_details) == (None, None)


def test_name_is_a_case_sensitive_substring() -> None:
    assert check_expected_tools([tool("lookup")], [call("lookup_revenue")]).tools_matched
    assert not check_expected_tools([tool("Lookup")], [call("lookup_revenue")]).tools_matched


def test_count_is_a_lower_bound_within_the_turn() -> None:
    calls = [call("search"), call("search"), call("book")]
    assert check_expected_tools([tool("search", count=2)], calls).tools_matched
    check = check_expected_tools([tool("search", count=3)], calls)
    assert not check.tools_matched
    assert check.mismatches == ["expected at least 3 calls to 'search', found 2"]


def test_matched_call_index_is_the_first_satisfying_call() -> None:
    calls = [call("subtract", a=1, b=2), call("lookup"), call("subtract", a=206588, b=181001)]
    check = check_expected_tools([tool("subtract", a=206588, b={"fuzzy": "181,001"})], calls)
    assert check.tools_matched is True
    assert check.arg_match_details is not None
    detail = check.arg_match_details[0]
    assert detail.matched_call_index == 2
    assert detail.unmatched_reason is None
    assert detail.args_asserted == {"a": 206588, "b": {"fuzzy": "181,001"}}


def test_one_call_must_satisfy_all_matchers() -> None:
    # a matches in call 0, b in call 1: no single call satisfies both
    calls = [call("subtract", a=5, b=0), call("subtract", a=0, b=7)]
    check = check_expected_tools([tool("subtract", a=5, b=7)], calls)
    assert check.tools_matched is False
    assert check.arg_match_details is not None
    assert check.arg_match_details[0].matched_call_index == -1


def test_reasons_read_as_the_contract_shows() -> None:
    none = check_expected_tools([tool("subtract", a=1)], [call("add", a=1)])
    assert none.arg_match_details is not None
    assert none.arg_match_details[0].unmatched_reason == "no call to 'subtract' found"
    missing = check_expected_tools([tool("subtract", a=1)], [call("subtract", b=1)])
    assert missing.arg_match_details is not None
    assert missing.arg_match_details[0].unmatched_reason == "arg 'a' missing"
    wrong = check_expected_tools([tool("subtract", a=206588)], [call("subtract", a=180000)])
    assert wrong.arg_match_details is not None
    assert wrong.arg_match_details[0].unmatched_reason == (
        "arg 'a' mismatch: expected 206588, got 180000"
    )


def test_only_asserted_keys_are_checked() -> None:
    calls = [call("search_hotels", location="Basel", checkin="2024-05-01", extra=[1])]
    assert check_expected_tools([tool("search_hotels", location="Basel")], calls).tools_matched


def test_name_only_tools_have_no_arg_match_details() -> None:
    check = check_expected_tools([tool("lookup"), tool("subtract", a=1)], [call("subtract", a=1)])
    assert check.tools_matched is False
    assert check.arg_match_details is not None and len(check.arg_match_details) == 1
    assert check.mismatches == ["no call to 'lookup' found"]


def test_must_not_call_and_exact_and_max_counts() -> None:
    calls = [call("delete"), call("delete")]
    assert not check_expected_tools([ExpectedTool("delete", count=0)], calls).tools_matched
    assert check_expected_tools([ExpectedTool("refund", count=0)], calls).tools_matched
    assert check_expected_tools([ExpectedTool("delete", count_exact=2)], calls).tools_matched
    assert not check_expected_tools([ExpectedTool("delete", count_exact=1)], calls).tools_matched
    assert not check_expected_tools([ExpectedTool("delete", max_count=1)], calls).tools_matched


def test_an_explicit_empty_list_expects_nothing_and_holds() -> None:
    """HoloDeck's executor tests (test_empty_expected_tools_with_calls_passes): an empty
    list of expected tools is met whatever the agent calls."""
    assert check_expected_tools((), []).tools_matched is True
    check = check_expected_tools((), [call("search"), call("book")])
    assert check.tools_matched is True
    assert check.mismatches == []
