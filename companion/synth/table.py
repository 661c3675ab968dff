"""What lies on and over the table besides the cards: its texture, the printed mat, hands.

All three are described in table millimetres so they move with the camera like the cards.
The mat raster comes from the same data (``calibration/mat.json`` and the game's layout)
as the printable PDF in :mod:`companion.synth.printing`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.layouts import Layout, Mat, load_layout, load_mat

TABLE_KINDS = ("wood", "dark-wood", "cloth", "plain", "marble")
# Scenes draw their table from few seeds, so that every texture stays cached: a training
# run renders scenes by the hundred thousand (1.7 MB a texture; with room for 24 of the 60,
# two scenes in three drew their table again, 39 ms each: docs/benchmarks.md, 2026-11-27).
TABLE_SEEDS = 12
TEXTURE_PX_PER_MM = 0.5


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    small = rng.normal(0, 1, (max(2, shape[0] // cells), max(2, shape[1] // cells)))
    return cv2.resize(small.astype(np.float32), (shape[1], shape[0]),
                      interpolation=cv2.INTER_CUBIC)


@lru_cache(maxsize=len(TABLE_KINDS) * TABLE_SEEDS)
def table_texture(kind: str, seed: int, size_mm: tuple[int, int]) -> np.ndarray:
    """A top-down BGR texture of the whole table at ``TEXTURE_PX_PER_MM``."""
    if kind not in TABLE_KINDS:
        raise ValueError(f"unknown table kind {kind!r}; kinds: {', '.join(TABLE_KINDS)}")
    rng = np.random.default_rng(seed)
    h, w = (int(size_mm[1] * TEXTURE_PX_PER_MM), int(size_mm[0] * TEXTURE_PX_PER_MM))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind in ("wood", "dark-wood"):
        base = np.array([60, 105, 150] if kind == "wood" else [30, 50, 80], np.float32)
        base = base * rng.uniform(0.85, 1.15)
        warp = _noise(rng, (h, w), 40) * 12
        grain = np.sin((yy + warp) * rng.uniform(0.15, 0.3)) * 0.5 + 0.5
        fine = _noise(rng, (h, w), 3) * 0.05
        shade = 0.82 + 0.22 * grain[..., None] + fine[..., None]
        img = base * shade
    elif kind == "cloth":
        base = np.array(rng.choice([[60, 100, 40], [110, 60, 40], [40, 40, 120], [90, 90, 90]]),
                        np.float32) * rng.uniform(0.8, 1.2)
        weave = (np.sin(xx * 2.0) * np.sin(yy * 2.0)) * 0.04
        img = base * (1 + weave[..., None] + 0.06 * _noise(rng, (h, w), 20)[..., None])
    elif kind == "plain":
        base = rng.uniform(60, 210, 3).astype(np.float32)
        img = base * (1 + 0.03 * _noise(rng, (h, w), 30)[..., None])
    else:  # marble
        veins = np.abs(np.sin((xx + yy) * 0.02 + 3 * _noise(rng, (h, w), 25)))
        img = np.float32([215, 220, 222]) * (0.8 + 0.2 * veins[..., None] ** 0.3)
    img += rng.normal(0, 3, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


MAT_COLOUR = (228, 238, 242)
ZONE_COLOUR = (120, 130, 150)
INK = (30, 30, 30)


def zone_style(kind: str) -> tuple[tuple[int, int, int], float]:
    """Colour (BGR) and circle diameter factor for a zone kind, shared by raster and PDF."""
    colours = {"ring": (60, 100, 170), "centre": (40, 60, 160), "stock": (90, 90, 90),
               "discard": (120, 120, 120), "play": (60, 100, 170), "deni": (40, 140, 200),
               "won": (120, 120, 120)}
    return colours.get(kind, (110, 110, 110)), 1.12


def aruco_bits(dictionary: str, marker_id: int) -> np.ndarray:
    """The marker as a (cells x cells) 0/1 array including its black border."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, marker_id, cells * 10)
    return (img[5::10, 5::10] > 127).astype(np.uint8)


@lru_cache(maxsize=8)
def mat_image(game: str | None, px_per_mm: float = 1.5) -> np.ndarray:
    """The printed mat, top-down BGR at ``px_per_mm``: markers, frame and the game's zones."""
    mat = load_mat()
    layout = load_layout(game) if game else None
    return _draw_mat(mat, layout, px_per_mm)


