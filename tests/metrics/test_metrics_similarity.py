"""fuzzy, levenshtein, token_f1, bleu, rouge: hand-computed scores."""

from __future__ import annotations

import pytest

from assay.metrics import MetricConfigError, build_metric
from assay.metrics.rouge import lcs_length, rouge
from tests.metrics._helpers import score


def test_fuzzy_ratio_and_default_threshold() -> None:
    # Indel ratio = 2 * LCS / (len a + len b): "Pariss" vs "Paris" = 2*5 / 11 = 0.9090...
    near = score("fuzzy", "Pariss", "Paris")
    assert near.score == pytest.approx(10 / 11)
    assert near.threshold == 0.9 and near.passed is True
    # "Pari" vs "Paris" = 2*4 / 9 = 0.888... < 0.9
    far = score("fuzzy", "Pari", "Paris")
    assert far.score == pytest.approx(8 / 9) and far.passed is False


def test_fuzzy_threshold_option_as_users_write_it() -> None:
    assert score("fuzzy", "Pari", "Paris", threshold=0.85).passed is True


def test_fuzzy_case_and_methods() -> None:
    assert score("fuzzy", "PARIS", "paris").score == 0.0  # no common characters
    assert score("fuzzy", "PARIS", "paris", case_insensitive=True).score == 1.0
    # token_set_ratio ignores order and repeats
    assert score("fuzzy", "new york city", "city new york", method="token_set_ratio").score == 1.0


def test_levenshtein() -> None:
    # kitten -> sitting: 3 edits (k->s, e->i, +g); 1 - 3/7 = 0.5714...
    result = score("levenshtein", "kitten", "sitting")
    assert result.score == pytest.approx(4 / 7)
    assert result.details == {"distance": 3}
    assert result.passed is False  # default threshold 0.9
    assert score("levenshtein", "", "").score == 1.0
    # unicode: one substitution in four characters: 1 - 1/4
    assert score("levenshtein", "Köln", "Koln").score == pytest.approx(0.75)


def test_token_f1() -> None:
    # predicted [the, cat, sat], expected [the, cat, sat, on, the, mat]: 3 shared
    # precision 3/3 = 1, recall 3/6 = 0.5, F1 = 2 * 1 * 0.5 / 1.5 = 2/3
    result = score("token_f1", "The cat sat.", "the cat sat on the mat")
    assert result.score == pytest.approx(2 / 3)
    assert result.details == {"precision": 1.0, "recall": 0.5}
    assert result.passed is True  # default threshold 0.5


def test_token_f1_counts_repeats_and_handles_empty() -> None:
    # predicted [the, the, the], expected [the, cat]: shared min(3, 1) = 1
    # precision 1/3, recall 1/2, F1 = 2 * (1/6) / (5/6) = 0.4
    assert score("token_f1", "the the the", "the cat").score == pytest.approx(0.4)
    assert score("token_f1", "", "the cat").score == 0.0
    assert score("token_f1", "...", "!!!").score == 1.0  # no words on either side


def test_token_f1_unicode() -> None:
    # casefolded Cyrillic: [привет, мир] vs [привет, всем]: 1 shared, P = R = 1/2, F1 = 1/2
    assert score("token_f1", "Привет, мир", "привет всем").score == pytest.approx(0.5)


def test_bleu_sentence() -> None:
    # hypothesis "the cat is on the mat", reference "the cat sat on the mat"
    # 1-grams 5/6, 2-grams 3/5 (the cat, on the, the mat), 3-grams 1/4 (on the mat),
    # 4-grams 0/3 -> exp smoothing 1/(2 * 3) = 1/6; brevity penalty 1 (equal lengths)
    # BLEU = (5/6 * 3/5 * 1/4 * 1/6) ** (1/4) = (1/48) ** 0.25 = 0.37992
    result = score("bleu", "the cat is on the mat", "the cat sat on the mat")
    assert result.score == pytest.approx((1 / 48) ** 0.25, abs=1e-9)
    assert result.passed is False  # default threshold 0.5


def test_bleu_bounds() -> None:
    assert score("bleu", "the cat sat on the mat", "the cat sat on the mat").score == 1.0
    assert score("bleu", "", "the cat").score == 0.0


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        # "the mat on the cat" vs "the cat on the mat"
        ("rouge1", 1.0),  # same words: P = R = 5/5
        ("rouge2", 0.75),  # bigrams shared: the-mat, on-the, the-cat = 3 of 4 each side
        ("rougeL", 0.6),  # LCS "the on the" = 3: P = R = 3/5
    ],
)
def test_rouge_types_score_differently(kind: str, expected: float) -> None:
    result = score("rouge", "the mat on the cat", "the cat on the mat", type=kind)
    assert result.score == pytest.approx(expected)
    assert result.details is not None and result.details["type"] == kind
    assert result.details["fmeasure"] == result.score


def test_rouge_defaults_to_rouge_l() -> None:
    result = score("rouge", "the mat on the cat", "the cat on the mat")
    assert result.score == pytest.approx(0.6)
    assert result.details is not None and result.details["type"] == "rougeL"


def test_rouge_precision_recall_fmeasure() -> None:
    # rouge1: predicted [paris, is, the, capital] vs expected [paris]: overlap 1
    # P = 1/4, R = 1/1, F = 2 * 0.25 / 1.25 = 0.4
    result = score("rouge", "Paris is the capital", "Paris", type="rouge1")
    assert result.score == pytest.approx(0.4)
    assert result.details is not None
    assert (result.details["precision"], result.details["recall"]) == (0.25, 1.0)


def test_rouge2_of_one_word_falls_back_to_rouge1() -> None:
    result = score("rouge", "Paris", "paris", type="rouge2")
    assert result.score == 1.0
    assert result.details is not None and result.details["scored_as"] == "rouge1"


def test_rouge_empty_and_unicode() -> None:
    empty = score("rouge", "", "the cat")
    assert empty.score == 0.0 and empty.reasoning == "one side has no words"
    assert score("rouge", "東京 大阪", "東京 大阪", type="rouge2").score == 1.0


def test_rouge_bad_type() -> None:
    with pytest.raises(MetricConfigError) as exc:
        build_metric("rouge", {"type": "rougeLsum"})
    assert exc.value.problems[0][0] == "type"


def test_rouge_helpers() -> None:
    assert lcs_length("abcbdab", "bdcaba") == 4  # the textbook example: "bcba"
    assert lcs_length([], ["a"]) == 0
    assert rouge(["a"], ["b"], "rouge1").fmeasure == 0.0
