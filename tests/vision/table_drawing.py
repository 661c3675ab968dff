"""Simple hand-made table scenes for the vision tests: the mat's ArUco markers, flat round
cards (a rim and a pattern), an optional skin-coloured hand, all drawn in table millimetres
and seen through a known homography. Independent of ``companion.synth`` on purpose, so the
detector is checked against a drawing it was not written alongside."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.layouts import load_mat

MAT = load_mat()
PX_PER_MM = 2.0  # drawing resolution of the flat mat before it is warped into the camera


@dataclass(frozen=True)
class DrawnCard:
    center_mm: tuple[float, float]
    colour: tuple[int, int, int]
    face_down: bool = False
    rim: tuple[int, int, int] = (30, 30, 40)  # a pale card: its face colour
    pips: int = 6  # 1: one emblem on a plain field (the PySolFC decks)
    face: tuple[int, int, int] = (235, 240, 240)
    rim_mm: float = 2.5  # the width of the border
    pip_size: float = 0.18  # of the card's radius


@dataclass(frozen=True)
class DrawnScene:
    image: np.ndarray
    mm_to_px: np.ndarray  # table mm -> camera px
    cards: tuple[DrawnCard, ...]


def camera_homography(size=(1280, 720), tilt: float = 0.0, shift=(0.0, 0.0)) -> np.ndarray:
    """Table mm -> camera px: the mat fills most of the frame; ``tilt`` squeezes the top."""
    w, h = MAT.size_mm
    W, H = size
    margin_x, margin_y = W * 0.1, H * 0.06
    sx, sy = shift
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    top_in = tilt * W * 0.1
    dst = np.float32([[margin_x + top_in + sx, margin_y + sy],
                      [W - margin_x - top_in + sx, margin_y + sy],
                      [W - margin_x + sx, H - margin_y + sy],
                      [margin_x + sx, H - margin_y + sy]])
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def draw_mat(px_per_mm: float = PX_PER_MM, background=(200, 215, 225)) -> np.ndarray:
    w, h = MAT.size_mm
    img = np.full((int(h * px_per_mm), int(w * px_per_mm), 3), background, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MAT.dictionary))
    side = int(MAT.marker_size_mm * px_per_mm)
    for m in MAT.markers:
        marker = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        x0 = round((m.center_mm[0] - MAT.marker_size_mm / 2) * px_per_mm)
        y0 = round((m.center_mm[1] - MAT.marker_size_mm / 2) * px_per_mm)
        quiet = int(6 * px_per_mm)
        cv2.rectangle(img, (x0 - quiet, y0 - quiet), (x0 + side + quiet, y0 + side + quiet),
                      (255, 255, 255), -1)
        img[y0:y0 + side, x0:x0 + side] = marker[:, :, None]
    return img


def draw_card(img: np.ndarray, card: DrawnCard, px_per_mm: float = PX_PER_MM,
              seed: int = 0) -> None:
    r = MAT.card_diameter_mm / 2 * px_per_mm
    c = (round(card.center_mm[0] * px_per_mm * 16), round(card.center_mm[1] * px_per_mm * 16))
    rng = np.random.default_rng(seed)
    cv2.circle(img, c, int(r * 16), card.rim, -1, cv2.LINE_AA, 4)
    inner = (90, 60, 140) if card.face_down else card.face
    cv2.circle(img, c, int((r - card.rim_mm * px_per_mm) * 16), inner, -1, cv2.LINE_AA, 4)
    if card.face_down:
        return
    for _ in range(card.pips):  # "pips": a pattern in the card's colour
        a, d = rng.uniform(0, 2 * np.pi), rng.uniform(0, r * 0.55)
        p = (int((c[0] / 16 + d * np.cos(a)) * 16), int((c[1] / 16 + d * np.sin(a)) * 16))
        cv2.circle(img, p, max(16, int(r * card.pip_size * 16)), card.colour, -1, cv2.LINE_AA,
                   4)


def draw_hand(img: np.ndarray, tip_mm, px_per_mm: float = PX_PER_MM,
              colour=(120, 150, 205)) -> None:
    """An arm from the bottom edge reaching to ``tip_mm``, with a palm at the end."""
    h = img.shape[0]
    tip = np.array(tip_mm) * px_per_mm
    base = np.array([tip[0] + 60 * px_per_mm, h + 10])
    d = (tip - base) / np.linalg.norm(tip - base)
    n = np.array([-d[1], d[0]])
    arm_w = 45 * px_per_mm
    poly = np.array([base + n * arm_w, tip + n * arm_w * 0.9, tip - n * arm_w * 0.9,
                     base - n * arm_w], np.int32)
    cv2.fillPoly(img, [poly], colour, cv2.LINE_AA)
    cv2.ellipse(img, tuple(int(v) for v in tip), (int(48 * px_per_mm), int(40 * px_per_mm)),
                float(np.degrees(np.arctan2(d[1], d[0]))), 0, 360, colour, -1, cv2.LINE_AA)


def render(cards: list[DrawnCard], size=(1280, 720), tilt: float = 0.15, shift=(0.0, 0.0),
           hand_mm=None, noise: float = 3.0, seed: int = 0, brightness: float = 1.0,
           table_colour=(60, 90, 70), noise_seed: int | None = None,
           shadow: tuple[tuple[float, float], float, float] | None = None,
           rings_mm: tuple[tuple[float, float], ...] = ()) -> DrawnScene:
    """``seed`` draws the cards' art, ``noise_seed`` (default: seed) the sensor noise, so a
    video of a still table keeps its cards and changes only its noise. ``shadow``:
    (centre mm, radius mm, light left) of a soft round shadow over the mat. ``rings_mm``:
    zone rings printed on the mat, a card's size, a thin orange line."""
    flat = draw_mat()
    r = MAT.card_diameter_mm / 2 * PX_PER_MM
    for x, y in rings_mm:
        cv2.circle(flat, (int(x * PX_PER_MM), int(y * PX_PER_MM)), int(r), (40, 150, 220),
                   max(1, int(0.8 * PX_PER_MM)), cv2.LINE_AA)
    for k, card in enumerate(cards):
        draw_card(flat, card, seed=seed * 100000 + int(card.center_mm[0]) * 300 + int(card.center_mm[1]))
    if hand_mm is not None:
        draw_hand(flat, hand_mm)
    if shadow is not None:
        (sx, sy), sr, left = shadow
        dark = np.zeros(flat.shape[:2], np.float32)
        cv2.circle(dark, (int(sx * PX_PER_MM), int(sy * PX_PER_MM)), int(sr * PX_PER_MM), 1.0, -1)
        dark = cv2.GaussianBlur(dark, (0, 0), 10 * PX_PER_MM)
        flat = (flat * (1 - (1 - left) * dark)[..., None]).astype(np.uint8)
    mm_to_px = camera_homography(size, tilt, shift)
    flat_to_px = mm_to_px @ np.diag([1 / PX_PER_MM, 1 / PX_PER_MM, 1])
    image = cv2.warpPerspective(flat, flat_to_px, size, flags=cv2.INTER_AREA,
                                borderValue=table_colour)
    rng = np.random.default_rng(seed if noise_seed is None else noise_seed)
    out = image.astype(np.float32) * brightness + rng.normal(0, noise, image.shape)
    return DrawnScene(np.clip(out, 0, 255).astype(np.uint8), mm_to_px, tuple(cards))


PALETTE = [(40, 40, 200), (40, 160, 40), (200, 80, 30), (30, 160, 220), (150, 40, 150),
           (20, 20, 20), (0, 120, 230), (120, 80, 40)]


def grid_cards(n: int, seed: int = 0, spacing: float = 80.0) -> list[DrawnCard]:
    """``n`` non-touching cards on a grid, away from the markers."""
    rng = np.random.default_rng(seed)
    spots = [(x, y) for y in np.arange(95, 340, spacing) for x in np.arange(100, 500, spacing)]
    idx = rng.permutation(len(spots))[:n]
    return [DrawnCard(tuple(float(v) + rng.uniform(-4, 4) for v in spots[i]),
                      PALETTE[int(rng.integers(len(PALETTE)))]) for i in idx]