def _draw_mat(mat: Mat, layout: Layout | None, s: float) -> np.ndarray:
    w, h = round(mat.size_mm[0] * s), round(mat.size_mm[1] * s)
    img = np.full((h, w, 3), MAT_COLOUR, np.uint8)
    sh, one = 4, 16

    def p(x, y):
        return (round(x * s * one), round(y * s * one))

    cv2.rectangle(img, p(8, 8), p(mat.size_mm[0] - 8, mat.size_mm[1] - 8), INK,
                  max(1, round(1.0 * s)), cv2.LINE_AA, sh)
    for m in mat.markers:
        bits = aruco_bits(mat.dictionary, m.id)
        n = bits.shape[0]
        (x0, y0), *_ = mat.marker_corners_mm(m)
        cell = mat.marker_size_mm / n
        # A white quiet zone of one cell around the marker, as detectors expect.
        cv2.rectangle(img, p(x0 - cell, y0 - cell),
                      p(x0 + mat.marker_size_mm + cell, y0 + mat.marker_size_mm + cell),
                      (255, 255, 255), -1, cv2.LINE_8, sh)
        for i in range(n):
            for j in range(n):
                if not bits[i, j]:
                    cv2.rectangle(img, p(x0 + j * cell, y0 + i * cell),
                                  p(x0 + (j + 1) * cell, y0 + (i + 1) * cell) , (0, 0, 0), -1,
                                  cv2.LINE_8, sh)
    if layout is not None:
        r = mat.card_diameter_mm / 2
        for z in layout.zones:
            colour, factor = zone_style(z.kind)
            cv2.circle(img, p(*z.center_mm), round(r * factor * s * one), colour,
                       max(1, round(1.2 * s)), cv2.LINE_AA, sh)
            size = 0.45 * s / 1.5
            (tw, th), _ = cv2.getTextSize(z.label, cv2.FONT_HERSHEY_SIMPLEX, size, 1)
            org = (round(z.center_mm[0] * s - tw / 2), round((z.center_mm[1] + r * factor) * s
                                                             + th + 3 * s))
            cv2.putText(img, z.label, org, cv2.FONT_HERSHEY_SIMPLEX, size, colour,
                        max(1, round(s / 1.5)), cv2.LINE_AA)
    return img


@dataclass(frozen=True)
class Hand:
    """An arm reaching in from ``shoulder_mm`` (off the mat) with the palm at ``palm_mm``."""

    shoulder_mm: tuple[float, float]
    palm_mm: tuple[float, float]
    skin: tuple[int, int, int]  # BGR
    sleeve: tuple[int, int, int]
    size: float = 1.0  # 1.0 is an adult hand, about 19 cm long
    spread: float = 0.3  # fingers 0 together .. 1 spread

    def polygons_mm(self) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
        """Polygons in table mm, bottom first, each with its colour."""
        s = np.array(self.shoulder_mm, float)
        p = np.array(self.palm_mm, float)
        d = p - s
        length = float(np.linalg.norm(d)) or 1.0
        u = d / length
        n = np.array([-u[1], u[0]])
        k = self.size
        wrist = p - u * 55 * k
        elbow_w, wrist_w = 46 * k, 30 * k
        sleeve_end = s + u * max(0.0, length - 160 * k)
        arm = np.array([s + n * elbow_w, wrist + n * wrist_w, wrist - n * wrist_w, s - n * elbow_w])
        sleeve = np.array([s + n * (elbow_w + 6), sleeve_end + n * (elbow_w + 4),
                           sleeve_end - n * (elbow_w + 4), s - n * (elbow_w + 6)])
        t = np.radians(np.linspace(0, 360, 28, endpoint=False))
        palm = p + np.outer(np.cos(t) * 45 * k, u) + np.outer(np.sin(t) * 40 * k, n)
        out = [(arm, self.skin), (palm, self.skin)]
        for i, off in enumerate((-27, -9, 9, 27)):
            ang = (off / 27) * 0.25 * self.spread
            fu = u * math.cos(ang) + n * math.sin(ang)
            fn = np.array([-fu[1], fu[0]])
            base = p + u * 30 * k + n * off * k
            tip = base + fu * (60 + 12 * (1.5 - abs(i - 1.5))) * k
            out.append((_capsule(base, tip, 9 * k, fn), self.skin))
        thumb_base = p - u * 10 * k + n * 38 * k
        tu = u * 0.6 + n * 0.8
        out.append((_capsule(thumb_base, thumb_base + tu * 55 * k, 10 * k,
                             np.array([-tu[1], tu[0]])), self.skin))
        out.append((sleeve, self.sleeve))
        return out


def _capsule(a: np.ndarray, b: np.ndarray, r: float, n: np.ndarray) -> np.ndarray:
    d = b - a
    d = d / (np.linalg.norm(d) or 1.0)
    t = np.radians(np.linspace(-90, 90, 8))
    cap_b = [b + r * (math.cos(x) * d + math.sin(x) * n) for x in t]
    cap_a = [a + r * (-math.cos(x) * d - math.sin(x) * n) for x in t]
    return np.array(cap_b + cap_a)


SKINS = ((90, 130, 190), (70, 105, 160), (50, 80, 130), (120, 160, 215), (40, 60, 95))
SLEEVES = ((40, 40, 40), (150, 60, 30), (60, 120, 60), (200, 200, 200), (40, 40, 140))


def random_hand(rng: np.random.Generator, palm_mm: tuple[float, float],
                mat_size: tuple[float, float]) -> Hand:
    """A hand reaching to ``palm_mm`` from the nearest-ish table edge."""
    w, h = mat_size
    edges = [(palm_mm[0] + rng.normal(0, 60), h + 250), (palm_mm[0] + rng.normal(0, 60), -250),
             (-250, palm_mm[1] + rng.normal(0, 60)), (w + 250, palm_mm[1] + rng.normal(0, 60))]
    dist = [math.dist(e, palm_mm) for e in edges]
    pick = int(np.argmin(np.array(dist) + rng.uniform(0, 250, 4)))
    return Hand(tuple(map(float, edges[pick])), (float(palm_mm[0]), float(palm_mm[1])),
                tuple(int(v) for v in SKINS[rng.integers(len(SKINS))]),
                tuple(int(v) for v in SLEEVES[rng.integers(len(SLEEVES))]),
                float(rng.uniform(0.9, 1.15)), float(rng.uniform(0, 1)))
