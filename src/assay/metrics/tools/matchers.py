"""Argument matchers for expected tool calls.

A matcher is written in YAML as a literal, or as a one-key mapping naming its kind:
``{fuzzy: "5,120"}``, ``{regex: "4480(\\.0+)?"}``, ``{literal: {fuzzy: 1}}`` (a mapping
compared as it is). The semantics of literal, fuzzy and regex follow the multi-turn
contract's matcher table (HoloDeck's ``tool-arg-matchers.md``). ``parse_matcher`` compiles one
at load time and raises ``MatcherError`` with the sub-path of the bad part.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from assay.metrics._numbers import drop_fuzzy_separators, read_fuzzy_number

# how far apart two numbers may be and still be equal for ``fuzzy``: float rounding only
# (14.14% is 0.14140000000000003), never a distance (206588.0001 is not 206588)
FLOAT_TOLERANCE = 1e-9
_WHITESPACE = re.compile(r"\s+")


class MatcherError(ValueError):
    def __init__(self, subpath: str, message: str) -> None:
        self.subpath = subpath
        super().__init__(message)


class Matcher(Protocol):
    def matches(self, value: Any) -> bool: ...

    def describe(self) -> str:
        """How the expectation reads in a mismatch message."""
        ...

    def as_json(self) -> Any:
        """The matcher as the user wrote it, for ``args_asserted``."""
        ...


def show(value: Any) -> str:
    """A value as it reads in a message: JSON, so strings are quoted and numbers are not."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


def literal_equal(expected: Any, actual: Any) -> bool:
    """Structural equality where 1 == 1.0 but True != 1."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return expected == actual
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and expected.keys() == actual.keys()
            and all(literal_equal(v, actual[k]) for k, v in expected.items())
        )
    if isinstance(expected, list | tuple):
        return (
            isinstance(actual, list | tuple)
            and len(expected) == len(actual)
            and all(literal_equal(e, a) for e, a in zip(expected, actual, strict=True))
        )
    return bool(expected == actual)


def fuzzy_text(value: Any) -> str:
    """``str(value)`` as HoloDeck's fuzzy matcher normalises it (``_normalize``), step by step:
    trimmed, lowercased (not casefolded: "Straße" is not "STRASSE"), without ``,``, ``_`` and
    the narrow no-break space anywhere, then each run of whitespace one space (so a space
    left by a dropped separator at an end stays: "abc ," reads "abc ")."""
    text = drop_fuzzy_separators(str(value).strip().lower())
    return _WHITESPACE.sub(" ", text)


def fuzzy_equal(expected: Any, actual: Any) -> bool:
    """HoloDeck's fuzzy match (``match_fuzzy``): when both normalised texts read as numbers
    (``read_fuzzy_number``), the numbers are equal up to float rounding, with no distance
    tolerance (``nan`` equals nothing, ``inf`` equals ``infinity``); else the normalised
    texts are equal. ``None`` reads as ``"none"``."""
    left, right = fuzzy_text(expected), fuzzy_text(actual)
    a, b = read_fuzzy_number(left), read_fuzzy_number(right)
    if a is not None and b is not None:
        return math.isclose(a, b, rel_tol=0.0, abs_tol=FLOAT_TOLERANCE)
    return left == right


@dataclass(frozen=True)
class LiteralMatcher:
    expected: Any

    def matches(self, value: Any) -> bool:
        return literal_equal(self.expected, value)

    def describe(self) -> str:
        return show(self.expected)

    def as_json(self) -> Any:
        return self.expected


@dataclass(frozen=True)
class FuzzyMatcher:
    expected: Any

    def matches(self, value: Any) -> bool:
        return fuzzy_equal(self.expected, value)

    def describe(self) -> str:
        return f"fuzzy {show(self.expected)}"

    def as_json(self) -> Any:
        return {"fuzzy": self.expected}


@dataclass(frozen=True)
class RegexMatcher:
    pattern: re.Pattern[str]

    def matches(self, value: Any) -> bool:
        return self.pattern.fullmatch(str(value)) is not None

    def describe(self) -> str:
        return f"regex {show(self.pattern.pattern)}"

    def as_json(self) -> Any:
        return {"regex": self.pattern.pattern}


def _literal(spec: dict[str, Any]) -> Matcher:
    return LiteralMatcher(spec["literal"])


def _fuzzy(spec: dict[str, Any]) -> Matcher:
    value = spec["fuzzy"]
    if not isinstance(value, str | int | float) or isinstance(value, bool):
        raise MatcherError("fuzzy", f"expected a string or a number, got {show(value)}")
    return FuzzyMatcher(value)


def _regex(spec: dict[str, Any]) -> Matcher:
    pattern = spec["regex"]
    if not isinstance(pattern, str):
        raise MatcherError("regex", f"expected a pattern string, got {show(pattern)}")
    try:
        return RegexMatcher(re.compile(pattern))
    except re.error as exc:
        raise MatcherError("regex", f"invalid regular expression {pattern!r}: {exc}") from None


MatcherFactory = Callable[[dict[str, Any]], Matcher]

# kind -> (factory, the keys it accepts besides its own)
MATCHER_KINDS: dict[str, tuple[MatcherFactory, frozenset[str]]] = {
    "literal": (_literal, frozenset()),
    "fuzzy": (_fuzzy, frozenset()),
    "regex": (_regex, frozenset()),
}


def register_matcher(kind: str, factory: MatcherFactory, extra_keys: frozenset[str]) -> None:
    MATCHER_KINDS[kind] = (factory, extra_keys)


def parse_matcher(raw: Any) -> Matcher:
    """Compile a matcher spec; a mapping not naming a matcher kind is a literal, unless one
    of its keys looks like a misspelt kind (``{fuzy: x}``), which is refused."""
    if isinstance(raw, dict):
        kinds = [k for k in raw if k in MATCHER_KINDS]
        if len(kinds) > 1:
            raise MatcherError("", f"one matcher per argument, got {', '.join(kinds)}")
        if kinds:
            factory, extra = MATCHER_KINDS[kinds[0]]
            unknown = sorted(set(raw) - {kinds[0]} - extra)
            if unknown:
                allowed = ", ".join(sorted(extra)) or "none"
                raise MatcherError(
                    unknown[0], f"unknown option for {kinds[0]} (allowed: {allowed})"
                )
            return factory(raw)
        _refuse_misspelt_kind(raw)
    return LiteralMatcher(raw)


def _refuse_misspelt_kind(raw: dict[Any, Any]) -> None:
    """A mapping shaped like a matcher whose kind is misspelt would otherwise be compared
    as a literal mapping, and fail every call for a reason the user cannot see."""
    for key in raw:
        spelt = str(key).casefold().replace("-", "_")
        hint = difflib.get_close_matches(spelt, MATCHER_KINDS, n=1, cutoff=0.75)
        if hint and set(raw) - {key} <= MATCHER_KINDS[hint[0]][1]:
            raise MatcherError(
                str(key),
                f"unknown matcher {str(key)!r}; did you mean {hint[0]!r}? (to compare with "
                f"this mapping as it is, write {{literal: ...}} around it)",
            )
