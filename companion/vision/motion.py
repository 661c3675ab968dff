"""Where hands are: the motion gate's map of moving things and resting hands on the
rectified table, which the tracker consults before it trusts a reading (see
:mod:`companion.vision.track`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.vision.detect import Detections
from companion.vision.exposure import brightened, exposure_gain


@dataclass(frozen=True)
class MotionMap:
    """Where something moves or a hand lies, on the rectified table grid.

    ``mask`` is everything (moving things and things resting that are not cards);
    ``moving`` only what moved since the last frame (None: the same as ``mask``).
    """

    mask: np.ndarray  # bool (H, W) at px_per_mm
    px_per_mm: float
    _integral: np.ndarray | None = field(repr=False, default=None)  # None: an empty mask
    moving: MotionMap | None = field(repr=False, default=None)

    @classmethod
    def still(cls, shape: tuple[int, int], px_per_mm: float) -> MotionMap:
        return cls.of(np.zeros(shape, bool), px_per_mm)

    @classmethod
    def of(cls, mask: np.ndarray, px_per_mm: float,
           moving: np.ndarray | None = None) -> MotionMap:
        inner = None if moving is None else cls.of(moving, px_per_mm)
        # (a still table's mask is empty: nothing to sum)
        summed = cv2.integral(mask.astype(np.uint8)) if mask.any() else None
        return cls(mask, px_per_mm, summed, inner)

    @property
    def fraction(self) -> float:
        return float(self.mask.mean()) if self.mask.size else 0.0

    def near(self, points_mm: np.ndarray, radius_mm: float,
             moving_only: bool = False) -> np.ndarray:
        """(N,) bool: any motion within a square of half-side ``radius_mm`` of each point
        (``moving_only``: only what moved, not a hand at rest)."""
        if moving_only and self.moving is not None:
            return self.moving.near(points_mm, radius_mm)
        pts = np.asarray(points_mm, float).reshape(-1, 2) * self.px_per_mm
        if self._integral is None:
            return np.zeros(len(pts), bool)
        h, w = self.mask.shape
        r = radius_mm * self.px_per_mm
        # (np.clip's own checks cost more than the lookup, for a few points a frame)
        x0 = np.minimum(np.maximum((pts[:, 0] - r).astype(int), 0), w)
        x1 = np.minimum(np.maximum((pts[:, 0] + r).astype(int) + 1, 0), w)
        y0 = np.minimum(np.maximum((pts[:, 1] - r).astype(int), 0), h)
        y1 = np.minimum(np.maximum((pts[:, 1] + r).astype(int) + 1, 0), h)
        s = self._integral
        total = s[y1, x1] - s[y0, x1] - s[y1, x0] + s[y0, x0]
        return total > 0


class MotionGate:
    """Where hands are, on the small rectified view: ``update(view, cards) -> MotionMap``.

    Two cues: frame differencing (anything moving) and a slow background model of the
    table (anything that was not there before and is not a detected card: a hand resting
    on the mat, an arm whatever its sleeve). The background learns only where nothing is
    going on, so a resting hand stays marked while it rests.
    """

    def __init__(self, px_per_mm: float, threshold: int = 22, min_blob_mm2: float = 300.0,
                 card_radius_mm: float = 32.5, background: bool = True,
                 background_threshold: int = 35, learn_rate: float = 0.05):
        self.px_per_mm = px_per_mm
        self.threshold = threshold
        self.min_blob_px = max(1, int(min_blob_mm2 * px_per_mm ** 2))
        self.card_radius_mm = card_radius_mm
        self.background = background
        self.background_threshold = background_threshold
        self.learn_rate = learn_rate
        self._prev: np.ndarray | None = None
        self._bg: np.ndarray | None = None
        self._gain: float | None = None
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))

    def reset(self) -> None:
        self._prev = None
        self._bg = None
        self._gain = None

    def update(self, view: np.ndarray, cards: Detections | None = None) -> MotionMap:
        gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (5, 5), 1.0)
        gray = self._brightened(gray)
        if self._prev is None or self._prev.shape != gray.shape:
            self._prev, self._bg = gray, gray.astype(np.float32)
            return MotionMap.still(gray.shape, self.px_per_mm)
        moving = (cv2.absdiff(gray, self._prev) > self.threshold).astype(np.uint8)
        self._prev = gray
        only_moving = self._blobs(moving)
        if self.background:
            grey = gray.astype(np.float32)
            fg = (cv2.absdiff(grey, self._bg) > self.background_threshold).astype(np.uint8)
            on_cards = np.zeros_like(fg)
            if cards is not None and len(cards):
                r = int((self.card_radius_mm + 3) * self.px_per_mm) + 1
                for c in cards.centers_mm * self.px_per_mm:
                    cv2.circle(on_cards, (int(c[0]), int(c[1])), r, 1, -1)
            objects = fg & (1 - on_cards)  # new things that are not cards: hands, arms
            still = moving == 0
            # The table learns quickly where nothing is going on, but never learns a card
            # (so no ghost is left where one is picked up); a thing that stays put for
            # several seconds (a hand at rest, a pile) is learned slowly.
            cv2.accumulateWeighted(grey, self._bg, self.learn_rate,
                                   (still & (objects == 0) & (on_cards == 0)).astype(np.uint8))
            cv2.accumulateWeighted(grey, self._bg, self.learn_rate / 10,
                                   (still & (objects > 0)).astype(np.uint8))
            moving |= objects
        return MotionMap.of(self._blobs(moving), self.px_per_mm, only_moving)

    def _brightened(self, gray: np.ndarray) -> np.ndarray:
        """A dim view brightened as the detector brightens it (``even_exposure``), so that
        the thresholds mean the same in any light: on the dim real-art Kendra Kari film a
        hand resting over Position 7 differed from the mat by less than the background
        threshold, the card under it went unseen without the hand being marked, and the
        tracker reported the card taken away. The gain follows the light slowly: an arm
        that darkens the view's median must not make the whole table move."""
        target = exposure_gain(gray)
        self._gain = target if self._gain is None else 0.98 * self._gain + 0.02 * target
        return brightened(gray, self._gain)

    def _blobs(self, mask: np.ndarray) -> np.ndarray:
        """Opened, and without specks smaller than ``min_blob_mm2`` (noise, JPEG)."""
        if not mask.any():  # a still table: nothing to open
            return mask.astype(bool)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, self._kernel)
        if not mask.any():
            return mask.astype(bool)
        # (outer contours: far cheaper than labelling components on every frame)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        big = [c for c in contours if cv2.contourArea(c) >= self.min_blob_px]
        out = np.zeros_like(mask)
        if big:
            cv2.drawContours(out, big, -1, 1, cv2.FILLED)
        return (out & mask).astype(bool)
