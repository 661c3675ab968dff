"""A tiny vector pen over OpenCV: shapes in unit coordinates, drawn anti-aliased in pixels.

Emblems and figures are described once in a unit frame (x right, y down, the emblem inside
[-1, 1]) and drawn at any size, position and rotation. Coordinates go to OpenCV as fixed
point (``shift`` bits) so small emblems keep sub-pixel precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

_SHIFT = 4
_ONE = 1 << _SHIFT

Colour = tuple[int, int, int]  # BGR


@dataclass(frozen=True)
class Ink:
    """How shapes are painted: ``fill`` may be None for outline-only drawing."""

    fill: Colour | None
    line: Colour
    width: float  # outline width in unit coordinates; 0 draws no outline
    detail: Colour  # colour of inner details (eyes, strings, stripes)


@dataclass
class Pen:
    canvas: np.ndarray
    cx: float
    cy: float
    scale: float  # pixels per unit
    ink: Ink
    angle: float = 0.0  # radians, clockwise on screen

    def at(self, x: float, y: float, scale: float, angle: float = 0.0) -> Pen:
        """A pen for a sub-shape centred at unit point (x, y), ``scale`` times smaller units."""
        px, py = self.px(np.array([[x, y]], dtype=np.float64))[0]
        return replace(self, cx=px, cy=py, scale=self.scale * scale, angle=self.angle + angle)

    def with_ink(self, ink: Ink) -> Pen:
        return replace(self, ink=ink)

    def px(self, pts: np.ndarray) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        x, y = pts[:, 0], pts[:, 1]
        return np.stack([self.cx + self.scale * (c * x - s * y),
                         self.cy + self.scale * (s * x + c * y)], axis=1)

    def _fixed(self, pts) -> np.ndarray:
        return np.round(self.px(np.asarray(pts, dtype=np.float64)) * _ONE).astype(np.int32)

    def _thickness(self, width: float) -> int:
        return max(1, round(width * self.scale))

    # -- shapes: filled with ink.fill (if any), outlined with ink.line ---------------------
    def poly(self, pts, closed: bool = True) -> None:
        fixed = self._fixed(pts)
        if closed and self.ink.fill is not None:
            cv2.fillPoly(self.canvas, [fixed], self.ink.fill, cv2.LINE_AA, _SHIFT)
        if self.ink.width > 0 or self.ink.fill is None:
            w = self.ink.width if self.ink.width > 0 else 0.04
            cv2.polylines(self.canvas, [fixed], closed, self.ink.line,
                          self._thickness(w), cv2.LINE_AA, _SHIFT)

    def circle(self, x: float, y: float, r: float) -> None:
        self.poly(circle_pts(x, y, r))

    def ellipse(self, x: float, y: float, rx: float, ry: float, rot: float = 0.0,
                a0: float = 0.0, a1: float = 360.0) -> None:
        self.poly(ellipse_pts(x, y, rx, ry, rot, a0, a1), closed=(a1 - a0) >= 360)

    def rect(self, x0: float, y0: float, x1: float, y1: float) -> None:
        self.poly([(x0, y0), (x1, y0), (x1, y1), (x0, y1)])

    # -- details: always drawn, in ink.detail --------------------------------------------
    def stroke(self, pts, width: float, colour: Colour | None = None, closed=False) -> None:
        cv2.polylines(self.canvas, [self._fixed(pts)], closed, colour or self.ink.detail,
                      self._thickness(width), cv2.LINE_AA, _SHIFT)

    def dot(self, x: float, y: float, r: float, colour: Colour | None = None) -> None:
        cv2.fillPoly(self.canvas, [self._fixed(circle_pts(x, y, r, 24))],
                     colour or self.ink.detail, cv2.LINE_AA, _SHIFT)

    def blob(self, pts, colour: Colour) -> None:
        """A filled polygon in an explicit colour, without outline."""
        cv2.fillPoly(self.canvas, [self._fixed(pts)], colour, cv2.LINE_AA, _SHIFT)


def circle_pts(x: float, y: float, r: float, n: int = 48) -> np.ndarray:
    return ellipse_pts(x, y, r, r, 0.0, 0.0, 360.0, n)


def ellipse_pts(x, y, rx, ry, rot=0.0, a0=0.0, a1=360.0, n: int = 48) -> np.ndarray:
    """Points on an ellipse arc; angles in degrees, rotation ``rot`` in degrees."""
    t = np.radians(np.linspace(a0, a1, n, endpoint=(a1 - a0) < 360))
    c, s = math.cos(math.radians(rot)), math.sin(math.radians(rot))
    ex, ey = rx * np.cos(t), ry * np.sin(t)
    return np.stack([x + c * ex - s * ey, y + s * ex + c * ey], axis=1)


def star_pts(n: int, r_out: float, r_in: float, phase: float = -90.0) -> np.ndarray:
    a = np.radians(phase + np.arange(2 * n) * 180.0 / n)
    r = np.where(np.arange(2 * n) % 2 == 0, r_out, r_in)
    return np.stack([r * np.cos(a), r * np.sin(a)], axis=1)
