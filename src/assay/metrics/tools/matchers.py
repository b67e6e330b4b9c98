"""Argument matchers for expected tool calls.

A matcher is written in YAML (or a dataset cell) as a literal, or as a one-key mapping naming
its kind: ``{fuzzy: "5,120"}``, ``{regex: "4480(\\.0+)?"}``. ``parse_matcher`` compiles one
at load time and raises ``MatcherError`` with the sub-path of the bad part.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

FLOAT_TOLERANCE = 1e-9
_DROPPED_CHARS = str.maketrans("", "", ",_\u202f")


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


def fuzzy_normalize(value: Any) -> str:
    """Trim, lowercase, drop ``,`` ``_`` and narrow no-break spaces, collapse whitespace."""
    return " ".join(str(value).strip().lower().translate(_DROPPED_CHARS).split())


def fuzzy_number(text: str) -> float | None:
    """A normalised string as a number; a trailing ``%`` means /100."""
    percent = text.endswith("%")
    core = text[:-1].rstrip() if percent else text
    try:
        number = float(core)
    except ValueError:
        return None
    if not math.isfinite(number):
        return None
    return number / 100 if percent else number


def fuzzy_equal(expected: Any, actual: Any) -> bool:
    left, right = fuzzy_normalize(expected), fuzzy_normalize(actual)
    a, b = fuzzy_number(left), fuzzy_number(right)
    if a is not None and b is not None:
        return math.isclose(a, b, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE)
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
    "fuzzy": (_fuzzy, frozenset()),
    "regex": (_regex, frozenset()),
}


def register_matcher(kind: str, factory: MatcherFactory, extra_keys: frozenset[str]) -> None:
    MATCHER_KINDS[kind] = (factory, extra_keys)


def parse_matcher(raw: Any) -> Matcher:
    """Compile a matcher spec; a mapping not naming a matcher kind is a literal."""
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
    return LiteralMatcher(raw)
