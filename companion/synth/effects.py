"""Light and sensor: how a webcam spoils a clean render.

Lighting acts on the undistorted render (it belongs to the table); the camera effects act
on the final frame in the order a sensor applies them: optics (defocus, motion blur),
noise, white balance, JPEG compression.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

LIGHT_KINDS = ("neutral", "warm", "cool", "dim", "spot", "daylight")


@dataclass(frozen=True)
class Lighting:
    kind: str
    gain: float  # overall brightness
    tint: tuple[float, float, float]  # BGR multipliers (colour temperature)
    spot: tuple[float, float, float, float] | None  # x, y (fraction of frame), sigma, strength
    shadows: tuple[tuple[tuple[float, float], ...], ...]  # polygons in frame fractions
    shadow_depth: float
    glare: float  # strength of specular glare on the cards' lacquer


@dataclass(frozen=True)
class Sensor:
    defocus_sigma: float  # pixels
    motion_px: float  # length of a linear motion blur
    motion_angle_deg: float
    noise_sigma: float
    white_balance: tuple[float, float, float]  # BGR gains the camera got wrong
    jpeg_quality: int  # 0: no JPEG round trip


def random_lighting(rng: np.random.Generator, kind: str | None = None) -> Lighting:
    kind = kind or str(rng.choice(LIGHT_KINDS))
    if kind not in LIGHT_KINDS:
        raise ValueError(f"unknown lighting {kind!r}; kinds: {', '.join(LIGHT_KINDS)}")
    tint = {"warm": (0.75, 0.93, 1.1), "cool": (1.12, 1.0, 0.86)}.get(kind, (1.0, 1.0, 1.0))
    gain = {"dim": rng.uniform(0.3, 0.5), "daylight": rng.uniform(1.0, 1.2)}.get(
        kind, rng.uniform(0.8, 1.05))
    spot = None
    if kind == "spot" or rng.random() < 0.15:
        spot = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)),
                float(rng.uniform(0.25, 0.5)), float(rng.uniform(0.5, 0.9)))
    shadows = []
    for _ in range(int(rng.integers(0, 3))):
        c = rng.uniform(0, 1, 2)
        pts = c + rng.normal(0, 0.18, (5, 2))
        shadows.append(tuple((float(x), float(y)) for x, y in pts))
    return Lighting(kind, float(gain), tuple(float(v) for v in tint), spot, tuple(shadows),
                    float(rng.uniform(0.25, 0.5)), float(rng.uniform(0, 0.6) ** 2))


def random_sensor(rng: np.random.Generator, dim: bool = False) -> Sensor:
    return Sensor(float(rng.choice([0.0, rng.uniform(0.3, 2.0)], p=[0.5, 0.5])),
                  float(rng.choice([0.0, rng.uniform(2, 12)], p=[0.7, 0.3])),
                  float(rng.uniform(0, 180)),
                  float(rng.uniform(1, 4) * (2.5 if dim else 1)),
                  tuple(float(v) for v in rng.uniform(0.9, 1.1, 3)),
                  int(rng.integers(45, 95)))


def _light_field(h: int, w: int, light: Lighting) -> np.ndarray:
    """Brightness over the frame, computed at a quarter of the size: light is smooth."""
    sh, sw = max(2, h // 4), max(2, w // 4)
    field = np.full((sh, sw), light.gain, np.float32)
    if light.spot is not None:
        sx, sy, sigma, strength = light.spot
        yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
        d2 = ((xx / sw - sx) ** 2 + (yy / sw - sy * sh / sw) ** 2) / (sigma ** 2)
        field *= (1 - strength) + strength * 1.6 * np.exp(-d2)
    if light.shadows:
        shade = np.zeros((sh, sw), np.float32)
        for poly in light.shadows:
            pts = np.round(np.array(poly) * [sw, sh]).astype(np.int32)
            cv2.fillPoly(shade, [cv2.convexHull(pts)], 1.0)
        k = max(3, int(sw * 0.04) | 1)
        shade = cv2.GaussianBlur(shade, (k, k), 0)
        field *= 1 - light.shadow_depth * shade
    return cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR)


def apply_lighting(img: np.ndarray, light: Lighting, card_mask: np.ndarray,
                   glare_spots: list[tuple[float, float, float]]) -> np.ndarray:
    """``img`` float32 BGR; ``card_mask`` float 0..1 where lacquer can shine."""
    h, w = img.shape[:2]
    field = _light_field(h, w, light)
    out = img * field[..., None]
    out *= np.array(light.tint, np.float32)
    if light.glare > 0.05 and glare_spots:
        sh, sw = max(2, h // 4), max(2, w // 4)
        glare = np.zeros((sh, sw), np.float32)
        for x, y, r in glare_spots:
            cv2.ellipse(glare, (round(x / 4), round(y / 4)),
                        (max(1, round(r / 4)), max(1, round(r / 8))), 35.0, 0, 360, 1.0, -1,
                        cv2.LINE_AA)
        k = max(3, int(sw * 0.02) | 1)
        glare = cv2.resize(cv2.GaussianBlur(glare, (k, k), 0), (w, h)) * card_mask
        out += (255 * light.glare * 0.8 * glare)[..., None]
    return out


_NOISE_MARGIN = 64


@lru_cache(maxsize=4)
def _noise_bank(h: int, w: int) -> np.ndarray:
    """Fixed unit Gaussian noise a little larger than the frame; scenes crop it at random."""
    rng = np.random.default_rng(12345)
    bank = rng.standard_normal((h + _NOISE_MARGIN, w + _NOISE_MARGIN, 3), dtype=np.float32)
    bank.setflags(write=False)
    return bank


def apply_sensor(img: np.ndarray, sensor: Sensor, rng: np.random.Generator) -> np.ndarray:
    """float32 BGR in, uint8 BGR out."""
    out = img
    if sensor.defocus_sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), sensor.defocus_sigma)
    if sensor.motion_px >= 1.5:
        n = round(sensor.motion_px) | 1
        kernel = np.zeros((n, n), np.float32)
        kernel[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), sensor.motion_angle_deg, 1.0)
        kernel = cv2.warpAffine(kernel, rot, (n, n))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    if sensor.noise_sigma > 0:
        h, w = out.shape[:2]
        dy, dx = rng.integers(0, _NOISE_MARGIN, 2)
        out = out + _noise_bank(h, w)[dy:dy + h, dx:dx + w] * np.float32(sensor.noise_sigma)
    out = out * np.array(sensor.white_balance, np.float32)
    out8 = np.clip(out, 0, 255).astype(np.uint8)
    if sensor.jpeg_quality:
        _ok, buf = cv2.imencode(".jpg", out8, [cv2.IMWRITE_JPEG_QUALITY, sensor.jpeg_quality])
        out8 = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out8
