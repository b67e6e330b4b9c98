"""The agreement math, checked against tables worked out by hand."""

from __future__ import annotations

import pytest

from assay.metrics.judge.agreement import Confusion, pearson, ranks, spearman


def test_kappa_on_a_table_worked_by_hand() -> None:
    #                 label pass  label fail
    #   judge pass        20           5       -> judge passes 25/50 = 0.5
    #   judge fail        10          15
    #                 label passes 30/50 = 0.6
    # observed agreement p_o = (20 + 15) / 50 = 0.7
    # chance agreement   p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5
    # kappa = (0.7 - 0.5) / (1 - 0.5) = 0.4
    table = Confusion(both_pass=20, judge_only=5, label_only=10, both_fail=15)
    assert table.total == 50
    assert table.accuracy == pytest.approx(0.7)
    assert table.kappa == pytest.approx(0.4)


def test_kappa_from_verdicts_and_its_edges() -> None:
    judged = [True, True, False, False, True, False]
    labels = [True, True, False, True, False, False]
    table = Confusion.of(judged, labels)
    assert table == Confusion(both_pass=2, judge_only=1, label_only=1, both_fail=2)
    # p_o = 4/6, p_e = 0.5 * 0.5 + 0.5 * 0.5 = 0.5, kappa = (2/3 - 1/2) / (1/2) = 1/3
    assert table.kappa == pytest.approx(1 / 3)
    assert Confusion.of([True, False], [True, False]).kappa == pytest.approx(1.0)
    assert Confusion.of([True, False], [False, True]).kappa == pytest.approx(-1.0)
    assert Confusion.of([True, True], [True, True]).kappa is None  # all one class: undefined
    assert Confusion().accuracy is None and Confusion().kappa is None


def test_ranks_average_ties() -> None:
    assert ranks([10, 30, 20]) == [1, 3, 2]
    assert ranks([5, 6, 7, 8, 7]) == [1, 2, 3.5, 5, 3.5]


def test_spearman_worked_by_hand() -> None:
    # ranks of x: 1 2 3 4 5 (mean 3); ranks of y: 1 2 3.5 5 3.5 (mean 3)
    # sum dx*dy = 4 + 1 + 0 + 2 + 1 = 8; sum dx^2 = 10; sum dy^2 = 4 + 1 + .25 + 4 + .25 = 9.5
    # rho = 8 / sqrt(10 * 9.5) = 0.82078...
    assert spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(8 / 95**0.5)
    # no ties: 1 - 6 * sum(d^2) / (n (n^2 - 1)) = 1 - 6 * 2 / 120 = 0.9
    assert spearman([1, 2, 4, 3, 5], [1, 2, 3, 4, 5]) == pytest.approx(0.9)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None  # no variance
    assert pearson([1.0], [2.0]) is None
