"""A pinhole camera over the table plane, with one radial distortion term.

Table millimetres (origin at the mat's top-left, x right, y down) lie in the plane z = 0
with z pointing into the table. The camera looks at ``target_mm`` from ``distance_mm``
away, tilted ``tilt_deg`` from straight down, from the side given by ``azimuth_deg``
(0: from the bottom edge, where seat 0 sits, so the image shows the mat upright).

Distortion model (normalised image coordinates, ``d`` distorted, ``u`` ideal):
``u = d * (1 + k1 * |d|^2)``. k1 > 0 is barrel distortion, as most webcams have. The
homography maps table mm to *ideal* pixels; ``distort`` moves them to where they are in
the rendered image.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraPose:
    width: int
    height: int
    focal_px: float
    tilt_deg: float
    azimuth_deg: float
    roll_deg: float
    distance_mm: float
    target_mm: tuple[float, float]
    k1: float = 0.0

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.focal_px, 0, self.width / 2], [0, self.focal_px, self.height / 2],
                         [0, 0, 1]], dtype=np.float64)

    def extrinsics(self) -> tuple[np.ndarray, np.ndarray]:
        """Rotation R (rows: camera x, y, z axes in table frame) and translation t."""
        tilt, az = math.radians(self.tilt_deg), math.radians(self.azimuth_deg)
        side = np.array([math.sin(az), math.cos(az), 0.0])  # towards the camera's seat
        to_cam = np.array([side[0] * math.sin(tilt), side[1] * math.sin(tilt), -math.cos(tilt)])
        centre = np.array([*self.target_mm, 0.0]) + self.distance_mm * to_cam
        forward = -to_cam
        down = side - forward * float(side @ forward)
        if np.linalg.norm(down) < 1e-9:  # looking straight down: image down is the seat side
            down = side.copy()
        down /= np.linalg.norm(down)
        right = np.cross(down, forward)
        roll = math.radians(self.roll_deg)
        right, down = (math.cos(roll) * right + math.sin(roll) * down,
                       -math.sin(roll) * right + math.cos(roll) * down)
        rot = np.stack([right, down, forward])
        return rot, -rot @ centre

    def homography(self) -> np.ndarray:
        """3x3 matrix mapping table mm (x, y, 1) to ideal (undistorted) image pixels."""
        rot, t = self.extrinsics()
        h = self.K @ np.column_stack([rot[:, 0], rot[:, 1], t])
        return h / h[2, 2]


def apply_h(h: np.ndarray, pts) -> np.ndarray:
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    return q[:, :2] / q[:, 2:3]


def distort(pts_px, cam: CameraPose) -> np.ndarray:
    """Ideal pixels to distorted pixels (solves the model's cubic by Newton's method)."""
    pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    if cam.k1 == 0:
        return pts.copy()
    c = np.array([cam.width / 2, cam.height / 2])
    u = (pts - c) / cam.focal_px
    ru = np.hypot(u[:, 0], u[:, 1])
    rd = ru.copy()
    for _ in range(20):
        f = rd * (1 + cam.k1 * rd * rd) - ru
        rd -= f / (1 + 3 * cam.k1 * rd * rd)
    scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
    return c + u * scale[:, None] * cam.focal_px


def undistort(pts_px, cam: CameraPose) -> np.ndarray:
    pts = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
    c = np.array([cam.width / 2, cam.height / 2])
    d = (pts - c) / cam.focal_px
    r2 = (d * d).sum(1, keepdims=True)
    return c + d * (1 + cam.k1 * r2) * cam.focal_px


def project(cam: CameraPose, pts_mm) -> np.ndarray:
    """Table mm to pixels in the rendered (distorted) image."""
    return distort(apply_h(cam.homography(), pts_mm), cam)


def ideal_padding(cam: CameraPose) -> int:
    """How far outside the frame the ideal image must extend to fill a distorted frame."""
    if cam.k1 <= 0:
        return 0
    corners = np.array([[0, 0], [cam.width, cam.height]], dtype=np.float64)
    u = undistort(corners, cam)
    return math.ceil(max(-u[0, 0], -u[0, 1], u[1, 0] - cam.width, u[1, 1] - cam.height, 0))


def distortion_maps(cam: CameraPose, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap maps that sample the padded ideal image for every distorted pixel."""
    f = np.float32(cam.focal_px)
    dx = (np.arange(cam.width, dtype=np.float32) - np.float32(cam.width / 2)) / f
    dy = (np.arange(cam.height, dtype=np.float32) - np.float32(cam.height / 2)) / f
    scale = 1 + np.float32(cam.k1) * (dx[None, :] ** 2 + dy[:, None] ** 2)
    mx = (dx[None, :] * scale) * f + np.float32(cam.width / 2 + pad)
    my = (dy[:, None] * scale) * f + np.float32(cam.height / 2 + pad)
    return mx, my


def apply_distortion(ideal: np.ndarray, cam: CameraPose, pad: int, maps=None,
                     interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    if cam.k1 == 0:
        return ideal[pad:pad + cam.height, pad:pad + cam.width].copy()
    mx, my = maps if maps is not None else distortion_maps(cam, pad)
    return cv2.remap(ideal, mx, my, interpolation, borderMode=cv2.BORDER_REPLICATE)


def random_pose(rng: np.random.Generator, width: int, height: int,
                target_mm: tuple[float, float], extent_mm: float,
                tilt_max: float = 45.0) -> CameraPose:
    """A plausible webcam pose: the extent fills most of the frame's width."""
    hfov = math.radians(rng.uniform(50, 78))
    focal = width / 2 / math.tan(hfov / 2)
    tilt = float(rng.uniform(0, tilt_max))
    fill = rng.uniform(0.75, 1.15)
    distance = focal * extent_mm / (width * fill) * (1 + 0.3 * math.sin(math.radians(tilt)))
    az = float(rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.normal(0, 12))
    jitter = rng.normal(0, 0.05 * extent_mm, 2)
    return CameraPose(width, height, float(focal), tilt, az, float(rng.normal(0, 3)),
                      float(distance), (target_mm[0] + jitter[0], target_mm[1] + jitter[1]),
                      float(rng.uniform(-0.03, 0.18)))
