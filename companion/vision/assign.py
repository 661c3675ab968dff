"""Each card once per frame: a deck holds every card once, so a frame's crops are assigned
to distinct cards by maximising their joint log-probability (the Hungarian method), and a
crop that lost its best card to a better-matching crop is flagged as a possible duplicate."""

from __future__ import annotations

import numpy as np


def hungarian(cost: np.ndarray) -> np.ndarray:
    """Minimum-cost assignment of rows to distinct columns (rows <= columns).

    Returns the column of each row. The classic O(n^2 m) potentials method.
    """
    n, m = cost.shape
    if n > m:
        raise ValueError("more rows than columns: cannot give every row its own column")
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    p = np.zeros(m + 1, int)  # p[j]: row (1-based) matched to column j
    way = np.zeros(m + 1, int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            cur = cost[i0 - 1] - u[i0] - v[1:]
            free = ~used[1:]
            better = free & (cur < minv[1:])
            minv[1:][better] = cur[better]
            way[1:][better] = j0
            cand = np.where(free, minv[1:], np.inf)
            j1 = int(np.argmin(cand)) + 1
            delta = cand[j1 - 1]
            u[p[used]] += delta
            v[used] -= delta
            minv[1:][free] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    col = np.full(n, -1)
    for j in range(1, m + 1):
        if p[j]:
            col[p[j] - 1] = j - 1
    return col


def assign_once(probs: np.ndarray, rows: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
    """Give each crop in ``rows`` (default: all) its own card, maximising the joint log-p.

    Returns (card index per crop, -1 for crops not assigned; duplicate flag per crop). A
    crop is flagged when its own best card went to another crop that matches it better.
    """
    n, m = probs.shape
    rows = np.arange(n) if rows is None else np.asarray(rows)
    chosen = np.full(n, -1)
    dup = np.zeros(n, bool)
    if len(rows) == 0:
        return chosen, dup
    use = rows[:m]  # more crops than cards: the extra ones cannot all be distinct cards
    cost = -np.log(np.clip(probs[use], 1e-9, 1.0))
    chosen[use] = hungarian(cost)
    best = probs[rows].argmax(axis=1)
    for k, r in enumerate(rows):
        dup[r] = chosen[r] != best[k] or np.sum(best == best[k]) > 1 and chosen[r] < 0
    return chosen, dup
