"""The evidence that a circle in the table view is a card: how much of its rim shows a
radial edge, how much of each disc lies under another, and where the card on top of a
small stack lies when the circle voted for is the one beneath, and where a circle whose rim
is faint lies (:mod:`companion.vision.detect`)."""

from __future__ import annotations

import numpy as np

N_RIM = 72
_ANGLES = np.linspace(0, 2 * np.pi, N_RIM, endpoint=False)
COS, SIN = np.cos(_ANGLES), np.sin(_ANGLES)


def disc_samples(n: int = 400, seed: int = 7) -> np.ndarray:
    """Fixed, evenly spread points inside the unit disc (for area fractions)."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-1, 1, (n * 2, 2))
    return pts[np.hypot(pts[:, 0], pts[:, 1]) <= 1.0][:n]


DISC = disc_samples()


def distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(N, M) distances between the points ``a`` (N, 2) and ``b`` (M, 2)."""
    return np.hypot(*(a[:, None, :] - b[None, :, :]).transpose(2, 0, 1))


def rim_support(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, centers: np.ndarray,
                 radius: float, slack: float, edge_thr: float) -> np.ndarray:
    """(N, K) bool: rim sample k of circle n sits on a radial edge (best of r-1..r+1).

    A real rim changes brightness the same way all round (say dark border to light mat),
    while a phantom circle pieced together from its neighbours' arcs does not, so support
    is counted for each polarity and the better one kept. All radii r-slack..r+slack are
    sampled in one go: (N, D, K) arrays, one gather per gradient image.
    """
    h, w = gx.shape
    if len(centers) == 0:
        return np.zeros((0, N_RIM), bool)
    key = (radius, slack)
    if key not in _RIM_OFFSETS:
        radii = radius + np.arange(-slack, slack + 1.0)  # (D,)
        _RIM_OFFSETS[key] = (radii[:, None] * COS[None], radii[:, None] * SIN[None])
    ox, oy = _RIM_OFFSETS[key]
    xs = centers[:, 0, None, None] + ox  # (N, D, K)
    ys = centers[:, 1, None, None] + oy
    xi = np.rint(xs).astype(np.intp)
    yi = np.rint(ys).astype(np.intp)
    # Circles whose rim reaches the image edge: clamp the index, and a sample off the
    # image counts as no edge. (Elsewhere every sample is inside and nothing to clamp.)
    reach = radius + slack + 1
    at_edge = (centers.min(axis=1) < reach) | (centers[:, 0] > w - 1 - reach) \
        | (centers[:, 1] > h - 1 - reach)
    if at_edge.any():
        clamp(xi, w - 1)
        clamp(yi, h - 1)
    flat = yi * w
    flat += xi
    radial = gx.ravel().take(flat) * COS
    radial += gy.ravel().take(flat) * SIN
    floor = np.maximum(0.8 * mag.ravel().take(flat), edge_thr, dtype=np.float64)
    strong = np.abs(radial) > floor  # above both the threshold and 0.8 of the magnitude
    if at_edge.any():
        e = np.flatnonzero(at_edge)
        xe, ye = xs[e], ys[e]
        strong[e] &= (xe >= 0) & (xe < w) & (ye >= 0) & (ye < h)
    rising = strong & (radial > 0)
    pos = rising.any(axis=1)
    neg = (strong ^ rising).any(axis=1)  # strong and falling (a strong edge is never 0)
    return np.where((pos.sum(1) >= neg.sum(1))[:, None], pos, neg)


_RIM_OFFSETS: dict[tuple[float, float], tuple[np.ndarray, np.ndarray]] = {}


_RIM_UNIT = np.stack([COS, SIN], 1)


def visible_fractions(centers: np.ndarray, radius: float, rims: np.ndarray) -> np.ndarray:
    """Fraction of each disc not under another card; the card on top keeps its rim."""
    n = len(centers)
    vis = np.ones(n)
    if n < 2:
        return vis
    dist = distances(centers, centers)
    ii, jj = np.nonzero(dist < 2 * radius)
    once = ii < jj  # each pair once, in row order
    ii, jj = ii[once], jj[once]
    if not len(ii):
        return vis
    # Rim samples of one card that lie inside the other: an unbroken rim there means that
    # card is on top. All overlapping pairs at once: (P, K) arrays.
    ci, cj = centers[ii][:, None], centers[jj][:, None]
    rim = radius * _RIM_UNIT
    in_j = np.hypot(*(ci + rim - cj).transpose(2, 0, 1)) < radius * 0.95
    in_i = np.hypot(*(cj + rim - ci).transpose(2, 0, 1)) < radius * 0.95
    n_in_j, n_in_i = in_j.sum(1), in_i.sum(1)
    i_shows = np.where(n_in_j > 0, (rims[ii] & in_j).sum(1) / np.maximum(n_in_j, 1), 0.0)
    j_shows = np.where(n_in_i > 0, (rims[jj] & in_i).sum(1) / np.maximum(n_in_i, 1), 0.0)
    j_top = j_shows > i_shows
    lower, upper = np.where(j_top, ii, jj), np.where(j_top, jj, ii)
    pts = centers[lower][:, None] + DISC * radius  # (P, 400, 2)
    covered = np.hypot(*(pts - centers[upper][:, None]).transpose(2, 0, 1)) < radius
    np.subtract.at(vis, lower, covered.mean(axis=1))  # in pair order, as one by one
    return np.clip(vis, 0.0, 1.0)


