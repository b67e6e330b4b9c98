"""Text matching metrics: does the response contain (or avoid) given strings, or match a
regular expression?"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from pydantic import ValidationInfo, field_validator, model_validator

from assay.metrics._text import normalize, shorten
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric

NO_VALUE = "no value given and no ground truth (Answer) for this turn"


class ContainsOptions(MetricOptions):
    value: str | None = None
    values: list[str] | None = None
    mode: Literal["any", "all"] | None = None  # default: all for contains, any for not_contains
    case_insensitive: bool = False

    @model_validator(mode="after")
    def _one_source(self) -> ContainsOptions:
        if self.value is not None and self.values is not None:
            raise ValueError("give value or values, not both")
        if self.values is not None and not self.values:
            raise ValueError("values is empty: give at least one string")
        given = self.values if self.values is not None else [self.value] if self.value else []
        if self.value == "" or any(not v for v in given):
            raise ValueError("an empty string is contained in every response; remove it")
        return self


class _ContainsBase(Metric[ContainsOptions]):
    requires = frozenset({"response"})
    default_mode: ClassVar[Literal["any", "all"]]

    def __init__(self, options: ContainsOptions) -> None:
        super().__init__(options)
        self.opts = options
        self.mode = options.mode or self.default_mode
        given = options.values if options.values is not None else options.value
        self.fixed = None if given is None else ([given] if isinstance(given, str) else given)

    def missing_input(self, ctx: MetricContext) -> str | None:
        if ctx.response is None:
            return "no response"
        if self.fixed is None and not ctx.ground_truth:
            return NO_VALUE
        return None

    def present(self, ctx: MetricContext) -> tuple[list[str], list[bool]]:
        """The strings looked for, and whether each is in the response."""
        assert ctx.response is not None
        wanted = self.fixed if self.fixed is not None else [ctx.ground_truth or ""]
        insensitive = self.opts.case_insensitive
        haystack = normalize(ctx.response, case_insensitive=insensitive)
        return wanted, [normalize(w, case_insensitive=insensitive) in haystack for w in wanted]


@metric("contains")
class Contains(_ContainsBase):
    """The response contains the value(s): all of them (``mode: all``, the default; the score
    is the fraction found) or any one (``mode: any``; 1 or 0)."""

    default_mode = "all"

    def measure(self, ctx: MetricContext) -> Score:
        wanted, found = self.present(ctx)
        hits = sum(found)
        score = (1.0 if hits else 0.0) if self.mode == "any" else hits / len(wanted)
        missing = [w for w, f in zip(wanted, found, strict=True) if not f]
        reason = None
        if missing and (self.mode == "all" or not hits):
            reason = "the response does not contain " + ", ".join(shorten(m) for m in missing)
        return Score(score, reasoning=reason, details={"missing": missing} if missing else None)


@metric("not_contains")
class NotContains(_ContainsBase):
    """The response avoids the value(s): none of them may appear (``mode: any``, the default;
    the score is the fraction absent), or not all of them together (``mode: all``; 1 or 0)."""

    default_mode = "any"

    def measure(self, ctx: MetricContext) -> Score:
        wanted, found = self.present(ctx)
        hits = [w for w, f in zip(wanted, found, strict=True) if f]
        if self.mode == "all":
            score = 0.0 if len(hits) == len(wanted) else 1.0
        else:
            score = 1 - len(hits) / len(wanted)
        reason = None
        if score < 1:
            reason = "the response contains " + ", ".join(shorten(h) for h in hits)
        return Score(score, reasoning=reason, details={"found": hits} if hits else None)


class RegexOptions(MetricOptions):
    match: Literal["search", "full"] = "search"  # before pattern: its check reads it
    pattern: str
    case_insensitive: bool = False
    multiline: bool = False
    dotall: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, value: str, info: ValidationInfo) -> str:
        try:
            compiled = re.compile(value)
        except re.error as exc:
            raise ValueError(f"invalid regular expression {value!r}: {exc}") from None
        if info.data.get("match") == "search" and matches_every_reply(compiled):
            raise ValueError(
                "an empty pattern is found in every response; give the text the response must match"
                if not value
                else f"{value!r} matches an empty string in any response, so it is found in "
                "every one and checks nothing: make it need some text (.+ rather than .*), or "
                "match the whole response (match: full)"
            )
        return value


# Replies a pattern is tried on to tell whether it matches every reply: empty, a word, a
# space, a newline, and a sentence.
_PROBES = ("", "x", " ", "\n", "Paris is the capital.\nIt is in France.")
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!", "(?(")


def matches_every_reply(pattern: re.Pattern[str]) -> bool:
    """Whether ``pattern``, searched for, is found in any text at all: ``""``, ``.*``,
    ``^``, ``$``, ``x?``. It is when it finds an empty match in each probe: with nothing
    consumed, only its anchors and word boundaries decide, and those probes cover them
    (``^$`` finds none in ``x``, ``\\B`` none in ``x``, ``\\b`` none in ``""``). A pattern
    with a lookaround or a conditional is never judged so: an empty match of
    ``^(?!ERROR)`` depends on the text after it."""
    if any(mark in pattern.pattern for mark in _LOOKAROUND):
        return False
    return all(
        any(found.end() == found.start() for found in pattern.finditer(probe)) for probe in _PROBES
    )


@metric("regex")
class Regex(Metric[RegexOptions]):
    """1.0 when the pattern matches the response: anywhere (``match: search``, the default),
    or the whole response (``match: full``)."""

    requires = frozenset({"response"})

    def __init__(self, options: RegexOptions) -> None:
        super().__init__(options)
        flags = re.IGNORECASE if options.case_insensitive else 0
        flags |= re.MULTILINE if options.multiline else 0
        flags |= re.DOTALL if options.dotall else 0
        self.pattern = re.compile(options.pattern, flags)
        self.full = options.match == "full"

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None
        text = ctx.response.strip() if self.full else ctx.response
        found = self.pattern.fullmatch(text) if self.full else self.pattern.search(text)
        if found is None:
            how = "match the whole of" if self.full else "occur in"
            return Score(
                0.0, reasoning=f"{self.pattern.pattern!r} does not {how} {shorten(ctx.response)}"
            )
        return Score(1.0, details={"matched": found.group(0)})
