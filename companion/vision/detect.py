"""Round-card detection in the rectified, top-down table view.

After calibration the table is a flat map in millimetres where every card is a circle of
one known diameter (``Mat.card_diameter_mm``). That turns detection into a narrow search:
a circular Hough transform at a single radius finds candidate centres (partial arcs vote
too, so touching and overlapping cards are found), and each candidate is then checked
against the image: how much of its rim shows a radial edge. That rim support is also the
visible fraction; where two cards overlap, the one whose rim runs unbroken through the
overlap is on top. Candidates closer than a third of a diameter are one stack, of which
only the top (best supported) card is kept. A hand or arm is rejected because it is plain
inside the circle and carries on beyond it, while a card has art and ends at its rim; a
printed zone ring is rejected because it has plain mat inside.

Detection runs on a small rectified view (``px_per_mm`` ~0.6); the 96x96 crops for the
classifier are sampled straight from the camera frame through the composed homography,
so they keep the camera's full resolution.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from companion.layouts import Mat, load_mat
from companion.vision.calibration import Calibration

CROP_SIZE = 96


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


_N_RIM = 72
_ANGLES = np.linspace(0, 2 * np.pi, _N_RIM, endpoint=False)
_COS, _SIN = np.cos(_ANGLES), np.sin(_ANGLES)


def _disc_samples(n: int = 400, seed: int = 7) -> np.ndarray:
    """Fixed, evenly spread points inside the unit disc (for area fractions)."""
    rng = np.random.default_rng(seed)
    pts = rng.uniform(-1, 1, (n * 2, 2))
    return pts[np.hypot(pts[:, 0], pts[:, 1]) <= 1.0][:n]


_DISC = _disc_samples()


@dataclass(frozen=True)
class _Candidates:
    centers: np.ndarray  # (N, 2) px in the search image
    radius: float  # px in the search image
    scores: np.ndarray  # rim support
    visible: np.ndarray


def _find_circles(gray: np.ndarray, hand_check: np.ndarray | None, radius: float,
                  min_score: float, canny_high: float, min_votes: float,
                  exclude: Callable[[np.ndarray], np.ndarray] | None = None,
                  colour: np.ndarray | None = None, slack: float = 1.0) -> _Candidates:
    """Hough at one radius, rim verification, stack suppression, occlusion order."""
    blur = cv2.GaussianBlur(gray, (5, 5), 1.2)
    circles = cv2.HoughCircles(blur, cv2.HOUGH_GRADIENT, dp=1, minDist=2.0,
                               param1=canny_high, param2=min_votes,
                               minRadius=int(radius * 0.93), maxRadius=math.ceil(radius * 1.07))
    if circles is None:
        return _Candidates(np.zeros((0, 2)), radius, np.zeros(0), np.zeros(0))
    centers = circles[0, :, :2].astype(np.float64)
    gx = cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    edge_thr = max(20.0, canny_high * 0.5)
    h, w = gray.shape

    def rim_support(cx: np.ndarray, cy: np.ndarray) -> np.ndarray:
        """(N, K) bool: rim sample k of circle n sits on a radial edge (best of r-1..r+1).

        A real rim changes brightness the same way all round (say dark border to light
        mat), while a phantom circle pieced together from its neighbours' arcs does not,
        so support is counted for each polarity and the better one kept.
        """
        pos = np.zeros((len(cx), _N_RIM), bool)
        neg = np.zeros_like(pos)
        for dr in np.arange(-slack, slack + 1.0):
            xs = cx[:, None] + (radius + dr) * _COS[None]
            ys = cy[:, None] + (radius + dr) * _SIN[None]
            xi = np.clip(np.rint(xs).astype(int), 0, w - 1)
            yi = np.clip(np.rint(ys).astype(int), 0, h - 1)
            radial = gx[yi, xi] * _COS[None] + gy[yi, xi] * _SIN[None]
            inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
            strong = inside & (np.abs(radial) > edge_thr) & (np.abs(radial) > 0.8 * mag[yi, xi])
            pos |= strong & (radial > 0)
            neg |= strong & (radial < 0)
        return np.where((pos.sum(1) >= neg.sum(1))[:, None], pos, neg)

    if exclude is not None and len(centers):
        centers = centers[~exclude(centers)]
    if colour is not None and len(centers):
        centers = centers[~_hollow(centers, radius, colour)]
    rims = rim_support(centers[:, 0], centers[:, 1])
    scores = rims.mean(axis=1)
    order = np.argsort(-scores)
    near = np.hypot(*(centers[:, None, :] - centers[None, :, :]).transpose(2, 0, 1)) \
        <= radius * 0.66
    keep: list[int] = []
    for i in order:
        if scores[i] < min_score:
            break
        if not near[i, keep].any():
            keep.append(i)
    centers, scores, rims = centers[keep], scores[keep], rims[keep]
    if hand_check is not None and len(centers):
        ok = ~_hand_like(centers, radius, hand_check)
        centers, scores, rims = centers[ok], scores[ok], rims[ok]
    visible = _visible_fractions(centers, radius, rims)
    return _Candidates(centers, radius, scores, visible)


def _hand_like(centers: np.ndarray, radius: float, colour: np.ndarray) -> np.ndarray:
    """A plain-coloured disc whose colour carries on well outside the circle is part of
    something bigger than a card (a palm and its arm), not a card: a card has art inside
    and ends at its rim. Works for any skin tone, sleeve or glove."""
    h, w = colour.shape[:2]

    def sample(pts: np.ndarray) -> np.ndarray:
        xs = np.clip(np.rint(centers[:, 0:1] + pts[None, :, 0] * radius).astype(int), 0, w - 1)
        ys = np.clip(np.rint(centers[:, 1:2] + pts[None, :, 1] * radius).astype(int), 0, h - 1)
        return colour[ys, xs].astype(np.float32)

    inner = sample(_DISC_COARSE * 0.75)
    outer = sample(_RING)
    mid = np.median(inner, axis=1)  # (N, 3)
    mat = np.median(colour[::4, ::4].reshape(-1, 3), axis=0)  # the mat fills most of the view
    unlike_mat = np.abs(mid - mat).max(axis=1) > 25
    plain = (np.abs(inner - mid[:, None]).max(axis=2) < 20).mean(axis=1) > 0.75
    spills = (np.abs(outer - mid[:, None]).max(axis=2) < 20).mean(axis=1) > 0.3
    return unlike_mat & plain & spills


def _sample_mask(mask: np.ndarray, centers: np.ndarray, radius: float,
                 pts: np.ndarray) -> np.ndarray:
    h, w = mask.shape
    xs = np.clip(np.rint(centers[:, 0:1] + pts[None, :, 0] * radius).astype(int), 0, w - 1)
    ys = np.clip(np.rint(centers[:, 1:2] + pts[None, :, 1] * radius).astype(int), 0, h - 1)
    return mask[ys, xs].mean(axis=1)


_DISC_COARSE = _DISC[:100]
_RING = np.concatenate([np.stack([_COS * f, _SIN * f], 1) for f in (1.2, 1.4)])


def _hollow(centers: np.ndarray, radius: float, colour: np.ndarray) -> np.ndarray:
    """An outline with plain mat inside (a printed zone ring) is not a card: a card's face
    differs from the mat around it in colour or carries art (texture)."""
    h, w = colour.shape[:2]

    def sample(pts: np.ndarray) -> np.ndarray:
        xs = np.clip(np.rint(centers[:, 0:1] + pts[None, :, 0] * radius).astype(int), 0, w - 1)
        ys = np.clip(np.rint(centers[:, 1:2] + pts[None, :, 1] * radius).astype(int), 0, h - 1)
        return colour[ys, xs].astype(np.float32)  # (N, K, 3)

    inner = sample(_DISC_COARSE * 0.8)
    outer = sample(_RING_OUTSIDE)
    diff = np.abs(np.median(inner, axis=1) - np.median(outer, axis=1)).max(axis=1)
    texture = inner.std(axis=1).max(axis=1)
    return (diff < 18) & (texture < 14)


_RING_OUTSIDE = np.concatenate([np.stack([_COS * f, _SIN * f], 1) for f in (1.25, 1.4)])


def _visible_fractions(centers: np.ndarray, radius: float, rims: np.ndarray) -> np.ndarray:
    """Fraction of each disc not under another card; the card on top keeps its rim."""
    n = len(centers)
    vis = np.ones(n)
    if n < 2:
        return vis
    dist = np.hypot(*(centers[:, None, :] - centers[None, :, :]).transpose(2, 0, 1))
    for i, j in zip(*np.nonzero(np.triu(dist < 2 * radius, 1))):
        # Rim samples of one card that lie inside the other: an unbroken rim there means
        # that card is on top.
        rim_i = centers[i] + radius * np.stack([_COS, _SIN], 1)
        rim_j = centers[j] + radius * np.stack([_COS, _SIN], 1)
        in_j = np.hypot(*(rim_i - centers[j]).T) < radius * 0.95
        in_i = np.hypot(*(rim_j - centers[i]).T) < radius * 0.95
        i_shows = rims[i][in_j].mean() if in_j.any() else 0.0
        j_shows = rims[j][in_i].mean() if in_i.any() else 0.0
        lower, upper = (i, j) if j_shows > i_shows else (j, i)
        pts = centers[lower] + _DISC * radius
        covered = np.hypot(*(pts - centers[upper]).T) < radius
        vis[lower] -= covered.mean()
    return np.clip(vis, 0.0, 1.0)


def _crops(image: np.ndarray, crop_to_image: list[np.ndarray], size: int) -> np.ndarray:
    out = np.empty((len(crop_to_image), size, size, 3), np.uint8)
    for k, m in enumerate(crop_to_image):
        out[k] = cv2.warpPerspective(image, m, (size, size),
                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
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
        out = np.zeros(len(centers), bool)
        for m in self.mat.markers:
            c = np.array(m.center_mm) * self.px_per_mm
            out |= np.max(np.abs(centers - c), axis=1) < reach
        return out

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
        cand = _find_circles(gray, view if self.reject_hands else None, radius, self.min_score, self.canny_high,
                             self.min_votes, self._on_marker, view)
        if not len(cand.scores):
            return Detections.empty(self.crop_size)
        centers_mm = cand.centers / self.px_per_mm
        centers_px = cal.to_px(centers_mm)
        r = self.card_radius_mm
        ex = cal.to_px(centers_mm + [r, 0])
        ey = cal.to_px(centers_mm + [0, r])
        radii_px = (np.linalg.norm(ex - centers_px, axis=1)
                    + np.linalg.norm(ey - centers_px, axis=1)) / 2
        inv = cal.inverse
        step = 2 * r / self.crop_size
        mats = []
        for cx, cy in centers_mm:
            # crop px -> table mm (the disc spans the crop) -> camera px
            a = np.array([[step, 0, cx - r + step / 2], [0, step, cy - r + step / 2], [0, 0, 1]])
            mats.append(inv @ a)
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
        cand = _find_circles(gray, None, radius, min_score, 60.0, max(10.0, radius * 0.5),
                             slack=float(slack_px(radius)))
        for c, s, v in zip(cand.centers, cand.scores, cand.visible):
            found.append((c - pad, radius, s, v))
        radius *= 1.12
    # Keep the best-supported circle among those that overlap heavily (any radius).
    found.sort(key=lambda t: -t[2])
    kept: list[tuple[np.ndarray, float, float, float]] = []
    for c, r, s, v in found:
        if all(np.hypot(*(c - k[0])) > 0.5 * max(r, k[1]) for k in kept):
            kept.append((c, r, s, v))
    if not kept:
        return Detections.empty(crop_size)
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
