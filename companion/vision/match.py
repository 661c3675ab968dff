"""Comparing a camera crop of a card with a reference picture of it, whatever its turn.

Enrolment (:mod:`companion.vision.enroll`) builds on these: polar templates matched over
every rotation at once, a crop re-centred on the card's rim, and a crop turned, scaled and
shifted onto a reference so that a small region (a numeral, a pip) can be compared in place.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.lib.stride_tricks import as_strided

POLAR_ANGLES, POLAR_RADII = 96, 28


def polar_templates(crops: np.ndarray) -> np.ndarray:
    """(N, 96, 96, 3) BGR -> (N, 3, A, R) Lab polar images, each channel zero-mean unit-norm."""
    out = np.empty((len(crops), 3, POLAR_ANGLES, POLAR_RADII), np.float32)
    for i, crop in enumerate(crops):
        n = crop.shape[0]
        lab = cv2.cvtColor(cv2.GaussianBlur(crop, (0, 0), 1.2), cv2.COLOR_BGR2LAB)
        polar = cv2.warpPolar(lab.astype(np.float32), (POLAR_RADII, POLAR_ANGLES),
                              ((n - 1) / 2, (n - 1) / 2), 0.9 * n / 2,
                              cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR)
        p = polar.transpose(2, 0, 1)  # (3, A, R)
        p = p - p.mean(axis=(1, 2), keepdims=True)
        p /= np.linalg.norm(p.reshape(3, -1), axis=1)[:, None, None] + 1e-3
        out[i] = p
    return out


def polar_spectra(templates: np.ndarray) -> np.ndarray:
    """The templates' half of :func:`polar_similarity_to`, (F, M, 3 * R) conjugate spectra
    over the angle: the same for every crop, so a deck profile makes it once."""
    tf = np.fft.rfft(templates, axis=2)
    return np.conj(tf.transpose(2, 0, 1, 3).reshape(tf.shape[2], len(templates), -1))


def polar_similarity_to(query: np.ndarray, spectra: np.ndarray) -> np.ndarray:
    """Best normalised correlation over all rotations of each query (N, 3, A, R) with each
    of M templates given by their :func:`polar_spectra`: (N, M)."""
    n, m = len(query), spectra.shape[1]
    if n == 0 or m == 0:
        return np.zeros((n, m), np.float32)
    qf = np.fft.rfft(query, axis=2)  # (N, 3, F, R)
    # For every frequency, one complex matmul over (channel, radius).
    q = qf.transpose(2, 0, 1, 3).reshape(qf.shape[2], n, -1)
    cross = q @ spectra.transpose(0, 2, 1)  # (F, N, M)
    corr = np.fft.irfft(cross.transpose(1, 2, 0), n=POLAR_ANGLES, axis=2)
    return (corr.max(axis=2) / 3.0).astype(np.float32)


def recentre(crop: np.ndarray) -> np.ndarray:
    """The crop shifted so that the card's rim circle is centred in it.

    The detector's crop can be a few per cent off centre. The rotation-invariant
    comparisons here turn the crop about its centre, so an off-centre crop moves a rim
    numeral along a wrong circle. That cost the most under camera jitter: 65% of
    off-centre crops read right, 98% once centred. The crop is kept as it is when no rim
    is found near the expected radius, or when the circle found is implausibly far off.
    """
    n = crop.shape[0]
    g = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), (0, 0), 1.5)
    found = cv2.HoughCircles(g, cv2.HOUGH_GRADIENT, dp=1, minDist=n, param1=60, param2=15,
                             minRadius=int(0.40 * n), maxRadius=int(0.54 * n))
    if found is None:
        return crop
    x, y, _ = found[0][0]
    dx, dy = (n - 1) / 2 - x, (n - 1) / 2 - y
    if np.hypot(dx, dy) > 0.1 * n:
        return crop
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(crop, shift, (n, n), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def grey(crop: np.ndarray) -> np.ndarray:
    """Grey, lightly blurred, and contrast-normalised locally so that a shadow edge or a
    dim corner changes little: (g - local mean) / local spread."""
    g = cv2.GaussianBlur(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    mean = cv2.GaussianBlur(g, (0, 0), 5.0)
    d = g - mean
    spread = np.sqrt(cv2.GaussianBlur(d * d, (0, 0), 5.0))
    return d / (spread + 4.0)


def local_matches(aligned: np.ndarray, patches: list[np.ndarray], box, search: int = 5
                  ) -> np.ndarray:
    """For each card: the best correlation (cv2's TM_CCOEFF_NORMED) of its ``box`` region
    (``patches``, from :func:`region_patches`) within a few pixels of where it should be
    in the aligned crop, since residual perspective and scale move a rim numeral. One
    matrix product per scale for the whole suit, where matching each card's region on its
    own cost 24 OpenCV calls a crop."""
    y0, y1, x0, x1 = box
    n = aligned.shape[0]
    area = aligned[max(0, y0 - search):min(n, y1 + search), max(0, x0 - search):min(n, x1 + search)]
    best = np.full(len(patches[0]), -1.0, np.float32)
    # With zero-mean templates a window's own mean drops out of the product; only its
    # spread is needed, from sums over each window (integral images, one for all scales).
    sums = cv2.integral(area, sdepth=cv2.CV_64F), cv2.integral(area * area, sdepth=cv2.CV_64F)
    for t in patches:
        h, w = t.shape[1:]
        if h > area.shape[0] or w > area.shape[1]:
            continue
        dot = _windows(area, h, w) @ t.reshape(len(t), -1).T
        total, squares = (_window_sums(s, h, w) for s in sums)
        spread = np.sqrt(np.maximum(squares - total * total / (h * w), 1e-12))
        best = np.maximum(best, (dot / spread[:, None]).max(axis=0))
    return best


def _windows(image: np.ndarray, h: int, w: int) -> np.ndarray:
    """Every h x w window of a 2-D image (a view is fine), one row each, row-major (a copy)."""
    rows, cols = image.shape[0] - h + 1, image.shape[1] - w + 1
    step_y, step_x = image.strides
    view = as_strided(image, (rows, cols, h, w), (step_y, step_x, step_y, step_x),
                      writeable=False)
    return view.reshape(rows * cols, h * w)


@dataclass(frozen=True)
class Region:
    """Where a suit's cards differ, ready to match a crop against: the ``box`` and each
    card's ``patches`` (:func:`region_patches`), at full resolution or, for a box larger
    than :data:`HALF_RES_ABOVE` on a side, at half (``step`` 2)."""

    box: tuple[int, int, int, int]
    patches: list[np.ndarray]
    step: int = 1

    @classmethod
    def of(cls, templates: np.ndarray, box) -> Region:
        """A deck whose number cards differ by pips all over the disc (our own art) has a
        box as large as the disc; matched at full resolution it cost 5-8 ms a call, three
        calls a suit, where a numeral's box costs 0.5. Pips are large: half the resolution
        still tells their counts apart (0.45 ms)."""
        y0, y1, x0, x1 = box
        if max(y1 - y0, x1 - x0) <= HALF_RES_ABOVE:
            return cls(tuple(box), region_patches(templates, box))
        half = np.stack([cv2.pyrDown(t) for t in templates])
        hbox = (y0 // 2, (y1 + 1) // 2, x0 // 2, (x1 + 1) // 2)
        return cls(hbox, region_patches(half, hbox), 2)

    def matches(self, aligned: np.ndarray, search: int = 5) -> np.ndarray:
        """:func:`local_matches` of an aligned grey crop, at the region's resolution."""
        if self.step == 2:
            return local_matches(cv2.pyrDown(aligned), self.patches, self.box,
                                 (search + 1) // 2)
        return local_matches(aligned, self.patches, self.box, search)


HALF_RES_ABOVE = 48


def region_patches(templates: np.ndarray, box) -> list[np.ndarray]:
    """The ``box`` region of each template (K, 96, 96) at each of :data:`LOCAL_SCALES`,
    zero-mean and unit-norm: (K, h, w) per scale. The same for every crop, so a profile
    makes them once per suit."""
    y0, y1, x0, x1 = box
    out = []
    for sc in LOCAL_SCALES:
        patches = templates[:, y0:y1, x0:x1]
        if sc != 1.0:
            patches = np.stack([cv2.resize(p, None, fx=sc, fy=sc, interpolation=cv2.INTER_LINEAR)
                                for p in patches])
        t = patches - patches.mean(axis=(1, 2), keepdims=True)
        t /= np.maximum(np.sqrt((t * t).sum(axis=(1, 2), keepdims=True)), 1e-6)
        out.append(t.astype(np.float32))
    return out


def _window_sums(integral: np.ndarray, h: int, w: int) -> np.ndarray:
    """The sum over every h x w window of an image, row-major, from its integral image."""
    return (integral[h:, w:] - integral[:-h, w:] - integral[h:, :-w]
            + integral[:-h, :-w]).ravel()


def rotated(img: np.ndarray, degrees: float, shift=(0.0, 0.0), scale: float = 1.0
             ) -> np.ndarray:
    n = img.shape[0]
    m = cv2.getRotationMatrix2D(((n - 1) / 2, (n - 1) / 2), degrees, scale)
    m[:, 2] += shift
    return cv2.warpAffine(img, m, (n, n), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


LOCAL_SCALES = (0.92, 1.0, 1.08)
ALIGN_SCALES = (0.93, 0.97, 1.0, 1.03, 1.07)


def align(query: np.ndarray, ref: np.ndarray, search: int = 5) -> np.ndarray:
    """``query`` (grey) turned, scaled and shifted to best match ``ref``: the angle from the
    polar correlation of the two, then a small scale and shift search
    (the detector's crop can be a few per cent off in size and centre)."""
    return next(align_candidates(query, ref, 1, search))


def align_colour(crop: np.ndarray, ref: np.ndarray, search: int = 5) -> np.ndarray:
    """A BGR ``crop`` turned, scaled and shifted as :func:`align` turns its :func:`grey`
    onto ``ref`` (a grey)."""
    angle, shift, scale = next(_alignments(grey(crop), ref, 1, search))
    return rotated(crop, angle, shift, scale)


def align_candidates(query: np.ndarray, ref: np.ndarray, k: int = 3, search: int = 5
                     ) -> Iterator[np.ndarray]:
    """Up to ``k`` alignments of ``query`` onto ``ref``, best image match first: one per
    candidate angle (the highest peaks of the polar correlation)."""
    for angle, shift, scale in _alignments(query, ref, k, search):
        yield rotated(query, angle, shift, scale)


def _alignments(query: np.ndarray, ref: np.ndarray, k: int, search: int
                ) -> Iterator[tuple[float, tuple[int, int], float]]:
    """The (angle, shift, scale) of :func:`align_candidates`' alignments, lazily.

    Symmetric emblems correlate almost as well half a turn (or a quarter) away, and when
    the cards of a suit differ only in a small rim numeral the whole-image match cannot
    tell those turns apart; the caller compares the numeral in each.

    The angle and scale are chosen at half resolution (4x cheaper), the shift at full. The
    scale is the crop's own (the detector's radius a few per cent off), the same at every
    turn, so it is searched at the best turn only: 9 of OpenCV's ``matchTemplate`` calls
    rather than 15 at half resolution (each costs the same whatever the search area).
    """
    qp = grey_polar(query)
    rp = grey_polar(ref)
    corr = np.fft.irfft(np.fft.rfft(qp, axis=0) * np.conj(np.fft.rfft(rp, axis=0)),
                        n=POLAR_ANGLES, axis=0).sum(axis=1)
    q_half, r_half = cv2.pyrDown(query), cv2.pyrDown(ref)
    h = max(2, search // 2 + 1)
    core_half = r_half[h:-h, h:-h]

    def fit(angle: float, sc: float) -> tuple[float, float, float]:
        res = cv2.matchTemplate(rotated(q_half, angle, scale=sc), core_half,
                                cv2.TM_CCOEFF_NORMED)
        return float(res.max()), angle, sc

    found = sorted((fit(a, 1.0) for a in peak_angles(corr, 3)), reverse=True)
    found[0] = max([found[0]] + [fit(found[0][1], sc) for sc in ALIGN_SCALES if sc != 1.0])
    scale = found[0][2]
    core = ref[search:-search, search:-search]
    for _, angle, _ in found[:k]:  # lazily: align() wants only the first
        res = cv2.matchTemplate(rotated(query, angle, scale=scale), core, cv2.TM_CCOEFF_NORMED)
        _, _, _, loc = cv2.minMaxLoc(res)
        yield angle, (search - loc[0], search - loc[1]), scale


def peak_angles(corr: np.ndarray, k: int) -> list[float]:
    """The angles (degrees, sub-bin) of the ``k`` highest circular local maxima of ``corr``."""
    a = len(corr)
    left, right = np.roll(corr, 1), np.roll(corr, -1)
    peaks = np.flatnonzero((corr >= left) & (corr >= right))
    peaks = peaks[np.argsort(-corr[peaks])][:k]
    out = []
    for p in peaks:
        y0, y1, y2 = corr[p - 1], corr[p], corr[(p + 1) % a]
        den = y0 - 2 * y1 + y2
        frac = 0.5 * (y0 - y2) / den if den != 0 else 0.0
        out.append(float((p + frac) * 360.0 / a))
    return out


def grey_polar(g: np.ndarray) -> np.ndarray:
    n = g.shape[0]
    p = cv2.warpPolar(g, (POLAR_RADII, POLAR_ANGLES), ((n - 1) / 2, (n - 1) / 2), 0.9 * n / 2,
                      cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR)
    p = p - p.mean()
    return p / (np.linalg.norm(p) + 1e-3)


_FIGURE = np.hypot(*(np.mgrid[0:96, 0:96] - 47.5)) <= 0.85 * 48  # inside the rim


def figure_match(crop: np.ndarray, reference: np.ndarray) -> float:
    """Correlation of a 96 px BGR crop, re-centred and aligned, with a card's :func:`grey`
    over the whole disc inside the rim (which any card matches)."""
    return disc_correlation(align(grey(recentre(crop)), reference), reference)


def disc_correlation(a: np.ndarray, b: np.ndarray, inside: np.ndarray = _FIGURE) -> float:
    """The correlation of two aligned greys over the pixels ``inside`` (the disc inside
    the rim)."""
    a, b = a[inside], b[inside]
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / (np.linalg.norm(a) * np.linalg.norm(b) + 1e-6))


def channel_correlations(crop: np.ndarray, ranked: np.ndarray, inside: np.ndarray = _FIGURE
                         ) -> np.ndarray:
    """(K,) the mean over B, G and R of the rank correlation of an aligned BGR uint8
    ``crop`` with each of K pictures given by their :func:`channel_ranks`, over the pixels
    ``inside``.

    Each channel is compared on its own, by ranks, so whatever a light's colour, a camera's
    white balance or its tone curve does to a channel (as long as a brighter pixel stays
    brighter) changes nothing, while a ground of another colour behind the same figure
    does: it no longer stands among the figure's colours where the crop's does."""
    a = channel_ranks(crop[None], inside)[0]  # (P, 3)
    return np.einsum("pc,kpc->k", a, ranked) / 3.0


def channel_ranks(pictures: np.ndarray, inside: np.ndarray = _FIGURE) -> np.ndarray:
    """(K, P, 3) float32: the pictures' (K, n, n, 3) uint8 pixels ``inside``, each channel
    replaced by its values' ranks, zero-mean and unit-norm (a deck profile keeps its
    courts' once)."""
    r = _mid_ranks(pictures[:, inside])
    r -= r.mean(axis=1, keepdims=True)
    return r / (np.linalg.norm(r, axis=1, keepdims=True) + 1e-6)


def _mid_ranks(values: np.ndarray) -> np.ndarray:
    """(K, P, C) uint8 -> float32: each value's rank among its own (k, channel)'s P
    values, ties sharing their mean rank (a flat ground is one tie, not an arbitrary
    order)."""
    k, _, c = values.shape
    out = np.empty(values.shape, np.float32)
    for i in range(k):
        for ch in range(c):
            v = values[i, :, ch]
            counts = np.bincount(v, minlength=256)
            below = np.cumsum(counts) - counts
            out[i, :, ch] = (below + (counts + 1) / 2.0)[v]
    return out
