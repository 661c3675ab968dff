"""Round-card detection in the rectified, top-down table view.

After calibration the table is a flat map in millimetres where every card is a circle of
one known diameter (``Mat.card_diameter_mm``). That turns detection into a narrow search:
a circular Hough transform at a single radius finds candidate centres (partial arcs vote
too, so touching and overlapping cards are found), and each candidate is then checked
against the image: how much of its rim shows a radial edge (a candidate a little under the
bar is searched for a few pixels round: a faint rim puts Hough's peak off the card's
centre). That rim support is also the visible fraction; where two cards overlap, the one
whose rim runs unbroken through the overlap is on top. Candidates closer than a third of a diameter are one stack, of which
only the top (best supported) card is kept; where the one kept has its rim partly hidden,
a whole card lying on it is looked for nearby, since Hough can put no centre on it. A hand
or arm is rejected because it is plain inside the circle and carries on beyond it, while a
card has art and ends at its rim (and a circle whose whole rim is an edge is a card: a
palm's outline is no circle); a printed zone ring is rejected because it has plain mat
inside.

Detection runs on a small rectified view (``px_per_mm`` ~0.6), its mat first brought to a
lit mat's grey, as one or under a shadow place by place (:mod:`companion.vision.exposure`);
the 96x96 crops for the classifier are sampled straight from the camera frame through the
composed homography, so they keep the camera's full resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.layouts import Mat, load_mat
from companion.vision import looks
from companion.vision.calibration import Calibration
from companion.vision.exposure import even_exposure, lit, mat_gain
from companion.vision.rims import (
    WHOLE_RIM,
    covering_circles,
    distances,
    recentred,
    rim_support,
    visible_fractions,
)

CROP_SIZE = 96
# At least this much of a circle's rim on an edge: a card, never a hand (_find_circles).
RIM_OF_A_CARD = 0.97


@dataclass(frozen=True)
class Detections:
    """Cards found in one frame, as parallel arrays (one row per card)."""

    centers_mm: np.ndarray  # (N, 2) table mm; NaN when there is no calibration
    centers_px: np.ndarray  # (N, 2) in the original camera image
    radii_px: np.ndarray  # (N,) in the original camera image
    visible: np.ndarray  # (N,) fraction of the card not covered by other cards, 0..1
    crops: np.ndarray  # (N, 96, 96, 3) uint8 BGR: the disc centred, diameter = crop width
    scores: np.ndarray  # (N,) fraction of the rim with a clear edge (1.0: the whole rim)

    def __len__(self) -> int:
        return len(self.scores)

    @classmethod
    def empty(cls, crop_size: int = CROP_SIZE) -> Detections:
        z = np.zeros((0, 2))
        return cls(z, z.copy(), np.zeros(0), np.zeros(0),
                   np.zeros((0, crop_size, crop_size, 3), np.uint8), np.zeros(0))


@dataclass(frozen=True)
class _Candidates:
    centers: np.ndarray  # (N, 2) px in the search image
    radius: float  # px in the search image
    scores: np.ndarray  # rim support
    visible: np.ndarray


def _find_circles(gray: np.ndarray, hand_check: np.ndarray | None, radius: float,
                  min_score: float, canny_high: float, min_votes: float,
                  exclude: Callable[[np.ndarray], np.ndarray] | None = None,
                  colour: np.ndarray | None = None, slack: float = 1.0,
                  covering: bool = True, near_misses: bool = True) -> _Candidates:
    """Hough at one radius, rim verification, stack suppression (and the card on top of a
    stack whose kept circle is partly hidden: :func:`rims.covering_circles`), occlusion
    order.

    ``near_misses``: a circle a little under the bar is searched for round its centre
    (``recentred``). The per-candidate filters (``exclude``, rim support >= ``min_score``,
    ``looks.hollow``) are independent of each other, so the cheap ones run first and the colour
    test last, only on circles the suppression would keep. Ties in rim support go to the
    stronger Hough peak (HoughCircles lists its circles by votes; the sort is stable).
    """
    blur = cv2.GaussianBlur(gray, (5, 5), 1.2)
    circles = cv2.HoughCircles(blur, cv2.HOUGH_GRADIENT, dp=1, minDist=2.0,
                               param1=canny_high, param2=min_votes,
                               minRadius=int(radius * 0.93), maxRadius=math.ceil(radius * 1.07))
    if circles is None:
        return _Candidates(np.zeros((0, 2)), radius, np.zeros(0), np.zeros(0))
    centers = circles[0, :, :2].astype(np.float64)
    if exclude is not None and len(centers):
        centers = centers[~exclude(centers)]
    gx = cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    edge_thr = max(20.0, canny_high * 0.5)
    rims = rim_support(gx, gy, mag, centers, radius, slack, edge_thr)
    scores = rims.mean(axis=1)
    near = _near_misses(centers, scores, radius, min_score) if near_misses else ()
    if len(near):
        centers[near], rims[near] = recentred(gx, gy, mag, centers[near], radius, slack,
                                              edge_thr)
        scores[near] = rims[near].mean(axis=1)
    ok = scores >= min_score
    centers, scores, rims = centers[ok], scores[ok], rims[ok]
    keep = _stack_tops(centers, scores, radius, colour)
    weak = _unexplained(centers[keep], scores[keep], radius) if covering else []
    if len(weak):  # the card beneath a stack, kept for want of a centre on the card on top
        weak = [keep[i] for i in weak]
        top, top_scores, top_rims = covering_circles(gx, gy, mag, centers[weak], radius,
                                                      slack, edge_thr)
        if len(top):
            centers = np.vstack([centers, top])
            scores = np.concatenate([scores, top_scores])
            rims = np.vstack([rims, top_rims])
            keep = _stack_tops(centers, scores, radius, colour)
    centers, scores, rims = centers[keep], scores[keep], rims[keep]
    if hand_check is not None and len(centers):
        # A palm's outline is no circle (fingers and the wrist break it): a circle with its
        # whole rim on an edge is a card, however plain. The hand test took pale cards
        # beside an arm for palms (4 whole cards on the fixture scenes; 3 are found now).
        ok = scores >= RIM_OF_A_CARD
        if not ok.all():
            ok[~ok] = ~looks.hand_like(centers[~ok], radius, hand_check)
        centers, scores, rims = centers[ok], scores[ok], rims[ok]
    visible = visible_fractions(centers, radius, rims)
    return _Candidates(centers, radius, scores, visible)


# Rim support this far below the bar: the circle is searched for nearby (``recentred``)
NEAR_MISS = 0.1


def _near_misses(centers: np.ndarray, scores: np.ndarray, radius: float,
                 min_score: float) -> np.ndarray:
    """Indices of the circles just under the bar worth searching round: one of each bunch
    3 px apart (they would find the same circle), and none on a circle over the bar (its
    stack's top would take them out: the art inside a card gives Hough many centres, and
    searching round each of them cost 1-3 ms a frame on a table of 20 cards)."""
    near = np.flatnonzero((scores < min_score) & (scores >= min_score - NEAR_MISS))
    over = centers[scores >= min_score]
    if len(near) and len(over):
        near = near[(distances(centers[near], over) > radius * 0.66).all(axis=1)]
    if len(near) < 2:
        return near
    near = near[np.argsort(-scores[near], kind="stable")]
    close = distances(centers[near], centers[near]) <= 3.0
    keep = np.ones(len(near), bool)
    for i in range(len(near)):
        if keep[i]:
            keep[i + 1:] &= ~close[i, i + 1:]
    return near[keep]


def _unexplained(centers: np.ndarray, scores: np.ndarray, radius: float) -> np.ndarray:
    """Indices of the circles whose rim is partly hidden (below ``WHOLE_RIM``) with no
    other circle over it: on the 20-card table the partly hidden cards lie under a
    neighbour found already, and looking for a card on top of each of them cost 1.3 ms."""
    weak = np.flatnonzero(scores < WHOLE_RIM)
    if not len(weak) or len(centers) < 2:
        return weak
    d = distances(centers[weak], centers)
    d[np.arange(len(weak)), weak] = np.inf
    return weak[(d >= 2 * radius).all(axis=1)]


def _stack_tops(centers: np.ndarray, scores: np.ndarray, radius: float,
                colour: np.ndarray | None) -> list[int]:
    """Stack suppression: best supported first, each kept circle takes its neighbours out.
    A hollow circle (zone ring) is dropped before it can take anything out; the colour test
    runs only on circles that would be kept, again until every kept one passed it (same
    result as testing every candidate first, at a quarter of the cost)."""
    order = np.argsort(-scores, kind="stable").tolist()
    near = distances(centers, centers) <= radius * 0.66
    hollow = np.zeros(len(centers), bool)
    checked = np.full(len(centers), colour is None)
    while True:
        keep: list[int] = []
        taken = hollow.copy()  # hollow, or near a card already kept
        for i in order:
            if not taken[i]:
                keep.append(i)
                taken |= near[i]
        todo = [i for i in keep if not checked[i]]
        if not todo:
            return keep
        checked[todo] = True
        found = looks.hollow(centers[todo], radius, colour, centers[keep])
        if not found.any():
            return keep  # no change to what is kept
        hollow[todo] = found


def _crops(image: np.ndarray, crop_to_image: list[np.ndarray], size: int) -> np.ndarray:
    out = np.empty((len(crop_to_image), size, size, 3), np.uint8)
    into = image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    for k, m in enumerate(crop_to_image):
        # a BGR frame is warped straight into its row of ``out`` (no copy per crop)
        crop = cv2.warpPerspective(image, m, (size, size), dst=out[k] if into else None,
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
        if not into:
            out[k] = crop
    return out


class CardDetector:
    """Finds round cards on the calibrated table: ``detect(image, calibration)``."""

    def __init__(self, mat: Mat | None = None, px_per_mm: float = 0.6,
                 crop_size: int = CROP_SIZE, min_score: float = 0.6,
                 reject_hands: bool = True, canny_high: float = 60.0,
                 min_votes: float = 12.0):
        self.mat = mat or load_mat()
        self.px_per_mm = px_per_mm
        self.crop_size = crop_size
        self.min_score = min_score
        self.reject_hands = reject_hands
        self.canny_high = canny_high
        self.min_votes = min_votes
        self.card_radius_mm = self.mat.card_diameter_mm / 2

    def _on_marker(self, centers: np.ndarray) -> np.ndarray:
        """Circles centred on a mat marker are the marker's square, never a card."""
        reach = (self.mat.marker_size_mm / 2 + 12) * self.px_per_mm
        key = (id(self.mat), self.px_per_mm)
        cached = getattr(self, "_marks_cache", None)
        if cached is None or cached[0] != key:
            marks = np.array([m.center_mm for m in self.mat.markers], np.float64).reshape(-1, 2)
            cached = self._marks_cache = (key, marks * self.px_per_mm)
        marks = cached[1]
        if not len(marks):
            return np.zeros(len(centers), bool)
        return (np.abs(centers[:, None] - marks[None]).max(axis=2) < reach).any(axis=1)

    def _inverse(self, cal: Calibration) -> np.ndarray:
        """``cal.inverse``, inverted once per calibration rather than once per frame."""
        key = cal.homography.tobytes()
        cached = getattr(self, "_inv_cache", None)  # one attribute: safe across threads
        if cached is None or cached[0] != key:
            cached = self._inv_cache = (key, cal.inverse)
        return cached[1]

    def view_size(self, cal: Calibration) -> tuple[int, int]:
        w, h = cal.table_size_mm
        return round(w * self.px_per_mm), round(h * self.px_per_mm)

    def rectify_matrix(self, cal: Calibration) -> np.ndarray:
        """Image px -> rectified-view px."""
        s = np.diag([self.px_per_mm, self.px_per_mm, 1.0])
        return s @ cal.homography

    def rectify(self, image: np.ndarray, cal: Calibration) -> np.ndarray:
        return cv2.warpPerspective(image, self.rectify_matrix(cal), self.view_size(cal),
                                   flags=cv2.INTER_LINEAR)

    def detect(self, image: np.ndarray, cal: Calibration,
               view: np.ndarray | None = None) -> Detections:
        """``view``: the rectified frame if the caller already made it (the pipeline does)."""
        if view is None:
            view = self.rectify(image, cal)
        gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
        radius = self.card_radius_mm * self.px_per_mm
        gain = mat_gain(gray, radius)
        if gain is None:  # even light: the colour tests' bars are the unbrightened view's
            gray, colour = even_exposure(gray), view
        else:
            gray, colour = lit(gray, gain), lit(view, gain)
        cand = _find_circles(gray, colour if self.reject_hands else None, radius,
                             self.min_score, self.canny_high, self.min_votes, self._on_marker,
                             colour)
        if not len(cand.scores):
            return Detections.empty(self.crop_size)
        centers_mm = cand.centers / self.px_per_mm
        r = self.card_radius_mm
        inv = self._inverse(cal)  # table mm -> camera px
        n = len(centers_mm)
        pts = np.concatenate([centers_mm, centers_mm + [r, 0], centers_mm + [0, r]])
        px = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), inv).reshape(-1, 2)
        centers_px, ex, ey = px[:n], px[n:2 * n], px[2 * n:]
        radii_px = (np.linalg.norm(ex - centers_px, axis=1)
                    + np.linalg.norm(ey - centers_px, axis=1)) / 2
        step = 2 * r / self.crop_size
        # crop px -> table mm (the disc spans the crop) -> camera px, for all cards at once
        a = np.zeros((n, 3, 3))
        a[:, 0, 0] = a[:, 1, 1] = step
        a[:, :2, 2] = centers_mm - r + step / 2
        a[:, 2, 2] = 1.0
        mats = list(np.matmul(inv, a))
        return Detections(centers_mm, centers_px, radii_px, cand.visible,
                          _crops(image, mats, self.crop_size), cand.scores)


