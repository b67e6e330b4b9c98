"""Graded similarity of the response to the ground truth: fuzzy ratio, Levenshtein, token F1,
sentence BLEU. Each scores 0-1 and passes at its threshold (documented defaults)."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import Field
from typing_extensions import TypeVar

from assay.metrics._text import no_words_score, normalize, words
from assay.metrics.base import Metric, MetricContext, MetricOptions, Score
from assay.metrics.registry import metric


class TextOptions(MetricOptions):
    case_insensitive: bool = False


TextOptionsT = TypeVar("TextOptionsT", bound=TextOptions, default=TextOptions, covariant=True)


class _TextSimilarity(Metric[TextOptionsT]):
    """A score of two normalised strings: the response and the ground truth."""

    requires = frozenset({"response", "ground_truth"})

    def pair(self, ctx: MetricContext) -> tuple[str, str]:
        assert ctx.response is not None and ctx.ground_truth is not None
        insensitive = self.options.case_insensitive
        return (
            normalize(ctx.response.strip(), case_insensitive=insensitive),
            normalize(ctx.ground_truth.strip(), case_insensitive=insensitive),
        )


FuzzyMethod = Literal["ratio", "partial_ratio", "token_sort_ratio", "token_set_ratio"]


class FuzzyOptions(TextOptions):
    method: FuzzyMethod = "ratio"


@metric("fuzzy")
class Fuzzy(_TextSimilarity[FuzzyOptions]):
    """rapidfuzz ``fuzz.ratio`` / 100 (or another of its scorers): 1 - the Indel distance
    over the total length of both strings. Passes at 0.9 by default."""

    default_threshold = 0.9

    def measure(self, ctx: MetricContext) -> Score:
        from rapidfuzz import fuzz  # imported on use: most runs score no fuzzy metric

        response, expected = self.pair(ctx)
        method = self.options.method
        score = getattr(fuzz, method)(response, expected) / 100
        return Score(min(1.0, max(0.0, score)), details={"method": method})


@metric("levenshtein")
class Levenshtein(_TextSimilarity):
    """Normalised Levenshtein similarity: 1 - edits / the longer length (two empty strings
    score 1). Passes at 0.9 by default."""

    default_threshold = 0.9

    def measure(self, ctx: MetricContext) -> Score:
        from rapidfuzz.distance import Levenshtein as _Levenshtein  # imported on use

        response, expected = self.pair(ctx)
        distance = _Levenshtein.distance(response, expected)
        return Score(
            _Levenshtein.normalized_similarity(response, expected),
            details={"distance": distance},
        )


@metric("token_f1")
class TokenF1(Metric):
    """The F1 of the word tokens shared by response and ground truth (SQuAD style, counting
    repeats; no stop-word or article removal). Passes at 0.5 by default."""

    requires = frozenset({"response", "ground_truth"})
    default_threshold = 0.5

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        predicted, expected = words(ctx.response), words(ctx.ground_truth)
        empty = no_words_score(predicted, expected)
        if empty is not None:
            return empty
        common = sum((Counter(predicted) & Counter(expected)).values())
        precision, recall = common / len(predicted), common / len(expected)
        f1 = 0.0 if common == 0 else 2 * precision * recall / (precision + recall)
        return Score(f1, details={"precision": precision, "recall": recall})


class BleuOptions(MetricOptions):
    tokenize: Literal["13a", "intl", "char", "zh", "none"] = "13a"
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp"
    lowercase: bool = False
    max_ngram_order: int = Field(default=4, ge=1, le=8)


@metric("bleu")
class Bleu(Metric[BleuOptions]):
    """sacrebleu sentence BLEU (effective order, exponential smoothing) / 100, against the
    ground truth as the one reference. Passes at 0.5 by default."""

    requires = frozenset({"response", "ground_truth"})
    default_threshold = 0.5

    def __init__(self, options: BleuOptions) -> None:
        super().__init__(options)
        from sacrebleu.metrics.bleu import BLEU  # a slow import, needed only by bleu

        self.bleu = BLEU(
            lowercase=options.lowercase,
            tokenize=options.tokenize,
            smooth_method=options.smooth_method,
            max_ngram_order=options.max_ngram_order,
            effective_order=True,
        )

    def measure(self, ctx: MetricContext) -> Score:
        assert ctx.response is not None and ctx.ground_truth is not None
        result = self.bleu.sentence_score(normalize(ctx.response), [normalize(ctx.ground_truth)])
        return Score(
            min(1.0, max(0.0, result.score / 100)),
            details={"precisions": [round(p / 100, 6) for p in result.precisions], "bp": result.bp},
        )
