"""``-k EXPR``: pytest's keyword expression on test names (docs/ci.md).

Words are matched as case-insensitive substrings, combined with ``and``, ``or``, ``not`` and
parentheses (``not`` binds tightest, then ``and``, then ``or``). A word is any run of
characters other than spaces, parentheses and quotes; a name with spaces is written in
quotes (``-k '"late flight" or refund'``). The expression is parsed here, never evaluated as
Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

Matcher = Callable[[str], bool]  # a test's name, casefolded -> selected?

_TOKEN = re.compile(
    r"""\s*(?:(?P<paren>[()])|"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<word>[^\s()"']+))"""
)
_OPERATORS = ("and", "or", "not")


class KeywordError(ValueError):
    """A ``-k`` expression that cannot be read; the message says where and what was expected."""


@dataclass(frozen=True)
class _Token:
    text: str
    column: int  # 1-based, for the message
    kind: str  # "(", ")", "and", "or", "not", "name"


def _tokens(expression: str) -> list[_Token]:
    found: list[_Token] = []
    at = 0
    while at < len(expression):
        match = _TOKEN.match(expression, at)
        if match is None or match.end() == at:  # only trailing spaces, or an unclosed quote
            rest = expression[at:].lstrip()
            if not rest:
                break
            column = len(expression) - len(rest) + 1
            raise KeywordError(f"an unclosed quote at column {column}")
        text = match.group(0)
        column = match.start() + len(text) - len(text.lstrip()) + 1
        if match["paren"]:
            found.append(_Token(match["paren"], column, match["paren"]))
        elif match["word"] is not None:
            word = match["word"]
            found.append(_Token(word, column, word if word in _OPERATORS else "name"))
        else:
            quoted = match["dq"] if match["dq"] is not None else match["sq"]
            found.append(_Token(quoted, column, "name"))
        at = match.end()
    return found


class _Parser:
    """Recursive descent over: or := and ("or" and)*; and := not ("and" not)*;
    not := "not" not | "(" or ")" | NAME."""

    def __init__(self, tokens: list[_Token], length: int) -> None:
        self.tokens = tokens
        self.at = 0
        self.end_column = length + 1

    def _peek(self) -> _Token | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def _fail(self, expected: str) -> KeywordError:
        token = self._peek()
        if token is None:
            return KeywordError(f"expected {expected} at the end (column {self.end_column})")
        return KeywordError(f"expected {expected} at column {token.column}, got {token.text!r}")

    def parse(self) -> Matcher:
        matcher = self._or()
        if self._peek() is not None:
            raise self._fail("'and', 'or' or the end")
        return matcher

    def _or(self) -> Matcher:
        return self._joined("or", self._and, any)

    def _and(self) -> Matcher:
        return self._joined("and", self._not, all)

    def _joined(
        self,
        operator: str,
        operand: Callable[[], Matcher],
        combine: Callable[[Iterable[bool]], bool],
    ) -> Matcher:
        parts = [operand()]
        while (token := self._peek()) is not None and token.kind == operator:
            self.at += 1
            parts.append(operand())
        return parts[0] if len(parts) == 1 else lambda name: combine(p(name) for p in parts)

    def _not(self) -> Matcher:
        token = self._peek()
        if token is None or token.kind in ("and", "or", ")"):
            raise self._fail("a name, 'not' or '('")
        self.at += 1
        if token.kind == "not":
            inner = self._not()
            return lambda name: not inner(name)
        if token.kind == "(":
            inner = self._or()
            closing = self._peek()
            if closing is None or closing.kind != ")":
                raise self._fail("')'")
            self.at += 1
            return inner
        word = token.text.casefold()
        return lambda name: word in name


def keyword_matcher(expression: str) -> Matcher:
    """A ``-k`` expression as a test of a name (give it the name casefolded); an empty
    expression selects every test, as in pytest. ``KeywordError`` when it cannot be read."""
    tokens = _tokens(expression)
    if not tokens:
        return lambda name: True
    return _Parser(tokens, len(expression)).parse()


def keyword_selection(expression: str) -> object:
    """What ``expression`` selects, for comparing two expressions: its words without case
    (names match without case), its operators and parentheses, not how it was spaced or
    quoted. An expression that cannot be read is itself."""
    try:
        return tuple(
            (t.kind, t.text.casefold() if t.kind == "name" else t.text) for t in _tokens(expression)
        )
    except KeywordError:
        return expression