def slack_px(radius: float) -> int:
    return max(1, round(radius * 0.06))


def detect_unrectified(image: np.ndarray, min_radius_px: float | None = None,
                       max_radius_px: float | None = None, crop_size: int = CROP_SIZE,
                       min_score: float = 0.6, work_size: int = 640) -> Detections:
    """No mat: circles on the raw photo (for ``identify`` on a plain picture).

    The card size is unknown, so radii from ``min_radius_px`` to ``max_radius_px``
    (default: 1/30 to 1/2 of the shorter side) are searched in steps; positions in
    millimetres are NaN.
    """
    h, w = image.shape[:2]
    scale = min(1.0, work_size / max(h, w))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) \
        if scale < 1 else image
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    # A photo of one card fills the frame, so the rim may reach the edge: pad the search.
    pad = int(min(gray.shape) * 0.1)
    gray = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    short = min(h, w) * scale
    lo = (min_radius_px * scale) if min_radius_px else short / 30
    hi = (max_radius_px * scale) if max_radius_px else short / 2 * 1.05
    if lo <= 0 or hi < lo:
        raise ValueError(f"bad radius range {min_radius_px}..{max_radius_px}")
    found: list[tuple[np.ndarray, float, float, float]] = []
    radius = lo
    while radius <= hi:
        # a tilted camera turns cards into ellipses: accept rims a little off the circle
        # (no card on top of a stack is looked for: a card's printed rings are circles of
        # some size too, and the fixture scenes lost 4 cards of 398 to them)
        # (nor is a near miss searched round: on the fixture scenes with no mat it found
        # 11 more cards and 7 false circles, at every one of the sizes tried)
        cand = _find_circles(gray, None, radius, min_score, 60.0, max(10.0, radius * 0.5),
                             slack=float(slack_px(radius)), covering=False,
                             near_misses=False)
        for c, s, v in zip(cand.centers, cand.scores, cand.visible):
            found.append((c - pad, radius, s, v))
        radius *= 1.06
    # Keep the best-supported circle among those that overlap heavily (any radius).
    found.sort(key=lambda t: -t[2])
    kept: list[tuple[np.ndarray, float, float, float]] = []
    for c, r, s, v in found:
        # (circles of very different sizes on one spot are a card and its pip, not twins)
        if all(np.hypot(*(c - k[0])) > 0.5 * max(r, k[1]) or max(r, k[1]) > 1.3 * min(r, k[1])
               for k in kept):
            kept.append((c, r, s, v))
    # A card photographed close up (the Learn page): its rim is the outermost of its
    # concentric circles; the ring printed inside the border may have the stronger edge, and
    # a crop cut at it is zoomed in. A well-supported circle up to 30% larger on the same
    # centre is the rim. (Small cards in a table scene do not show their inner rings.)
    kept = [max((f for f in found if k[1] < f[1] <= 1.3 * k[1] and f[2] >= 0.8
                 and np.hypot(*(f[0] - k[0])) <= 0.06 * k[1]),
                key=lambda f: f[1], default=k) if k[1] >= short / 6 else k for k in kept]
    if not kept:
        return Detections.empty(crop_size)
    # A circle inside a larger well-supported one is that card's pip, emblem or ring.
    kept = [k for k in kept if not any(o[1] > k[1] * 1.1 and o[2] >= 0.8 and
                                       np.hypot(*(k[0] - o[0])) < o[1] for o in kept)]
    # The cards of one deck are one size: circles far from the size of the best-supported
    # ones are pips, emblems or table clutter, and so is a circle inside a card.
    strong = [k[1] for k in kept if k[2] >= 0.8] or [kept[0][1]]
    size = float(np.median(strong))
    kept = [k for k in kept if abs(k[1] - size) <= 0.25 * size]
    kept = [k for k in kept if not any(o is not k and o[1] > k[1] * 1.1 and
                                       np.hypot(*(k[0] - o[0])) < o[1] for o in kept)]
    centers = np.array([k[0] for k in kept]) / scale
    radii = np.array([k[1] for k in kept]) / scale
    mats = []
    for (cx, cy), r in zip(centers, radii):
        step = 2 * r / crop_size
        mats.append(np.array([[step, 0, cx - r + step / 2], [0, step, cy - r + step / 2],
                              [0, 0, 1]]))
    return Detections(np.full((len(kept), 2), np.nan), centers, radii,
                      np.array([k[3] for k in kept]), _crops(image, mats, crop_size),
                      np.array([k[2] for k in kept]))
