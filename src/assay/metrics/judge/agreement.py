"""How well a judge agrees with human labels: accuracy and Cohen's kappa for pass/fail
labels, Spearman's rank correlation for numeric ones."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Confusion:
    """Judge verdicts against labels; "pass" is the positive class."""

    both_pass: int = 0  # judge pass, label pass
    judge_only: int = 0  # judge pass, label fail
    label_only: int = 0  # judge fail, label pass
    both_fail: int = 0  # judge fail, label fail

    @classmethod
    def of(cls, judged: Sequence[bool], labels: Sequence[bool]) -> Confusion:
        if len(judged) != len(labels):
            raise ValueError("judged and labels differ in length")
        pairs = list(zip(judged, labels, strict=True))
        return cls(
            both_pass=sum(1 for j, h in pairs if j and h),
            judge_only=sum(1 for j, h in pairs if j and not h),
            label_only=sum(1 for j, h in pairs if not j and h),
            both_fail=sum(1 for j, h in pairs if not j and not h),
        )

    @property
    def total(self) -> int:
        return self.both_pass + self.judge_only + self.label_only + self.both_fail

    @property
    def accuracy(self) -> float | None:
        return (self.both_pass + self.both_fail) / self.total if self.total else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa: (p_o − p_e) / (1 − p_e), where p_o is the observed agreement and
        p_e the agreement expected by chance from each side's pass rate. None when p_e is 1
        (judge and labels all of one same class: agreement by chance alone)."""
        n = self.total
        if not n:
            return None
        p_o = (self.both_pass + self.both_fail) / n
        judge_pass = (self.both_pass + self.judge_only) / n
        label_pass = (self.both_pass + self.label_only) / n
        p_e = judge_pass * label_pass + (1 - judge_pass) * (1 - label_pass)
        if math.isclose(p_e, 1.0):
            return None
        return (p_o - p_e) / (1 - p_e)

    def to_dict(self) -> dict[str, int]:
        return {
            "judge_pass_label_pass": self.both_pass,
            "judge_pass_label_fail": self.judge_only,
            "judge_fail_label_pass": self.label_only,
            "judge_fail_label_fail": self.both_fail,
        }


def ranks(values: Sequence[float]) -> list[float]:
    """1-based ranks; tied values share the average of their ranks."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """None when either side has no variance (or fewer than two points)."""
    n = len(xs)
    if n != len(ys):
        raise ValueError("xs and ys differ in length")
    if n < 2:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rho: Pearson's correlation of the ranks (ties averaged)."""
    return pearson(ranks(xs), ranks(ys))
