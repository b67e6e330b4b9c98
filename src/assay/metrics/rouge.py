"""ROUGE-1, ROUGE-2 and ROUGE-L of the response against the ground truth, implemented here.

Tokens are ``assay.metrics._text.words``: casefolded runs of Unicode letters and digits, so
non-Latin text is scored too (the reference ``rouge-score`` tokenizer drops it). No stemming.
ROUGE-N counts clipped n-gram overlaps; ROUGE-L uses the longest common subsequence of
tokens. The score is the F-measure of the configured type; precision and recall are in the
details. ROUGE-2 of a one-word text (which has no bigrams) falls back to ROUGE-1 and says so
in the details (``scored_as``), rather than scoring 0 by accident.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from assay.metrics._text import no_words_score, words
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric

RougeType = Literal["rouge1", "rouge2", "rougeL"]


@dataclass(frozen=True)
class RougeScore:
    precision: float
    recall: float
    fmeasure: float


def _prf(overlap: int, predicted: int, expected: int) -> RougeScore:
    precision = overlap / predicted if predicted else 0.0
    recall = overlap / expected if expected else 0.0
    f = 0.0 if overlap == 0 else 2 * precision * recall / (precision + recall)
    return RougeScore(precision, recall, f)


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Longest common subsequence length, O(len(a) * len(b)) time, O(len(b)) memory."""
    if len(a) < len(b):
        a, b = b, a
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge(predicted: Sequence[str], expected: Sequence[str], kind: RougeType) -> RougeScore:
    if kind == "rougeL":
        return _prf(lcs_length(predicted, expected), len(predicted), len(expected))
    n = 1 if kind == "rouge1" else 2
    pred, exp = _ngrams(predicted, n), _ngrams(expected, n)
    overlap = sum((pred & exp).values())
    return _prf(overlap, sum(pred.values()), sum(exp.values()))


class RougeOptions(MetricOptions):
    type: RougeType = "rougeL"


@metric("rouge")
class Rouge(Metric[RougeOptions]):
    """The ROUGE F-measure of the configured ``type`` (rougeL by default). Two texts without
    words score 1; one without words scores 0. Passes at 0.5 by default."""

    requires = frozenset({"response", "ground_truth"})
    default_threshold = 0.5

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        kind = self.options.type
        predicted, expected = words(ctx.response), words(ctx.ground_truth)
        empty = no_words_score(predicted, expected, {"type": kind})
        if empty is not None:
            return empty
        used: RougeType = kind
        if kind == "rouge2" and min(len(predicted), len(expected)) < 2:
            used = "rouge1"  # a one-word text has no bigrams: score its words, not a 0
        result = rouge(predicted, expected, used)
        details: dict[str, Any] = {
            "type": kind,
            "precision": result.precision,
            "recall": result.recall,
            "fmeasure": result.fmeasure,
        }
        if used != kind:
            details["scored_as"] = used
        return Score(result.fmeasure, details=details)
