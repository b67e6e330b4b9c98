"""The approx, any, contains and one_of argument matchers, alone and in tool assertions."""

from __future__ import annotations

from typing import Any

import pytest

from assay.metrics.tools import ExpectedTool, MatcherError, check_expected_tools, parse_matcher
from tests.metrics._helpers import call


def matches(spec: Any, value: Any) -> bool:
    return parse_matcher(spec).matches(value)


def test_approx_defaults_and_tolerances() -> None:
    assert matches({"approx": 0.3}, 0.1 + 0.2)  # default rel 1e-6
    assert not matches({"approx": 100}, 100.01)
    # |100.5 - 100| = 0.5 <= abs 0.5
    assert matches({"approx": 100, "abs": 0.5}, 100.5)
    # |101 - 100| = 1 <= rel 0.01 * 100 = 1
    assert matches({"approx": 100, "rel": 0.01}, 101)
    assert not matches({"approx": 100, "rel": 0.01}, 101.5)
    # with both, either suffices: 0.5 <= abs 1 although 0.5 > rel 0.001 * 100 = 0.1
    assert matches({"approx": 100, "rel": 0.001, "abs": 1}, 100.5)


def test_approx_reads_numeric_strings_not_bools() -> None:
    assert matches({"approx": 5120}, "5,120")
    assert matches({"approx": "5,120.0"}, 5120)
    assert matches({"approx": 0.14}, "14%")
    assert not matches({"approx": 1}, True)
    assert not matches({"approx": 1}, "one")
    assert not matches({"approx": 1}, None)


def test_any() -> None:
    matcher = parse_matcher({"any": True})
    values: list[Any] = [None, 0, "", [], {"a": 1}]
    assert all(matcher.matches(v) for v in values)
    assert matcher.as_json() == {"any": True}


def test_contains_mapping_is_a_subset_with_nested_matchers() -> None:
    spec = {"contains": {"city": {"fuzzy": "basel"}, "guests": {"approx": 2}}}
    assert matches(spec, {"city": "Basel", "guests": 2.0, "nights": 7})
    assert not matches(spec, {"city": "Basel"})  # guests missing
    assert not matches(spec, {"city": "Bern", "guests": 2})
    assert not matches(spec, ["city"])
    # literal nested values compare exactly; nest contains again for a deeper subset
    deep = {"contains": {"filters": {"contains": {"stars": {"one_of": [4, 5]}}}}}
    assert matches(deep, {"filters": {"stars": 5, "pool": True}, "page": 1})
    assert not matches(
        {"contains": {"filters": {"stars": 5}}}, {"filters": {"stars": 5, "pool": True}}
    )


def test_contains_list_needs_a_distinct_element_for_each() -> None:
    assert matches({"contains": ["a", {"regex": "b+"}]}, ["x", "bbb", "a"])
    assert not matches({"contains": ["a", "a"]}, ["a", "b"])  # one "a" cannot serve twice
    assert matches({"contains": ["a", "a"]}, ["a", "b", "a"])
    # the greedy pick would give "ab" to the regex and starve the literal; a matching does not
    assert matches({"contains": [{"regex": "a.*"}, "ab"]}, ["ab", "ax"])
    assert not matches({"contains": ["a"]}, "a")


def test_contains_string_is_a_substring() -> None:
    assert matches({"contains": "Basel"}, "Hotels in Basel, CH")
    assert not matches({"contains": "basel"}, "Hotels in Basel")
    assert not matches({"contains": "1"}, 123)


def test_one_of() -> None:
    spec = {"one_of": [8, "8", {"regex": "ID ?8"}]}
    assert matches(spec, 8) and matches(spec, "8") and matches(spec, "ID 8")
    assert not matches(spec, 9)
    assert 'one of 8, "8", regex' in parse_matcher(spec).describe()


@pytest.mark.parametrize(
    ("spec", "subpath", "message"),
    [
        ({"approx": "many"}, "approx", "expected a number"),
        ({"approx": 1, "rel": -1}, "rel", "expected a number >= 0"),
        ({"approx": 1, "tolerance": 1}, "tolerance", "unknown option for approx"),
        ({"any": False}, "any", "write any: true"),
        ({"contains": 3}, "contains", "expected a mapping, a list or a string"),
        ({"contains": {"city": {"regex": "("}}}, "contains.city.regex", "invalid regular"),
        ({"contains": [1, {"approx": "x"}]}, "contains[1].approx", "expected a number"),
        ({"one_of": []}, "one_of", "expected a non-empty list"),
        ({"one_of": [{"regex": "["}]}, "one_of[0].regex", "invalid regular"),
    ],
)
def test_bad_matchers_name_their_subpath(spec: Any, subpath: str, message: str) -> None:
    with pytest.raises(MatcherError) as exc:
        parse_matcher(spec)
    assert exc.value.subpath == subpath and message in str(exc.value)


def test_matchers_in_tool_assertions_with_parallel_calls() -> None:
    # two calls made in parallel within one turn, nested args
    calls = [
        call("search_hotels", location={"city": "Basel", "country": "CH"}, max_price="1,200"),
        call("get_weather", city="Basel", days=3),
    ]
    expected = (
        ExpectedTool(
            name="search_hotels",
            args={
                "location": parse_matcher({"contains": {"city": "Basel"}}),
                "max_price": parse_matcher({"approx": 1200, "rel": 0.01}),
            },
        ),
        ExpectedTool(
            name="weather",
            args={"days": parse_matcher({"one_of": [3, 5]}), "city": parse_matcher({"any": True})},
        ),
    )
    check = check_expected_tools(expected, calls)
    assert check.tools_matched is True and check.mismatches == []
    assert check.arg_match_details is not None
    assert [d.matched_call_index for d in check.arg_match_details] == [0, 1]
    assert check.arg_match_details[0].args_asserted == {
        "location": {"contains": {"city": "Basel"}},
        "max_price": {"approx": 1200, "rel": 0.01},
    }


def test_a_failed_matcher_explains_itself() -> None:
    expected = (ExpectedTool(name="book", args={"hotel_id": parse_matcher({"one_of": [8, 9]})}),)
    check = check_expected_tools(expected, [call("book_hotel", hotel_id=3)])
    assert check.mismatches == ["arg 'hotel_id' mismatch: expected one of 8, 9, got 3"]
