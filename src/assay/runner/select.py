"""Which tests a run runs: ``-k EXPR``, ``--tag TAG`` and ``--only-failed RUN_ID`` (docs/ci.md).

``-k`` is pytest's keyword expression on test names: words matched as case-insensitive
substrings, combined with ``and``, ``or``, ``not`` and parentheses (``not`` binds tightest,
then ``and``, then ``or``). A word is any run of characters other than spaces, parentheses
and quotes; a name with spaces is written in quotes (``-k '"late flight" or refund'``). The
expression is parsed here, never evaluated as Python.

The three combine with *and*: a test runs when it matches ``-k``, has one of the ``--tag``
tags (compared without case) and, with ``--only-failed``, failed or errored in that run. A
selection that leaves no test is bad input: a green run that tested nothing proves nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from assay.cases.models import TestCase
from assay.errors import ConfigError, Problem
from assay.runner.request import IN_MEMORY, RunRequest
from assay.runner.storable import storable_text
from assay.store import RunNotFound

if TYPE_CHECKING:
    from assay.store import Store

# what --only-failed re-runs: a test with nothing checked (not_run) would not change
RERUN_STATUSES = ("failed", "error")

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


def select_cases(
    cases: Iterable[TestCase],
    keyword: str | None = None,
    tags: Iterable[str] = (),
    names: set[str] | None = None,
    names_from: str = "",
) -> list[TestCase]:
    """The cases the selection picks, in order. ``names``: stored test names (``--only-failed``
    gives the failed and errored ones of ``names_from``, a run id). Raises ConfigError when
    ``keyword`` cannot be read or nothing is selected."""
    cases, tags = list(cases), list(tags)
    wanted_tags = {tag.casefold() for tag in tags}
    matcher = None
    if keyword is not None:
        try:
            matcher = keyword_matcher(keyword)
        except KeywordError as exc:
            raise ConfigError(
                [Problem("options", "-k", f"cannot read {keyword!r}: {exc}")]
            ) from None
    chosen = [
        case
        for case in cases
        if (matcher is None or matcher(case.name.casefold()))
        and (not wanted_tags or wanted_tags & {tag.casefold() for tag in case.tags})
        and (names is None or storable_text(case.name) in names)
    ]
    if chosen or not cases:
        return chosen
    raise ConfigError(
        [
            Problem(
                "options",
                _flags(keyword, tags, names_from),
                _nothing(len(cases), keyword, tags, names, names_from),
            )
        ]
    )


def _flags(keyword: str | None, tags: list[str], names_from: str) -> str:
    given = ["-k"] if keyword is not None else []
    given += ["--tag"] if tags else []
    given += ["--only-failed"] if names_from else []
    return " ".join(given)


def _nothing(
    total: int, keyword: str | None, tags: list[str], names: set[str] | None, names_from: str
) -> str:
    parts = [f"-k {keyword!r}"] if keyword is not None else []
    parts += [f"--tag {tag!r}" for tag in tags]
    if names_from:
        parts.append(f"--only-failed {names_from[:12]}")
    why = f"no test matches {' '.join(parts)} (of {total} tests)"
    if names is not None and not names:
        why = f"run {names_from[:12]} has no failed or errored test, so there is nothing to re-run"
    elif names is not None and keyword is None and not tags:
        why += ": its failed tests are no longer in the suite"
    return (
        why + "; a run that tests nothing proves nothing. Check the names (`assay run` lists "
        "them in its table) and tags, or drop the selection"
    )


def failed_tests(store: Store, ref: str) -> tuple[str, set[str]]:
    """``--only-failed RUN_ID``: the run's full id and the stored names of its tests that
    failed or errored (on any repetition). An unknown id is bad input naming the option."""
    try:
        run_id = store.resolve_run_id(ref)
    except RunNotFound as exc:
        problem = exc.problems[0]
        raise ConfigError([Problem("options", "--only-failed", problem.message)]) from None
    names = {o.test_name for o in store.outcomes(run_id) if o.status in RERUN_STATUSES}
    return run_id, names


def rerun_request(request: RunRequest, store: Store, run_id: str) -> RunRequest:
    """``--only-failed`` with no suite and no dataset: the suite and datasets of the run
    being re-run (with the options given now)."""
    if request.suite is not None or request.options.datasets:
        return request
    stored = store.run_inputs(run_id).get("request") or {}
    if stored.get(IN_MEMORY):
        raise ConfigError(
            [
                Problem(
                    "options",
                    "--only-failed",
                    f"run {run_id[:12]} ran a suite given to assay.run as an object, which is "
                    "not stored: pass the same suite again",
                )
            ]
        )
    started = RunRequest.from_inputs(stored)
    options = request.options.model_copy(update={"datasets": started.options.datasets})
    return RunRequest(started.suite, options)
