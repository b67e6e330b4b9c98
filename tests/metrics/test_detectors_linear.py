"""Every pattern that scans a reply is linear in the reply's length (issue 10, point 4).

Python's ``re`` backtracks, so a pattern can take quadratic time (``pii`` froze a run for
20 s on 100 KB of ``%…@``). The proof here is structural rather than timed: when every
repetition in a pattern (look-arounds included) has a finite upper bound, a match attempt
from any position reads at most a fixed window of text and tries a fixed number of ways
through the pattern, so a scan costs at most a constant per character. The tests walk each
pattern's parse tree for an unbounded repetition, then scan hostile 1 MB replies and check
what was found. ``bench/bench_detectors.py`` records the time per MB.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from assay.metrics import MetricContext, build_metric
from assay.metrics._numbers import _IN_PROSE, find_numbers
from assay.metrics._text import _WORD
from assay.metrics.safety import credentials, pii

try:  # Python 3.11+: the parser moved, its constants with it
    from re import _constants as sre_constants
    from re import _parser as sre_parse
except ImportError:  # pragma: no cover
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MB = 1_000_000
# Each pattern's window: how far past its start one attempt may read, at most.
MAX_WINDOW = 1_000

SCANNING: dict[str, re.Pattern[str]] = {
    **{f"pii.{d.kind}": d.pattern for d in pii.DETECTORS},
    **{f"secrets.{d.kind}": d.pattern for d in credentials.DETECTORS},
    "numeric.in_prose": _IN_PROSE,
}

# Linear without a bound, and why. Anything else that scans a reply must be bounded.
EXEMPT = {
    # one character class, greedy, nothing after it: it cannot fail once started, so every
    # character is read once (token_f1, rouge and prompt_leakage tokenise with it)
    "text.words": _WORD,
}

REPEATS = {sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT}
if hasattr(sre_constants, "POSSESSIVE_REPEAT"):
    REPEATS.add(sre_constants.POSSESSIVE_REPEAT)


def unbounded_repeats(parsed: Any) -> Iterator[str]:
    """Every repetition without an upper bound in a parsed pattern, however deeply nested."""
    for op, arg in parsed:
        if op in REPEATS:
            low, high, body = arg
            if high == sre_constants.MAXREPEAT:
                yield f"{{{low},}} over {list(body)!r:.60}"
            yield from unbounded_repeats(body)
        elif op == sre_constants.SUBPATTERN:
            yield from unbounded_repeats(arg[-1])
        elif op == sre_constants.BRANCH:
            for branch in arg[1]:
                yield from unbounded_repeats(branch)
        elif op in (sre_constants.ASSERT, sre_constants.ASSERT_NOT):
            yield from unbounded_repeats(arg[1])
        elif op == getattr(sre_constants, "ATOMIC_GROUP", None):
            yield from unbounded_repeats(arg)
        elif op == sre_constants.GROUPREF_EXISTS:
            yield from unbounded_repeats(arg[1])
            if arg[2] is not None:
                yield from unbounded_repeats(arg[2])


def parse(pattern: re.Pattern[str]) -> Any:
    return sre_parse.parse(pattern.pattern, pattern.flags)


@pytest.mark.parametrize("name", list(SCANNING))
def test_every_repetition_in_a_detector_is_bounded(name: str) -> None:
    parsed = parse(SCANNING[name])
    assert list(unbounded_repeats(parsed)) == []
    assert parsed.getwidth()[1] <= MAX_WINDOW


def test_the_check_finds_the_patterns_that_were_quadratic() -> None:
    """The old e-mail and number patterns, which took quadratic time, fail the check."""
    old_email = re.compile(r"(?<![\w.+-])[\w.%+-]+@[\w-]+(?:\.[\w-]+)*\.[A-Za-z]{2,}\b")
    old_numbers = re.compile(r"(?<![\w.])\d+(?![\w.]*\d)")  # unbounded inside a look-ahead
    assert len(list(unbounded_repeats(parse(old_email)))) == 5  # +, +, (...)*, +, {2,}
    assert len(list(unbounded_repeats(parse(old_numbers)))) == 2
    assert list(unbounded_repeats(parse(EXEMPT["text.words"]))) != []  # exempt, with reason


def scan(metric: str, reply: str) -> Any:
    return build_metric(metric, {}).run_sync(MetricContext(input="q", response=reply))


def test_pii_on_hostile_megabyte_replies() -> None:
    assert scan("pii", "%" * MB + "@").passed is True  # the reply that froze a run
    found = scan("pii", "%" * MB + " write to jane.doe@example.com")
    assert found.passed is False and found.details is not None
    assert found.details["found"] == [{"kind": "email", "masked": "j***@e***.com", "at": MB + 10}]
    assert scan("pii", "1" * MB).passed is True  # one run of digits: no card, no phone
    assert scan("pii", "a@" + "a." * (MB // 2)).passed is True


def test_a_reply_full_of_findings_lists_the_first_hundred() -> None:
    card = "4111 1111 1111 1111"  # Luhn-valid
    result = scan("pii", f"{card} and " * 5_000)
    assert result.details is not None
    assert result.details["count"] == 5_000
    assert len(result.details["found"]) == 100
    assert result.details["found"][1] == {
        "kind": "credit_card",
        "masked": "**** **** **** 1111",
        "at": len(card) + 5,
    }


def test_secrets_on_hostile_megabyte_replies() -> None:
    key = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 2
    assert scan("secrets", "sk-" * (MB // 3)).passed is False  # one long 'key', found
    found = scan("secrets", "-----BEGIN A B C D " * (MB // 19) + " " + key)
    assert found.details is not None and found.details["kinds"] == ["openai_key"]
    assert scan("secrets", "aws_secret_key =   " * (MB // 19)).passed is True


def test_numbers_in_a_hostile_megabyte_reply() -> None:
    assert find_numbers("1" * MB + "x1") == []  # glued to letters: not a number
    numbers = find_numbers("1 " * 50_000)
    assert len(numbers) == 50_000 and {n.value for n in numbers} == {1.0}


def test_a_code_fence_around_a_megabyte_of_blanks() -> None:
    result = build_metric("json_valid", {"allow_code_fence": True}).run_sync(
        MetricContext(input="q", response="```\n" + " " * MB)
    )
    assert result.passed is False  # not fenced JSON (no closing fence), and answered
