"""How bright the table view is made before the detector's edge search: its mat brought
to the grey of a well-lit mat, as one for an evenly lit view (``even_exposure``), place by
place under a shadow (``mat_gain``). The detector's bars (the edge threshold, the zone-ring
and palm tests) are a lit mat's."""

from __future__ import annotations

import cv2
import numpy as np

# The mat's median grey in a well-lit view (about 190 on the fixture films). A dimmer view
# is brightened to it before the edge search: in dim light every edge is weaker by the same
# factor, and a pale card's rim on the white mat fell under the Canny threshold.
LIT_MAT_GREY = 180.0
MAX_GAIN = 3.0
# A shadow over part of the table is brightened up to this much (``mat_gain``): under a lamp
# on a dim table (seed 228) the mat in the shadow was a sixth of the lit mat's grey.
SHADOW_GAIN = 5.0
# A view whose mat is this many times brighter in one place than another is under a shadow
# (``mat_gain``; 3.8 under the lamp of seed 228). A view more evenly lit is brightened as
# one, as before: following milder shadows too (1.7 beside an arm's shadow) found a card in
# one on seed 238 fifty frames sooner, but it changed 89 of the 105 regression runs, most
# by a reading or a hand on a knife edge, and lost 21 of their 6726 moves.
SHADOWED = 2.5


def exposure_gain(gray: np.ndarray) -> float:
    """How much brighter ``gray`` must be for its median (the mat, which fills most of the
    table view) to be ``LIT_MAT_GREY``, at most ``MAX_GAIN``; below 1 for a brighter view."""
    return min(MAX_GAIN, LIT_MAT_GREY / max(float(np.median(gray[::4, ::4])), 1.0))


def brightened(gray: np.ndarray, gain: float) -> np.ndarray:
    """``gray`` times ``gain``; as it is when that would barely brighten it."""
    return cv2.convertScaleAbs(gray, alpha=gain) if gain > 1.05 else gray


def even_exposure(gray: np.ndarray) -> np.ndarray:
    """``gray`` brightened so that its median is ``LIT_MAT_GREY`` (``exposure_gain``); a
    view already that bright is returned as it is."""
    return brightened(gray, exposure_gain(gray))


def mat_gain(gray: np.ndarray, radius: float) -> np.ndarray | None:
    """Per pixel, how much brighter a shadowed view must be for the mat there to be
    ``LIT_MAT_GREY`` (1 to ``SHADOW_GAIN``); None for a view whose light is even (the mat's
    grey within ``SHADOWED`` times itself), which ``even_exposure`` brightens as one.

    The mat's own grey is the view closed and then opened by a disc two cards wide (a dark
    card, a printed ring or a finger is filled in with the mat round it, a card paler than
    the mat is cut down to it), so the gain follows a shadow's edge and not the cards. (A
    disc 1.3 cards wide fitted in a dark card beside an arm's shadow: the gain there was
    half as much again as the mat's, the card's pale face and the mat round it were
    clipped white, and its rim was lost.) One gain for a view under a lamp's hard shadow
    (its median's) left the cards in the shadow with rims under the edge threshold and
    faces too dark for the zone-ring test: on a dim film (seed 228) three cards in four in
    the shadow were never found, and a lit empty ring with the light falling off across it
    was taken for a card. Worked at a quarter of the view's size: light varies slowly."""
    s = 4
    h, w = gray.shape
    small = cv2.resize(gray, (max(1, w // s), max(1, h // s)), interpolation=cv2.INTER_AREA)
    k = int(4 * radius / s) | 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    mat = cv2.morphologyEx(small, cv2.MORPH_CLOSE, disc, borderType=cv2.BORDER_REPLICATE)
    mat = cv2.morphologyEx(mat, cv2.MORPH_OPEN, disc, borderType=cv2.BORDER_REPLICATE)
    gain = LIT_MAT_GREY / np.maximum(cv2.GaussianBlur(mat.astype(np.float32), (0, 0), 1.0), 1.0)
    lo, hi = np.percentile(gain, (2, 98))
    if hi < SHADOWED * lo:
        return None
    gain = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(gain, 1.0, SHADOW_GAIN, out=gain)


def lit(image: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """``image`` (gray or BGR) times the per-pixel ``gain`` of ``mat_gain``."""
    if image.ndim == 3:
        gain = cv2.merge([gain] * image.shape[2])
    return cv2.multiply(image, gain, dtype=cv2.CV_8U)
