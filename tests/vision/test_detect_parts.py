"""The detector's vectorised parts against plain one-at-a-time references, and printed zone
rings (the colour test that now runs only on circles that would be kept)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import table_drawing
from table_drawing import PALETTE, DrawnCard, render

from companion.vision import detect, looks, rims
from companion.vision.calibration import MatCalibrator


def _rim_reference(gx, gy, mag, centers, radius, slack, edge_thr):
    """One radius at a time, every sample clamped and checked against the image."""
    h, w = gx.shape
    cx, cy = centers[:, 0], centers[:, 1]
    pos = np.zeros((len(cx), rims.N_RIM), bool)
    neg = np.zeros_like(pos)
    for dr in np.arange(-slack, slack + 1.0):
        xs = cx[:, None] + (radius + dr) * rims.COS[None]
        ys = cy[:, None] + (radius + dr) * rims.SIN[None]
        xi = np.clip(np.rint(xs).astype(int), 0, w - 1)
        yi = np.clip(np.rint(ys).astype(int), 0, h - 1)
        radial = gx[yi, xi] * rims.COS[None] + gy[yi, xi] * rims.SIN[None]
        inside = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
        strong = inside & (np.abs(radial) > edge_thr) & (np.abs(radial) > 0.8 * mag[yi, xi])
        pos |= strong & (radial > 0)
        neg |= strong & (radial < 0)
    return np.where((pos.sum(1) >= neg.sum(1))[:, None], pos, neg)


@pytest.mark.parametrize("slack", [1.0, 3.0])
def test_rim_support_matches_a_one_radius_at_a_time_reference(slack):
    rng = np.random.default_rng(1)
    img = np.full((240, 320), 120, np.uint8)
    for _ in range(12):
        c = tuple(int(v) for v in rng.integers(0, 320, 2))
        cv2.circle(img, c, int(rng.integers(10, 30)), int(rng.integers(0, 255)), -1)
    blur = cv2.GaussianBlur(img, (5, 5), 1.2)
    gx = cv2.Sobel(blur, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(blur, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    inside = rng.uniform([40, 40], [280, 200], (30, 2))
    across_edges = rng.uniform(-25, 345, (200, 2))  # rims off the image and on its edge
    for centers in (inside, across_edges, np.zeros((0, 2))):
        got = rims.rim_support(gx, gy, mag, centers, 19.5, slack, 30.0)
        assert np.array_equal(got, _rim_reference(gx, gy, mag, centers, 19.5, slack, 30.0))


@pytest.mark.parametrize("k", [7, 100, 144])
def test_median_of_colour_samples_is_numpys_median(k):
    samples = np.random.default_rng(k).integers(0, 256, (9, k, 3), dtype=np.uint8)
    got = looks.median_k(samples)
    assert got.dtype == np.float32
    assert np.array_equal(got, np.median(samples.astype(np.float32), axis=1))


def _visible_reference(centers, radius, rim):
    vis = np.ones(len(centers))
    dist = np.hypot(*(centers[:, None, :] - centers[None, :, :]).transpose(2, 0, 1))
    for i, j in zip(*np.nonzero(np.triu(dist < 2 * radius, 1))):
        rim_i = centers[i] + radius * np.stack([rims.COS, rims.SIN], 1)
        rim_j = centers[j] + radius * np.stack([rims.COS, rims.SIN], 1)
        in_j = np.hypot(*(rim_i - centers[j]).T) < radius * 0.95
        in_i = np.hypot(*(rim_j - centers[i]).T) < radius * 0.95
        i_shows = rim[i][in_j].mean() if in_j.any() else 0.0
        j_shows = rim[j][in_i].mean() if in_i.any() else 0.0
        lower, upper = (i, j) if j_shows > i_shows else (j, i)
        pts = centers[lower] + rims.DISC * radius
        vis[lower] -= (np.hypot(*(pts - centers[upper]).T) < radius).mean()
    return np.clip(vis, 0.0, 1.0)


def test_visible_fractions_match_a_pair_at_a_time_reference():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 8, 20):
        centers = rng.uniform(0, 150, (n, 2))
        rim = rng.random((n, rims.N_RIM)) < 0.7
        assert np.array_equal(rims.visible_fractions(centers, 19.5, rim),
                              _visible_reference(centers, 19.5, rim))


def _mat_with_rings(rings_mm):
    plain = table_drawing.draw_mat

    def draw(px_per_mm=table_drawing.PX_PER_MM, background=(200, 215, 225)):
        img = plain(px_per_mm, background)
        for x, y in rings_mm:  # a printed zone outline the size of a card, mat inside
            cv2.circle(img, (round(x * px_per_mm * 16), round(y * px_per_mm * 16)),
                       round(33.0 * px_per_mm * 16), (60, 60, 70), round(1.5 * px_per_mm),
                       cv2.LINE_AA, 4)
        return img
    return draw


def test_zone_rings_are_not_cards_and_do_not_hide_one(monkeypatch):
    monkeypatch.setattr(table_drawing, "draw_mat", _mat_with_rings([(400, 250)]))
    empty = render([], seed=5)
    assert len(_detect(empty)) == 0
    monkeypatch.setattr(table_drawing, "draw_mat", _mat_with_rings([(300, 200), (400, 250)]))
    scene = render([DrawnCard((300, 200), PALETTE[1])], seed=5)
    det = _detect(scene)
    assert len(det) == 1
    assert np.linalg.norm(det.centers_mm[0] - [300, 200]) < 4


def _detect(scene) -> detect.Detections:
    return detect.CardDetector().detect(scene.image, MatCalibrator().calibrate(scene.image))


def test_a_circle_that_fails_the_colour_test_hides_no_neighbour(monkeypatch):
    """The colour test runs only on circles that would be kept; one that fails it must then
    give back the neighbours it took out, as if it had never been a candidate."""
    cards = [DrawnCard((400, 200), PALETTE[2]), DrawnCard((404, 205), PALETTE[3]),
             DrawnCard((407, 203), PALETTE[6])]  # a stack: one card is reported
    scene = render(cards, seed=7)
    (first,) = _detect(scene).centers_mm
    px_per_mm = detect.CardDetector().px_per_mm
    real = looks.hollow

    def hollow_there_too(centers, radius, colour, *kept):  # as if `first` were a ring
        return real(centers, radius, colour, *kept) | (
            np.linalg.norm(centers / px_per_mm - first, axis=1) < 1.0)
    monkeypatch.setattr(looks, "hollow", hollow_there_too)
    det = _detect(scene)
    assert len(det) == 1
    assert 1.0 <= np.linalg.norm(det.centers_mm[0] - first) < 15
