"""The ``-k`` parser on its own: pytest's precedence (not > and > or), parentheses,
quotes, case, and where an unreadable expression goes wrong. Each expected set is worked
out by hand from the four names."""

from __future__ import annotations

import pytest

from assay.runner.keywords import KeywordError, keyword_matcher

NAMES = ["alpha", "beta", "alpha-beta", "Gamma ray"]


def picked(expression: str) -> list[str]:
    matches = keyword_matcher(expression)
    return [name for name in NAMES if matches(name.casefold())]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("", NAMES),  # as pytest: an empty expression keeps everything
        ("ALPHA", ["alpha", "alpha-beta"]),
        ("alpha or beta and gamma", ["alpha", "alpha-beta"]),  # or (beta and gamma)
        ("(alpha or beta) and not gamma", ["alpha", "beta", "alpha-beta"]),
        ("not alpha and beta", ["beta"]),  # (not alpha) and beta
        ("not (alpha and beta)", ["alpha", "beta", "Gamma ray"]),
        ("not not ray", ["Gamma ray"]),
        ('"a r"', ["Gamma ray"]),  # a quoted name keeps its space
        ("'-' or ray", ["alpha-beta", "Gamma ray"]),
        ("((beta))", ["beta", "alpha-beta"]),
        ("AND", []),  # the operators are lower case; "AND" is a word
    ],
)
def test_precedence_and_words(expression: str, expected: list[str]) -> None:
    assert picked(expression) == expected


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("alpha or", "expected a name, 'not' or '(' at the end (column 9)"),
        ("()", "expected a name, 'not' or '(' at column 2, got ')'"),
        ("alpha)", "expected 'and', 'or' or the end at column 6, got ')'"),
        ("not", "expected a name, 'not' or '(' at the end (column 4)"),
        ("a and 'b", "an unclosed quote at column 7"),
    ],
)
def test_unreadable_expressions_say_where(expression: str, message: str) -> None:
    with pytest.raises(KeywordError) as raised:
        keyword_matcher(expression)
    assert str(raised.value) == message


def test_python_is_words_or_an_error_never_run() -> None:
    with pytest.raises(KeywordError, match="at column 11, got '\\('"):
        keyword_matcher("__import__('os').system('false')")
    assert keyword_matcher("__import__")("x__import__y")  # a plain substring
    assert not keyword_matcher("True or 1")("alpha")  # words, not Python values
