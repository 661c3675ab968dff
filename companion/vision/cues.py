"""Art-independent cues on a card crop: how many emblems it shows, and its colours.

Neither cue knows any deck's art. A deck profile records each enrolled card's pip count and
each suit's colour signature as measured here, so at recognition time a crop is compared
with what the same measurement gave on the user's own cards; that keeps the cues honest for
decks that print one emblem and a numeral instead of N pips.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

INNER = 0.78  # the part of the disc inside the border, as a fraction of the radius
HUE_BINS, SAT_BINS = 12, 3


@lru_cache(maxsize=4)
def _inner_mask(n: int, frac: float = INNER) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - (n - 1) / 2
    mask = np.hypot(xx, yy) <= frac * n / 2
    mask.flags.writeable = False  # shared by every caller
    return mask


def _median_of_bytes(values: np.ndarray) -> float:
    """np.median of uint8 values, from their histogram: the same number, several times
    faster than sorting a few thousand of them."""
    cum = np.cumsum(np.bincount(values, minlength=256))
    n = int(cum[-1])
    lo = int(np.searchsorted(cum, (n - 1) // 2 + 1))
    hi = int(np.searchsorted(cum, n // 2 + 1))
    return (lo + hi) / 2


def pip_count(crop: np.ndarray, max_count: int = 12) -> int:
    """The number of separate emblem blobs on the disc's field (0 when none stand out).

    The field is the crop's dominant colour inside the border; emblem pixels differ from it
    clearly in Lab. Blobs much smaller than the largest are dirt, numerals or details.
    """
    n = crop.shape[0]
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 1.0), cv2.COLOR_BGR2LAB)
    mask = _inner_mask(n)
    dist = None
    for c in range(3):  # the squares summed channel by channel, as np.linalg.norm does
        plane = lab[..., c]
        d = plane.astype(np.float32) - np.float32(_median_of_bytes(plane[mask]))
        dist = d * d if dist is None else dist + d * d
    dist = np.sqrt(dist)
    fg = ((dist > max(18.0, np.percentile(dist[mask], 50) * 1.5)) & mask).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    _count, _, stats, _ = cv2.connectedComponentsWithStats(fg, connectivity=8)
    areas = stats[1:, cv2.CC_STAT_AREA]
    if len(areas) == 0:
        return 0
    big = areas[areas >= max(12, 0.25 * areas.max())]
    return int(min(len(big), max_count))


def colour_signature(crop: np.ndarray) -> np.ndarray:
    """A normalised hue x saturation histogram of the inner disc (36 floats, sum 1)."""
    n = crop.shape[0]
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    mask = _inner_mask(n).astype(np.uint8)
    hist = cv2.calcHist([hsv], [0, 1], mask, [HUE_BINS, SAT_BINS], [0, 180, 0, 256])
    hist = hist.ravel().astype(np.float32)
    return hist / max(float(hist.sum()), 1.0)


def signature_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hellinger distance (0 same .. 1 disjoint) between signatures; broadcasts over rows."""
    bc = np.sum(np.sqrt(np.clip(a, 0, None) * np.clip(b, 0, None)), axis=-1)
    return np.sqrt(np.clip(1.0 - bc, 0.0, 1.0))


def sharpness(crops: np.ndarray) -> np.ndarray:
    """(N,) how much detail each crop's centre keeps: the variance of its (lightly
    smoothed) Laplacian over its own variance, so that blur lowers it and dim light alone
    does not."""
    out = []
    for crop in crops:
        n = crop.shape[0]
        g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)[n // 6:-n // 6, n // 6:-n // 6]
        g = cv2.GaussianBlur(g.astype(np.float32), (0, 0), 1.0)  # camera noise is not detail
        out.append(cv2.Laplacian(g, cv2.CV_32F).var() / (g.var() + 1.0))
    return np.array(out)
