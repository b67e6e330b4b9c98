"""Argument matchers: literal, fuzzy, regex — including the contract's own examples."""

from __future__ import annotations

import pytest

from assay.metrics.tools import MatcherError, parse_matcher


@pytest.mark.parametrize(
    ("actual", "ok"),
    [
        ("206,588", True),
        (206588.0, True),
        (206588, True),
        (" 206588 ", True),
        (206000, False),
        ("206,000", False),
        ("two hundred", False),
    ],
)
def test_fuzzy_206588_contract_example(actual: object, ok: bool) -> None:
    assert parse_matcher({"fuzzy": "206588"}).matches(actual) is ok


@pytest.mark.parametrize(
    ("actual", "ok"),
    [(0.1414, True), ("0.1414", True), ("14.14%", True), (14.14, False), (0.1415, False)],
)
def test_fuzzy_percent_means_hundredths(actual: object, ok: bool) -> None:
    assert parse_matcher({"fuzzy": "14.14%"}).matches(actual) is ok


def test_fuzzy_text_ignores_case_whitespace_and_separators() -> None:
    m = parse_matcher({"fuzzy": "New  York City"})
    assert m.matches("  NEW YORK CITY ")  # trim, lowercase, collapse runs of whitespace
    assert m.matches("new york\u00a0city")  # a no-break space is whitespace too
    assert m.matches("new\t york\ncity")
    # HoloDeck drops ",", "_" and the narrow no-break space anywhere, in text as in numbers
    assert not m.matches("new york\u202fcity")  # "new yorkcity"
    assert not m.matches("new york_city")
    assert parse_matcher({"fuzzy": "paris france"}).matches("Paris, France")
    assert parse_matcher({"fuzzy": "5120"}).matches("5\u202f120")


def test_regex_is_a_full_match_of_str_value() -> None:
    m = parse_matcher({"regex": "4480(\\.0+)?"})
    assert m.matches(4480) and m.matches(4480.0) and m.matches("4480.00")
    assert not m.matches("14480") and not m.matches("4480.5")
    assert parse_matcher({"regex": "True"}).matches(True)


def test_literal_numbers_bools_and_structures() -> None:
    assert parse_matcher(206588).matches(206588.0)  # int and float equal
    assert not parse_matcher(206588).matches("206588")  # no string coercion
    assert not parse_matcher(True).matches(1)  # bools strict
    assert not parse_matcher(1).matches(True)
    assert parse_matcher(False).matches(False)
    assert parse_matcher([1, {"a": 2}]).matches([1.0, {"a": 2.0}])
    assert not parse_matcher([1, 2]).matches([2, 1])
    assert not parse_matcher({"a": 1}).matches({"a": 1, "b": 2})  # nested dicts: structural
    assert parse_matcher({"city": "Basel"}).matches({"city": "Basel"})  # not a matcher kind


def test_bad_matchers_name_the_sub_path() -> None:
    with pytest.raises(MatcherError) as bad_regex:
        parse_matcher({"regex": "(("})
    assert bad_regex.value.subpath == "regex"
    with pytest.raises(MatcherError) as two_kinds:
        parse_matcher({"regex": "a", "fuzzy": "b"})
    assert "one matcher per argument" in str(two_kinds.value)
    with pytest.raises(MatcherError):
        parse_matcher({"fuzzy": ["a"]})