def clamp(idx: np.ndarray, hi: int) -> np.ndarray:
    """``np.clip(idx, 0, hi)`` in place (np.clip costs more than the work on small arrays)."""
    np.maximum(idx, 0, out=idx)
    return np.minimum(idx, hi, out=idx)


# A circle with at least this much of its rim on an edge is a whole card: one with less
# may be the card beneath a stack's top card, which is then looked for (covering_circles).
WHOLE_RIM = 0.9
# How far from a partly hidden circle the top card's centre is looked for, in radii: two
# cards a third of a diameter or less apart are one stack (detect._find_circles), and the
# fixture scenes' missed top cards lay 13-19 mm (0.4-0.6 radii) off the circle kept.
COVER_REACH = 0.7


def _grid(reach: float, step: int) -> np.ndarray:
    """(K, 2) offsets on a ``step``-pixel grid within ``reach`` pixels."""
    r = int(reach)
    g = np.arange(-r, r + 1, step, dtype=np.float64)
    pts = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    return pts[np.hypot(pts[:, 0], pts[:, 1]) <= reach]


def covering_circles(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, centers: np.ndarray,
                     radius: float, slack: float, edge_thr: float
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centres, rim support, rims) of whole cards (``WHOLE_RIM``) found near partly
    hidden circles, one at most for each: the best-supported centre within
    ``COVER_REACH`` radii, searched on a 4-pixel grid and then to the pixel around the best
    (a rim sample off the image counts as no edge).

    Hough votes for the card beneath a small stack as strongly as for the one on top (both
    rims cross the same edges) and can put no centre on the top card at all. The stack
    suppression then keeps the card beneath, whose rim is partly hidden, and the whole card
    lying on it is missed: most of the whole cards missed on the fixture scenes."""
    if not len(centers):
        return np.zeros((0, 2)), np.zeros(0), np.zeros((0, N_RIM), bool)
    best, best_scores, best_rims = _best_nearby(
        gx, gy, mag, centers, radius, slack, edge_thr,
        (_grid(radius * COVER_REACH, 4), _grid(3.0, 1)))
    whole = best_scores >= WHOLE_RIM
    return best[whole], best_scores[whole], best_rims[whole]


# coarse then fine: a 5x5 grid 2 px apart, then the 8 pixels round the best of it
_COARSE = np.array([(dx, dy) for dx in (-4, -2, 0, 2, 4) for dy in (-4, -2, 0, 2, 4)], float)
_FINE = np.array([(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)], float)


def recentred(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, centers: np.ndarray,
               radius: float, slack: float, edge_thr: float) -> tuple[np.ndarray, np.ndarray]:
    """Each centre moved to the spot within 5 px whose circle has the most rim support, and
    that circle's rim samples.

    Hough's peak is a few pixels off the true centre where the rim is faint: a pale card
    on the pale mat, half in a hand's shadow, had its best Hough circle at 0.54-0.60 of
    its rim, the circle 3 px and 5 px away at 0.67. It went unseen for 27 frames while it
    lay there, was taken for gone, and the trick was never completed."""
    centers, _, found = _best_nearby(gx, gy, mag, centers, radius, slack, edge_thr,
                                     (_COARSE, _FINE))
    return centers, found


def _best_nearby(gx: np.ndarray, gy: np.ndarray, mag: np.ndarray, centers: np.ndarray,
                 radius: float, slack: float, edge_thr: float, grids
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(centres, rim support, rims): each centre moved to the best-supported circle among
    its offsets on each grid in turn (coarse, then round the best of it)."""
    best = centers
    for offsets in grids:
        cand = (best[:, None, :] + offsets[None]).reshape(-1, 2)  # (W * K, 2)
        rims = rim_support(gx, gy, mag, cand, radius, slack, edge_thr)
        scores = rims.mean(axis=1).reshape(len(centers), -1)
        pick = np.arange(len(centers)) * len(offsets) + scores.argmax(axis=1)
        best, best_scores, best_rims = cand[pick], scores.max(axis=1), rims[pick]
    return best, best_scores, best_rims
