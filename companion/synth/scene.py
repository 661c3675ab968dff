"""A camera image of a Ganjifa table with exact ground truth for every card.

``random_scene_spec(rng, ...)`` draws every random choice into a frozen :class:`SceneSpec`;
``render_scene(spec)`` is then a pure function of the spec. The ground truth comes from
the same geometry that draws the image: each card's centre and rim are projected through
the camera (homography, then lens distortion), and its visible fraction is counted on a
label map that every later layer (cards on top, hands) overwrites.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.cards import Card, DeckKind, deck_cards
from companion.layouts import load_layout, load_mat
from companion.synth import decks
from companion.synth.camera import (
    CameraPose,
    apply_distortion,
    apply_h,
    distort,
    distortion_maps,
    ideal_padding,
    random_pose,
)
from companion.synth.effects import (
    Lighting,
    Sensor,
    apply_lighting,
    apply_sensor,
    random_lighting,
    random_sensor,
)
from companion.synth.table import (
    TABLE_KINDS,
    TABLE_SEEDS,
    TEXTURE_PX_PER_MM,
    Hand,
    mat_image,
    random_hand,
    table_texture,
)

CARD_DIAMETER_MM = load_mat().card_diameter_mm
MAT_SIZE_MM = load_mat().size_mm
MAT_PX_PER_MM = 1.5
_FACE_SIZES = (48, 64, 96, 128, 192, 256, 384)
_NOBODY, _HAND = -1, -2


@dataclass(frozen=True)
class CardPlacement:
    card: Card
    face_up: bool
    center_mm: tuple[float, float]
    rotation_deg: float
    source: str  # "style-<n>" (our art) or "pysol-mughal" / "pysol-dashavatara"
    seed: int = 0
    zone: str | None = None


@dataclass(frozen=True)
class SceneSpec:
    camera: CameraPose
    table_kind: str
    table_seed: int
    table_rect_mm: tuple[int, int, int, int]  # x0, y0, width, height of the table top
    mat_game: str | None  # the layout printed on the mat ("" = plain mat, None = no mat)
    cards: tuple[CardPlacement, ...]  # bottom first
    hands: tuple[Hand, ...]
    lighting: Lighting
    sensor: Sensor
    noise_seed: int


@dataclass(frozen=True)
class CardTruth:
    card_id: str | None  # None when the card lies face down
    center_px: tuple[float, float]
    center_mm: tuple[float, float]
    radius_px: float
    visible_fraction: float
    face_up: bool
    source: str
    zone: str | None = None
    layer: int = 0  # 0 = bottom of the scene's stacking order

    def to_json(self) -> dict[str, Any]:
        return {"card_id": self.card_id, "center_px": [round(v, 2) for v in self.center_px],
                "center_mm": [round(v, 2) for v in self.center_mm],
                "radius_px": round(self.radius_px, 2),
                "visible_fraction": round(self.visible_fraction, 4), "face_up": self.face_up,
                "source": self.source, "zone": self.zone, "layer": self.layer}


@dataclass(frozen=True)
class Scene:
    image: np.ndarray  # BGR uint8
    truth: list[CardTruth]
    homography: np.ndarray  # table mm -> ideal image px (before lens distortion)
    camera: CameraPose
    mat_visible_fraction: float  # share of the mat's area inside the frame (0 without mat)
    markers_visible: tuple[int, ...]  # marker ids fully in frame and not covered
    labels: np.ndarray = field(repr=False)  # int16 per pixel: card index, -1 table, -2 hand

    def truth_json(self) -> dict[str, Any]:
        cam = self.camera
        return {
            "image_size": [cam.width, cam.height],
            "homography_mm_to_px": [[round(v, 9) for v in row] for row in self.homography],
            "camera": {"K": cam.K.round(4).tolist(), "k1": cam.k1, "tilt_deg": cam.tilt_deg,
                       "azimuth_deg": cam.azimuth_deg, "distance_mm": cam.distance_mm,
                       "distortion_model": "ideal = distorted * (1 + k1 * r^2), normalised"},
            "mat_visible_fraction": round(self.mat_visible_fraction, 4),
            "markers_visible": list(self.markers_visible),
            "cards": [t.to_json() for t in self.truth],
        }


def _face_size(radius_px: float) -> int:
    want = 2.3 * radius_px
    return next((s for s in _FACE_SIZES if s >= want), _FACE_SIZES[-1])


def card_image(p: CardPlacement, size: int) -> np.ndarray:
    """BGRA face or back of a placed card at ``size`` pixels."""
    return decks.card_image(p.source, p.card if p.face_up else None, p.seed, size)


def _rim(center: tuple[float, float], n: int = 64) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    r = CARD_DIAMETER_MM / 2
    return np.stack([center[0] + r * np.cos(t), center[1] + r * np.sin(t)], 1)


def _paste(canvas, labels, img, m, index, shadow=True) -> None:
    """Warps BGRA ``img`` by ``m`` onto float ``canvas``; marks covered pixels ``index``."""
    h, w = canvas.shape[:2]
    s = img.shape[0]
    corners = apply_h(m, [(-0.5, -0.5), (s - 0.5, -0.5), (s - 0.5, s - 0.5), (-0.5, s - 0.5)])
    x0, y0 = np.floor(corners.min(0)).astype(int) - 3
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 3
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64)
    warped = cv2.warpPerspective(img, shift @ m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    a = warped[..., 3:4].astype(np.float32) / 255.0
    roi = canvas[y0:y1, x0:x1]
    if shadow:
        k = max(3, (int(0.12 * (x1 - x0)) | 1))
        soft = cv2.GaussianBlur(a[..., 0], (k, k), 0)[..., None]
        roi *= 1 - 0.35 * soft
    roi[:] = roi * (1 - a) + warped[..., :3].astype(np.float32) * a
    labels[y0:y1, x0:x1][a[..., 0] > 0.5] = index


def _warp_layer(canvas, img, m) -> None:
    h, w = canvas.shape[:2]
    cv2.warpPerspective(img.astype(np.float32), m, (w, h), dst=canvas, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)


def _scale_mm(px_per_mm: float, offset=(0.0, 0.0)) -> np.ndarray:
    return np.array([[1 / px_per_mm, 0, offset[0]], [0, 1 / px_per_mm, offset[1]], [0, 0, 1]])


def render_scene(spec: SceneSpec) -> Scene:
    cam = spec.camera
    h_img = cam.homography()
    pad = ideal_padding(cam)
    hc = np.array([[1, 0, pad], [0, 1, pad], [0, 0, 1]], dtype=np.float64) @ h_img
    size = (cam.width + 2 * pad, cam.height + 2 * pad)
    ys = np.linspace(0, 1, size[1], dtype=np.float32)[:, None, None]
    canvas = np.broadcast_to(np.float32([45, 50, 58]) * (0.6 + 0.6 * ys),
                             (size[1], size[0], 3)).copy()  # the room beyond the table
    labels = np.full((size[1], size[0]), _NOBODY, np.int16)

    x0, y0, tw, th = spec.table_rect_mm
    tex = table_texture(spec.table_kind, spec.table_seed, (tw, th))
    _warp_layer(canvas, tex, hc @ _scale_mm(TEXTURE_PX_PER_MM, (x0, y0)))
    if spec.mat_game is not None:
        _warp_layer(canvas, mat_image(spec.mat_game or None, MAT_PX_PER_MM),
                    hc @ _scale_mm(MAT_PX_PER_MM))

    rims_ideal = []
    for i, p in enumerate(spec.cards):
        rim = apply_h(hc, _rim(p.center_mm, 16))
        r_px = float(np.linalg.norm(rim - rim.mean(0), axis=1).mean())
        rims_ideal.append((rim.mean(0), r_px))
        s = _face_size(r_px)
        img = card_image(p, s)
        t = math.radians(p.rotation_deg)
        k = CARD_DIAMETER_MM / s
        c = (s - 1) / 2
        to_mm = np.array([[k * math.cos(t), -k * math.sin(t), 0],
                          [k * math.sin(t), k * math.cos(t), 0], [0, 0, 1]])
        to_mm = np.array([[1, 0, p.center_mm[0]], [0, 1, p.center_mm[1]], [0, 0, 1]]) @ to_mm \
            @ np.array([[1, 0, -c], [0, 1, -c], [0, 0, 1]])
        _paste(canvas, labels, img, hc @ to_mm, i)

    for hand in spec.hands:
        _draw_hand(canvas, labels, hand, hc)

    glare_spots = [(c[0], c[1], r * 0.6) for c, r in rims_ideal[-3:]]
    card_mask = (labels >= 0).astype(np.float32)
    canvas = apply_lighting(canvas, spec.lighting, card_mask, glare_spots)
    maps = distortion_maps(cam, pad) if cam.k1 else None
    frame = apply_distortion(canvas, cam, pad, maps)
    labels_out = apply_distortion(labels, cam, pad, maps, cv2.INTER_NEAREST)
    image = apply_sensor(frame, spec.sensor, np.random.default_rng(spec.noise_seed))
    truth = [_truth(i, p, cam, h_img, labels_out) for i, p in enumerate(spec.cards)]
    mat_frac, markers = _mat_visibility(spec, cam, h_img, labels_out)
    return Scene(image, truth, h_img, cam, mat_frac, markers, labels_out)


def _draw_hand(canvas, labels, hand: Hand, hc: np.ndarray) -> None:
    h, w = canvas.shape[:2]
    polys = [(np.round(apply_h(hc, poly) * 16).astype(np.int32), colour)
             for poly, colour in hand.polygons_mm()]
    mask = np.zeros((h, w), np.uint8)
    for pts, _ in polys:
        cv2.fillPoly(mask, [pts], 255, cv2.LINE_AA, 4)
    small = cv2.resize(np.roll(mask, (int(0.015 * w), int(0.01 * w)), (0, 1)), (w // 4, h // 4),
                       interpolation=cv2.INTER_AREA)
    k = max(3, int(0.008 * w) | 1)
    shadow = cv2.resize(cv2.GaussianBlur(small, (k, k), 0), (w, h)).astype(np.float32)
    canvas *= 1 - 0.35 * (shadow / 255)[..., None]
    for pts, colour in polys:
        cv2.fillPoly(canvas, [pts], tuple(float(c) for c in colour), cv2.LINE_AA, 4)
        cv2.polylines(canvas, [pts], True, tuple(0.7 * float(c) for c in colour),
                      max(1, w // 600), cv2.LINE_AA, 4)
    labels[mask > 127] = _HAND


def _truth(i: int, p: CardPlacement, cam: CameraPose, h_img: np.ndarray,
           labels: np.ndarray) -> CardTruth:
    centre = distort(apply_h(h_img, [p.center_mm]), cam)[0]
    rim = distort(apply_h(h_img, _rim(p.center_mm, 64)), cam)
    radius = float(np.linalg.norm(rim - centre, axis=1).mean())
    area = abs(cv2.contourArea(rim.astype(np.float32)))
    x0, y0 = np.clip(np.floor(rim.min(0)).astype(int) - 2, 0, None)
    x1, y1 = np.ceil(rim.max(0)).astype(int) + 2
    visible = int(np.count_nonzero(labels[y0:max(y0, y1), x0:max(x0, x1)] == i))
    frac = min(1.0, visible / area) if area > 0 else 0.0
    return CardTruth(p.card.id if p.face_up else None, (float(centre[0]), float(centre[1])),
                     (float(p.center_mm[0]), float(p.center_mm[1])), radius, frac, p.face_up,
                     p.source, p.zone, i)


def _mat_visibility(spec: SceneSpec, cam: CameraPose, h_img, labels) -> tuple[float, tuple]:
    if spec.mat_game is None:
        return 0.0, ()
    mat = load_mat()
    w, h = MAT_SIZE_MM
    outline = np.array([(x, 0) for x in np.linspace(0, w, 20)] + [(w, y) for y in np.linspace(
        0, h, 20)] + [(x, h) for x in np.linspace(w, 0, 20)] + [(0, y) for y in np.linspace(
            h, 0, 20)])
    poly = distort(apply_h(h_img, outline), cam)
    total = abs(cv2.contourArea(poly.astype(np.float32)))
    mask = np.zeros(labels.shape, np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
    frac = min(1.0, cv2.countNonZero(mask) / total) if total else 0.0
    seen = []
    for m in mat.markers:
        corners = distort(apply_h(h_img, mat.marker_corners_mm(m)), cam)
        if (corners < 1).any() or (corners[:, 0] > cam.width - 2).any() or \
                (corners[:, 1] > cam.height - 2).any():
            continue
        mm = np.zeros(labels.shape, np.uint8)
        cv2.fillPoly(mm, [np.round(corners).astype(np.int32)], 1)
        inside = labels[mm > 0]
        if inside.size and (inside == _NOBODY).mean() > 0.98:
            seen.append(m.id)
    return frac, tuple(seen)


# -- random specs ---------------------------------------------------------------------------


def random_scene_spec(rng: np.random.Generator, width: int = 1280, height: int = 720, *,
                      source: str | None = None, deck: DeckKind | None = None,
                      game: str | None = None, mat: bool | None = None,
                      placement: str | None = None, n_cards: int | None = None,
                      hands: int | None = None, lighting: str | None = None,
                      tilt_max: float = 45.0, face_down_rate: float = 0.12) -> SceneSpec:
    """Draws every random choice of a scene. ``source`` is "style-<n>", "own" (any of our
    styles), or a PySolFC deck ("pysol-mughal", "pysol-dashavatara", evaluation only)."""
    if source is None or source == "own":
        source = f"style-{int(rng.integers(decks.n_own_styles()))}"
    deck = deck or decks.deck_of_source(source) or DeckKind(str(rng.choice(["mughal",
                                                                           "dashavatara"])))
    mat = bool(rng.random() < 0.75) if mat is None else mat
    placement = placement or (str(rng.choice(["zones", "anywhere"])) if mat else "anywhere")
    if placement == "zones" and not game:
        game = str(rng.choice(["kendra-kari", "ganjifa"]))
    mat_game = (game or "") if mat else None
    seed = int(rng.integers(1 << 30))
    pool = list(deck_cards(deck))
    order = rng.permutation(len(pool))
    n_cards = n_cards if n_cards is not None else int(rng.integers(1, 15))
    centres = _positions(rng, placement, game, min(n_cards, len(pool)))
    cards = []
    for k, (xy, zone) in enumerate(centres):
        cards.append(CardPlacement(pool[order[k]], bool(rng.random() >= face_down_rate),
                                   (float(xy[0]), float(xy[1])), float(rng.uniform(0, 360)),
                                   source, seed, zone))
    extent = float(MAT_SIZE_MM[0]) * rng.uniform(0.85, 1.25)
    cam = random_pose(rng, width, height, (MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2), extent,
                      tilt_max)
    n_hands = hands if hands is not None else int(rng.choice([0, 0, 1, 1, 2]))
    hand_list = tuple(random_hand(rng, tuple(rng.uniform([80, 60], [514, 360])), MAT_SIZE_MM)
                      for _ in range(n_hands))
    light = random_lighting(rng, lighting)
    # Few table seeds and sizes, so that their textures stay cached across many scenes.
    table_seed = int(rng.integers(TABLE_SEEDS))
    tw, th = 1300 + 40 * table_seed, 1000 + 30 * table_seed
    table = (int(MAT_SIZE_MM[0] / 2 - tw / 2 + rng.normal(0, 80)),
             int(MAT_SIZE_MM[1] / 2 - th / 2 + rng.normal(0, 80)), tw, th)
    return SceneSpec(cam, str(rng.choice(TABLE_KINDS)), table_seed, table,
                     mat_game, tuple(cards), hand_list, light,
                     random_sensor(rng, dim=light.kind == "dim"), int(rng.integers(1 << 30)))


def _positions(rng, placement: str, game: str | None, n: int) -> list:
    out: list = []
    if placement == "zones":
        zones = load_layout(game).zones
        while len(out) < n:
            z = zones[int(rng.integers(len(zones)))]
            jitter = rng.normal(0, 6, 2)
            out.append(((z.center_mm[0] + jitter[0], z.center_mm[1] + jitter[1]), z.id))
        return out
    if placement != "anywhere":
        raise ValueError(f"unknown placement {placement!r}; use 'zones' or 'anywhere'")
    w, h = MAT_SIZE_MM
    while len(out) < n:
        if out and rng.random() < 0.25:  # a card played on top of, or overlapping, another
            (bx, by), _ = out[int(rng.integers(len(out)))]
            off = rng.normal(0, 14, 2)
            out.append(((bx + off[0], by + off[1]), None))
        else:
            out.append((tuple(rng.uniform([50, 50], [w - 50, h - 50])), None))
    return out
