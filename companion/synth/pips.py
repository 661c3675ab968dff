"""Where the N emblems of a number card go, in the unit disc inside the border.

Four arrangements, as real decks differ: ``traditional`` (rows such as 3-2-3 and 3-4-3),
``grid`` (near-square grids), ``ring`` (a circle of pips, with one in the middle for some
counts, each pip turned to face outwards) and ``scatter`` (seeded, non-overlapping).
"""

from __future__ import annotations

import math

import numpy as np

_ROWS = {1: (1,), 2: (1, 1), 3: (1, 2), 4: (2, 2), 5: (2, 1, 2), 6: (2, 2, 2),
         7: (2, 3, 2), 8: (3, 2, 3), 9: (3, 3, 3), 10: (3, 4, 3)}
_GRID = {1: (1,), 2: (2,), 3: (3,), 4: (2, 2), 5: (3, 2), 6: (3, 3), 7: (4, 3),
         8: (3, 2, 3), 9: (3, 3, 3), 10: (4, 3, 3)}


def _rows(counts: tuple[int, ...], spread: float) -> list[tuple[float, float]]:
    pts = []
    ny = len(counts)
    for i, k in enumerate(counts):
        y = 0.0 if ny == 1 else spread * (2 * i / (ny - 1) - 1)
        for j in range(k):
            x = 0.0 if k == 1 else spread * (2 * j / (k - 1) - 1) * (0.8 + 0.2 * (k > 2))
            pts.append((x, y))
    return pts


def _ring(n: int) -> list[tuple[float, float]]:
    if n == 1:
        return [(0.0, 0.0)]
    centre = n in (5, 7, 9)
    k = n - 1 if centre else n
    r = 0.56 if k > 2 else 0.42
    pts = [(r * math.sin(2 * math.pi * i / k), -r * math.cos(2 * math.pi * i / k))
           for i in range(k)]
    return pts + ([(0.0, 0.0)] if centre else [])


def _scatter(n: int, rng: np.random.Generator) -> list[tuple[float, float]]:
    if n == 1:
        return [(float(rng.uniform(-0.1, 0.1)), float(rng.uniform(-0.1, 0.1)))]
    best: list[tuple[float, float]] = []
    min_d = 1.25 / math.sqrt(n)
    for _ in range(400):
        p = rng.uniform(-0.62, 0.62, 2)
        if math.hypot(*p) > 0.62:
            continue
        if all(math.dist(p, q) >= min_d for q in best):
            best.append((float(p[0]), float(p[1])))
            if len(best) == n:
                return best
    # Too crowded for the seed: fall back on the ring so the count is always right.
    return _ring(n)


def pip_layout(n: int, kind: str, rng: np.random.Generator,
               gap: str = "") -> list[tuple[float, float, float, float]]:
    """``n`` pips as (x, y, radius, rotation in radians), all inside the unit disc."""
    if not 1 <= n <= 10:
        raise ValueError(f"a number card has 1..10 pips, got {n}")
    if kind == "traditional":
        pts = _rows(_ROWS[n], 0.5)
    elif kind == "grid":
        pts = _rows(_GRID[n], 0.52)
    elif kind == "ring":
        pts = _ring(n)
    elif kind == "scatter":
        pts = _scatter(n, rng)
    else:
        raise ValueError(f"unknown pip arrangement {kind!r}")
    arr = np.array(pts, dtype=np.float64)
    if n == 1:
        radius = 0.55
    else:
        # Grow the whole arrangement until the outermost pip touches the border.
        d = min(math.dist(a, b) for i, a in enumerate(arr) for b in arr[i + 1:])
        reach = max(math.hypot(*p) for p in arr)
        k = 0.95 / (reach + 0.52 * d)
        arr *= k
        radius = min(0.52 * d * k, 0.5)
    if gap in ("top", "bottom"):  # shrink away from an index numeral at the top or bottom
        arr = arr * 0.74 + [0.0, 0.2 if gap == "top" else -0.2]
        radius *= 0.74
    elif gap == "corners":  # keep clear of the two corner numerals
        arr = arr * 0.64
        radius *= 0.64
    out = []
    for x, y in arr:
        rot = math.atan2(x, -y) if kind == "ring" and (x or y) else 0.0
        if kind == "scatter":
            rot = float(rng.uniform(-0.5, 0.5))
        out.append((float(x), float(y), float(radius), rot))
    return out
