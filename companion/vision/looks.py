"""What a circle's colours say it is not: a palm with its arm (``hand_like``) or a printed
zone ring (``hollow``). A card has art inside and ends at its rim; a palm is plain and
carries on beyond it; a zone ring has plain mat inside. :mod:`companion.vision.detect`
asks, on its small rectified view in its own pixels.
"""

from __future__ import annotations

import numpy as np

from companion.vision.rims import COS, DISC, SIN, clamp


def sample_colour(colour: np.ndarray, centers: np.ndarray, radius: float,
                   pts: np.ndarray) -> np.ndarray:
    """(N, K, 3) uint8: the colour at ``centers + pts * radius`` (nearest pixel, clamped)."""
    h, w = colour.shape[:2]
    xs = clamp(np.rint(centers[:, 0:1] + pts[None, :, 0] * radius).astype(np.intp), w - 1)
    ys = clamp(np.rint(centers[:, 1:2] + pts[None, :, 1] * radius).astype(np.intp), h - 1)
    ys *= w
    ys += xs
    return np.ascontiguousarray(colour).reshape(-1, colour.shape[2]).take(ys, axis=0)


def median_k(samples: np.ndarray) -> np.ndarray:
    """(N, K, C) uint8 -> (N, C) float32 median over K (``np.median`` of the same values)."""
    # a radix sort of contiguous uint8 rows ("stable") is ~10x faster than the default one
    s = np.sort(np.ascontiguousarray(samples.transpose(0, 2, 1)), axis=-1, kind="stable")
    k = s.shape[-1]
    if k % 2:
        return s[..., k // 2].astype(np.float32)
    return (s[..., k // 2 - 1].astype(np.float32) + s[..., k // 2]) / np.float32(2)


def hand_like(centers: np.ndarray, radius: float, colour: np.ndarray) -> np.ndarray:
    """A plain-coloured disc whose colour carries on well outside the circle is part of
    something bigger than a card (a palm and its arm), not a card: a card has art inside
    and ends at its rim. Works for any skin tone, sleeve or glove.

    Unless that colour is the mat's around it: a pale card on a pale mat carries on too.
    The mat is the one around the disc, farther out (where an arm is only a narrow part
    of the ring), not the view's: the light varies over a table. In a shadow a pale card
    is as dark as the shadowed mat beside it, and on the real-art Kendra Kari film (dim,
    a shadow over Position 1) a PySolFC Kumancha 3, one emblem on a plain field, was taken
    for a palm on every frame and never seen; in bright daylight a white card on the
    white mat beside it differed from the view's duller mat."""
    inner_u8 = sample_colour(colour, centers, radius, _DISC_HAND)
    mid = median_k(inner_u8)  # (N, 3)
    out = (np.abs(inner_u8 - mid[:, None]).max(axis=2) < 20).mean(axis=1) > 0.75  # plain
    if not out.any():  # cards have art: the usual case, nothing more to look at
        return out
    outer = sample_colour(colour, centers[out], radius, _RING).astype(np.float32)
    out[out] = (np.abs(outer - mid[out][:, None]).max(axis=2) < 20).mean(axis=1) > 0.3  # spills
    if out.any():
        mat = median_k(sample_colour(colour, centers[out], radius, _RING_FAR))
        out[out] = np.abs(mid[out] - mat).max(axis=1) > 25
    if out.any():
        out[out] = _plain_to_the_rim(centers[out], radius, colour, mid[out])
    return out


_DISC_COARSE = DISC[:100]
_DISC_HAND = _DISC_COARSE * 0.75
_DISC_FACE = _DISC_COARSE * 0.8
_RING = np.concatenate([np.stack([COS * f, SIN * f], 1) for f in (1.2, 1.4)])
_RING_FAR = np.concatenate([np.stack([COS * f, SIN * f], 1) for f in (2.2, 2.6, 3.0)])
_RING_OUTSIDE = np.concatenate([np.stack([COS * f, SIN * f], 1) for f in (1.25, 1.4)])
# just inside the rim, where a card's face has its border
_BAND_INSIDE = np.concatenate([np.stack([COS * f, SIN * f], 1) for f in (0.86, 0.92)])


def _plain_to_the_rim(centers: np.ndarray, radius: float, colour: np.ndarray,
                      like: np.ndarray) -> np.ndarray:
    """Whether the band just inside each circle's rim has the colour ``like`` (N, 3): a
    printed zone ring has the mat there, a palm its own skin, and a card the border of its
    face. A pale card plain at its centre (a 10 of our art, its emblems in a ring, on a
    pale mat) was both a zone ring and a palm to the tests below: on a filmed game it lay
    in full view on a play spot for 50 frames and was never found."""
    band = median_k(sample_colour(colour, centers, radius, _BAND_INSIDE))
    return np.abs(band - like).max(axis=1) < 20


def hollow(centers: np.ndarray, radius: float, colour: np.ndarray,
            kept: np.ndarray | None = None) -> np.ndarray:
    """An outline with plain mat inside (a printed zone ring) is not a card: a card's face
    differs from the mat around it in colour or carries art (texture).

    A circle another one kept (``kept``) partly covers is judged on what lies bare: a card
    laid beside a zone's centre covers part of its printed ring, and the ring, half mat and
    half card inside, was taken for a card beneath and asked about (a Hamrang pair laid side
    by side: 18 questions about the 48 cards of a filmed game)."""
    inner = sample_colour(colour, centers, radius, _DISC_FACE)  # (N, K, 3)
    out = inner.astype(np.float32).std(axis=1).max(axis=1) < 14  # no art inside
    if out.any():  # (a card's art fails this already; the colours only where it passes)
        outer = median_k(sample_colour(colour, centers[out], radius, _RING_OUTSIDE))
        out[out] = (np.abs(median_k(inner[out]) - outer).max(axis=1) < 18) \
            & _plain_to_the_rim(centers[out], radius, colour, outer)
    if kept is not None and len(kept) > 1:
        for i in np.flatnonzero(~out):
            out[i] = _hollow_where_bare(centers[i], radius, colour, kept)
    return out


# Of a circle's disc, at least this share must lie bare of other circles to be judged so
BARE_ENOUGH = 0.25
# A circle is judged on its bare part where another kept one is centred this near (in radii)
COVERS = 1.5
# ... and is plain there when this share of the bare part is the colour of its middle
PLAIN_BARE = 0.75


def _hollow_where_bare(center: np.ndarray, radius: float, colour: np.ndarray,
                       kept: np.ndarray) -> bool:
    """``_hollow``'s tests on the points no other kept circle near ``center`` covers."""
    d = np.hypot(*(kept - center).T)
    others = kept[(d > 1e-6) & (d < COVERS * radius)]
    if not len(others):
        return False  # (touching neighbours hide too little of it to matter)

    def bare(pts: np.ndarray) -> np.ndarray:
        at = center + pts * radius
        d = np.hypot(at[:, None, 0] - others[None, :, 0], at[:, None, 1] - others[None, :, 1])
        return (d > radius * 1.05).all(axis=1)

    inside, outside, band = bare(_DISC_FACE), bare(_RING_OUTSIDE), bare(_BAND_INSIDE)
    if min(inside.mean(), outside.mean(), band.mean()) < BARE_ENOUGH:
        return False
    c = center[None]
    inner = sample_colour(colour, c, radius, _DISC_FACE[inside])[0].astype(np.float32)
    mid = np.median(inner, axis=0)
    # (plain but for a few points: the covering card's shadow and blurred edge lie there)
    if (np.abs(inner - mid).max(axis=1) < 20).mean() < PLAIN_BARE:
        return False  # art inside: a card beneath
    mat = np.median(sample_colour(colour, c, radius, _RING_OUTSIDE[outside])[0], axis=0)
    rim = np.median(sample_colour(colour, c, radius, _BAND_INSIDE[band])[0], axis=0)
    return bool(np.abs(mid - mat).max() < 18 and np.abs(rim - mat).max() < 20)
