"""Aligning expected items with actual ones under a match predicate ``ok(i, j)``: expected
item ``i`` against actual item ``j``. Used by trajectories and the ``contains`` matcher."""

from __future__ import annotations

from collections.abc import Callable

Match = Callable[[int, int], bool]


def max_matching(n_expected: int, n_actual: int, ok: Match) -> dict[int, int]:
    """A maximum one-to-one matching (expected -> actual), by augmenting paths (Kuhn): an
    actual item serves one expected item at most, whatever the order."""
    edges = [[j for j in range(n_actual) if ok(i, j)] for i in range(n_expected)]
    owner: dict[int, int] = {}  # actual -> expected

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j in seen:
                continue
            seen.add(j)
            if j not in owner or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    for i in range(n_expected):
        augment(i, set())
    return {i: j for j, i in owner.items()}


def in_order(n_expected: int, n_actual: int, ok: Match) -> list[int] | None:
    """Indices of actual items matching the expected ones in order, gaps allowed (the
    earliest such embedding), or None. Greedy earliest matching is optimal here."""
    chosen: list[int] = []
    j = 0
    for i in range(n_expected):
        while j < n_actual and not ok(i, j):
            j += 1
        if j == n_actual:
            return None
        chosen.append(j)
        j += 1
    return chosen


def longest_common(n_expected: int, n_actual: int, ok: Match) -> list[tuple[int, int]]:
    """The (expected, actual) pairs of a longest common subsequence."""
    table = [[0] * (n_actual + 1) for _ in range(n_expected + 1)]
    for i in range(n_expected - 1, -1, -1):
        for j in range(n_actual - 1, -1, -1):
            if ok(i, j):
                table[i][j] = table[i + 1][j + 1] + 1
            else:
                table[i][j] = max(table[i + 1][j], table[i][j + 1])
    pairs: list[tuple[int, int]] = []
    i = j = 0
    while i < n_expected and j < n_actual:
        if ok(i, j) and table[i][j] == table[i + 1][j + 1] + 1:
            pairs.append((i, j))
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return pairs
