"""equality, contains, not_contains, regex."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.cases import parse_suite
from assay.errors import ConfigError
from assay.metrics import MetricConfigError, build_metric
from tests.metrics._helpers import context, score


def test_equality_normalisation() -> None:
    assert score("equality", "  Paris ", "Paris").score == 1.0
    assert score("equality", "paris", "Paris").score == 0.0
    assert score("equality", "paris", "Paris", case_insensitive=True).score == 1.0
    assert score("equality", "Paris.", "Paris", strip_punctuation=True).score == 1.0


def test_contains_defaults_to_the_ground_truth() -> None:
    assert score("contains", "The capital is Paris.", "Paris").score == 1.0
    assert score("contains", "The capital is paris.", "Paris").score == 0.0
    assert score("contains", "The capital is paris.", "Paris", case_insensitive=True).score == 1.0


def test_contains_without_value_or_ground_truth_is_not_run() -> None:
    metric = build_metric("contains", {})
    assert metric.missing_input(context("anything", None)) == (
        "no value given and no ground truth (Answer) for this turn"
    )
    assert build_metric("contains", {"value": "x"}).missing_input(context("x")) is None


def test_contains_all_scores_the_fraction_found() -> None:
    result = score("contains", "alpha beta", values=["alpha", "beta", "gamma"])
    assert result.score == pytest.approx(2 / 3)  # alpha and beta of three
    assert result.passed is False
    assert result.details == {"missing": ["gamma"]}
    assert result.reasoning == "the response does not contain 'gamma'"


def test_contains_any() -> None:
    assert score("contains", "only gamma", values=["alpha", "gamma"], mode="any").score == 1.0
    assert score("contains", "delta", values=["alpha", "gamma"], mode="any").score == 0.0


def test_contains_unicode_normalisation() -> None:
    # composed "é" (U+00E9) in the response, "e" + combining acute (U+0301) in the value
    assert score("contains", "Un café, s'il vous plaît", value="cafe\u0301").score == 1.0
    assert score("contains", "STRASSE", value="straße", case_insensitive=True).score == 1.0


def test_contains_empty_response() -> None:
    assert score("contains", "", "Paris").score == 0.0


def test_not_contains_any_scores_the_fraction_absent() -> None:
    result = score("not_contains", "Sorry, I cannot do that", values=["sorry", "cannot", "won't"])
    # "cannot" present (case-sensitive: "Sorry" is not "sorry"): 1 - 1/3
    assert result.score == pytest.approx(2 / 3)
    assert result.passed is False
    assert result.reasoning == "the response contains 'cannot'"
    clean = score("not_contains", "Happy to help", values=["sorry", "cannot"])
    assert clean.score == 1.0 and clean.passed is True


def test_not_contains_all_fails_only_when_every_value_appears() -> None:
    both = score("not_contains", "a secret code", values=["secret", "code"], mode="all")
    one = score("not_contains", "a secret", values=["secret", "code"], mode="all")
    assert (both.score, one.score) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"value": "a", "values": ["b"]}, ""),
        ({"values": []}, ""),
        ({"value": ""}, ""),
        ({"mode": "most"}, "mode"),
        ({"valeu": "x"}, "valeu"),
    ],
)
def test_contains_bad_options(options: dict[str, object], field: str) -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("contains", dict(options))
    assert exc.value.problems[0][0] == field


def test_regex_search_is_the_default() -> None:
    result = score("regex", "Flight LX0112 at 12:09", pattern=r"[A-Z]{2}\d{3,4}")
    assert result.score == 1.0 and result.details == {"matched": "LX0112"}


def test_regex_full_match_ignores_surrounding_whitespace() -> None:
    assert score("regex", "  2021 \n", pattern=r"\d{4}", match="full").score == 1.0
    partial = score("regex", "in 2021", pattern=r"\d{4}", match="full")
    assert partial.score == 0.0
    assert partial.reasoning == "'\\\\d{4}' does not match the whole of 'in 2021'"


def test_regex_flags() -> None:
    assert score("regex", "HELLO", pattern="hello").score == 0.0
    assert score("regex", "HELLO", pattern="hello", case_insensitive=True).score == 1.0
    assert score("regex", "a\nb", pattern="^b$").score == 0.0
    assert score("regex", "a\nb", pattern="^b$", multiline=True).score == 1.0
    assert score("regex", "a\nb", pattern="a.b", dotall=True).score == 1.0


def test_regex_unicode_and_empty() -> None:
    assert score("regex", "Zürich", pattern=r"^\w+$").score == 1.0
    assert score("regex", "", pattern=r"^$").score == 1.0
    assert score("regex", "", pattern=r".").score == 0.0


def test_regex_invalid_pattern_is_a_load_time_error() -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("regex", {"pattern": "(unclosed"})
    field, message = exc.value.problems[0]
    assert field == "pattern" and "invalid regular expression" in message


@pytest.mark.parametrize("pattern", ["", ".*", "^", "$", "(?i)", r"\s*", "(Paris)?", "x|"])
def test_a_regex_found_in_every_response_is_a_load_time_error(pattern: str) -> None:
    # it passed every reply, even under --strict: a green result that tested nothing
    with pytest.raises(MetricConfigError) as exc:
        build_metric("regex", {"pattern": pattern})
    ((field, message),) = exc.value.problems
    assert field == "pattern"
    if pattern:
        assert message == (
            f"{pattern!r} matches an empty string in any response, so it is found in every one "
            "and checks nothing: make it need some text (.+ rather than .*), or match the whole "
            f"response (match: full) (got {pattern!r})"
        )
    else:
        assert message.startswith("an empty pattern is found in every response")


@pytest.mark.parametrize(
    ("pattern", "match"),
    [
        ("^$", "search"),  # only an empty reply
        (r"^\s*$", "search"),
        (r"\B", "search"),
        (r"^[^0-9]*$", "search"),  # no digit in it
        ("^(?!ERROR)", "search"),  # a lookahead: it reads the text after its empty match
        ("", "full"),  # an empty reply
        (".*", "full"),  # one line
    ],
)
def test_a_regex_that_can_fail_is_accepted(pattern: str, match: str) -> None:
    build_metric("regex", {"pattern": pattern, "match": match})


def test_a_regex_refused_in_a_suite_names_its_field(tmp_path: Path) -> None:
    raw = {
        "name": "s",
        "target": {"python": "m:f"},
        "tests": [{"name": "t", "input": "q", "metrics": [{"metric": "regex", "pattern": ""}]}],
    }
    with pytest.raises(ConfigError) as exc:
        parse_suite(raw, "suite.yaml")
    assert [str(p) for p in exc.value.problems] == [
        "suite.yaml: tests[0].metrics[0].pattern: an empty pattern is found in every response; "
        "give the text the response must match (got '') (test 't')"
    ]
