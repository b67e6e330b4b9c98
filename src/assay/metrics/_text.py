"""Text helpers shared by the comparison metrics: normalisation, a tokenizer, short quotes."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from assay._words import clipped
from assay.metrics.base import Score

_WORD = re.compile(r"\w+")
QUOTE_LIMIT = 80


def normalize(text: str, *, case_insensitive: bool = False) -> str:
    """Unicode NFC (so a composed and a decomposed "é" compare equal), casefolded if asked."""
    text = unicodedata.normalize("NFC", text)
    return text.casefold() if case_insensitive else text


def words(text: str) -> list[str]:
    """The tokenizer of token_f1 and rouge: runs of Unicode letters, digits and ``_``,
    casefolded; punctuation and whitespace separate tokens."""
    return _WORD.findall(unicodedata.normalize("NFC", text).casefold())


def shorten(text: str, limit: int = QUOTE_LIMIT) -> str:
    """A reply quoted in a reason: JSON-style quotes, cut to ``limit`` characters."""
    return repr(clipped(text, limit))


def no_words_score(
    predicted: Sequence[str], expected: Sequence[str], details: dict[str, Any] | None = None
) -> Score | None:
    """The score of word-overlap metrics when a side has no words: 1 when neither has any,
    0 when one has; None when both have words and the metric should compute."""
    if predicted and expected:
        return None
    same = not predicted and not expected
    reason = None if same else "one side has no words"
    return Score(1.0 if same else 0.0, reasoning=reason, details=details)
