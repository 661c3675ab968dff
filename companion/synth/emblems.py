"""The 18 suit emblems as vector shapes in the unit frame (x right, y down, inside [-1, 1]).

Drawn from the suits' names in the rule books (coin, bill, crown, merchandise, slave, harp,
sword; fish, tortoise, boar, lion, pot and umbrella, axe, bow, plough, lotus, horse), not
traced from any deck's art.
"""

from __future__ import annotations

import numpy as np

from companion.cards import Suit
from companion.synth.pen import Pen, circle_pts, ellipse_pts, star_pts


def _surya(p: Pen) -> None:  # gold coin with a sun
    p.poly(star_pts(12, 0.95, 0.72))
    p.circle(0, 0, 0.66)
    p.stroke(circle_pts(0, 0, 0.48), 0.06)
    p.dot(0, 0, 0.16)


def _chandra(p: Pen) -> None:  # silver coin with a crescent moon
    p.circle(0, 0, 0.85)
    outer = ellipse_pts(0, 0, 0.55, 0.55, 0, 60, 300, 32)
    inner = ellipse_pts(0.28, 0, 0.42, 0.42, 0, 280, 80, 32)
    p.blob(np.concatenate([outer, inner[::-1]]), p.ink.detail)
    p.stroke(circle_pts(0, 0, 0.74), 0.04)


def _barat(p: Pen) -> None:  # bill of exchange: a scroll with text lines and a seal
    p.rect(-0.5, -0.72, 0.5, 0.72)
    p.ellipse(0, -0.72, 0.6, 0.14)
    p.ellipse(0, 0.72, 0.6, 0.14)
    for y in (-0.42, -0.22, -0.02, 0.18):
        p.stroke([(-0.34, y), (0.34, y)], 0.05)
    p.dot(0.18, 0.45, 0.13)


def _phul(p: Pen) -> None:  # crown
    top = [(-0.78, 0.28), (-0.84, -0.42), (-0.42, -0.05), (-0.2, -0.62), (0.0, -0.12),
           (0.2, -0.62), (0.42, -0.05), (0.84, -0.42), (0.78, 0.28)]
    p.poly(top)
    p.rect(-0.8, 0.28, 0.8, 0.66)
    for x, y in ((-0.84, -0.48), (-0.2, -0.7), (0.2, -0.7), (0.84, -0.48)):
        p.circle(x, y, 0.1)
    for x in (-0.5, 0.0, 0.5):
        p.dot(x, 0.47, 0.09)


def _kumancha(p: Pen) -> None:  # merchandise: a tied bale
    p.ellipse(0, 0.22, 0.72, 0.62)
    p.poly([(-0.22, -0.38), (0.22, -0.38), (0.5, -0.85), (0.0, -0.62), (-0.5, -0.85)])
    p.stroke([(-0.26, -0.38), (0.26, -0.38)], 0.1)
    p.stroke([(-0.62, 0.0), (0.62, 0.44)], 0.06)
    p.stroke([(-0.62, 0.44), (0.62, 0.0)], 0.06)


def _ghulam(p: Pen) -> None:  # a servant standing, hands folded
    p.poly([(-0.34, -0.3), (0.34, -0.3), (0.55, 0.92), (-0.55, 0.92)])
    p.circle(0, -0.56, 0.24)
    p.ellipse(0, -0.74, 0.27, 0.12)
    p.stroke([(-0.3, -0.16), (0.0, 0.2), (0.3, -0.16)], 0.08)
    p.stroke([(-0.45, 0.55), (0.45, 0.55)], 0.05)


def _cheng(p: Pen) -> None:  # arched harp
    outer = ellipse_pts(0.1, 0.1, 0.9, 0.9, 0, 180, 270, 20)
    inner = ellipse_pts(0.1, 0.1, 0.7, 0.72, 0, 180, 270, 20)
    p.poly(np.concatenate([outer, inner[::-1]]))
    p.rect(-0.95, 0.1, 0.75, 0.32)
    for x in (-0.62, -0.42, -0.22):
        top = 0.1 - 0.72 * np.sqrt(max(0.0, 1 - ((x - 0.1) / 0.7) ** 2))
        p.stroke([(x, top), (x, 0.12)], 0.035)
    p.poly([(0.2, 0.1), (0.75, -0.8), (0.85, -0.7), (0.45, 0.1)])


def _shamsher(p: Pen) -> None:  # curved sword (talwar)
    back = ellipse_pts(-0.55, -0.1, 1.3, 1.05, 0, -48, 8, 16)
    edge = ellipse_pts(-0.55, -0.1, 1.12, 0.9, 0, -44, 8, 16)
    p.poly(np.concatenate([back, edge[::-1]]) + [0.0, 0.0])
    p.rect(0.45, 0.0, 0.95, 0.12)
    p.rect(0.63, 0.12, 0.77, 0.62)
    p.circle(0.7, 0.7, 0.12)


def _matsya(p: Pen) -> None:  # fish
    p.poly([(0.45, 0.0), (0.95, -0.42), (0.85, 0.0), (0.95, 0.42)])
    p.ellipse(-0.12, 0, 0.7, 0.38)
    p.poly([(-0.15, -0.34), (0.1, -0.6), (0.2, -0.3)])
    p.dot(-0.55, -0.08, 0.08)
    p.stroke(ellipse_pts(-0.3, 0, 0.2, 0.3, 0, -70, 70, 12), 0.04)


def _kurma(p: Pen) -> None:  # tortoise seen from above
    for x, y, a in ((-0.5, -0.42, -40), (0.5, -0.42, 40), (-0.5, 0.46, 40), (0.5, 0.46, -40)):
        p.ellipse(x, y, 0.22, 0.12, a)
    p.circle(0, -0.74, 0.17)
    p.poly([(0.0, 0.62), (-0.08, 0.92), (0.08, 0.92)])
    p.ellipse(0, 0, 0.58, 0.64)
    hexagon = circle_pts(0, 0, 0.26, 6)
    p.stroke(hexagon, 0.05, closed=True)
    for a in np.radians(np.arange(0, 360, 60)):
        p.stroke([(0.26 * np.cos(a), 0.26 * np.sin(a)), (0.56 * np.cos(a), 0.62 * np.sin(a))],
                 0.05)


def _varaha(p: Pen) -> None:  # boar
    for x in (-0.35, -0.15, 0.35, 0.55):
        p.rect(x - 0.07, 0.2, x + 0.07, 0.62)
    p.ellipse(0.15, 0.0, 0.62, 0.38)
    p.poly([(-0.3, -0.3), (-0.95, 0.0), (-0.9, 0.18), (-0.3, 0.3)])
    p.poly([(-0.35, -0.3), (-0.25, -0.58), (-0.12, -0.3)])
    p.stroke(ellipse_pts(-0.7, 0.05, 0.14, 0.14, 0, 90, 270, 10), 0.05)
    p.dot(-0.52, -0.08, 0.06)
    p.stroke([(0.76, -0.1), (0.92, -0.25)], 0.05)


def _narasimha(p: Pen) -> None:  # lion's head with mane
    p.poly(star_pts(14, 0.95, 0.66))
    p.circle(0, 0.04, 0.52)
    p.dot(-0.2, -0.08, 0.07)
    p.dot(0.2, -0.08, 0.07)
    p.stroke([(-0.12, 0.25), (0.0, 0.32), (0.12, 0.25)], 0.05)
    p.stroke([(0.0, 0.05), (0.0, 0.3)], 0.04)


def _vamana(p: Pen) -> None:  # water pot under an umbrella
    p.stroke([(0.0, -0.45), (0.0, 0.1)], 0.07)
    p.poly(np.concatenate([ellipse_pts(0, -0.42, 0.8, 0.45, 0, 180, 360, 24),
                           [(0.8, -0.42), (-0.8, -0.42)]]))
    p.circle(0, 0.55, 0.36)
    p.rect(-0.15, 0.08, 0.15, 0.24)
    p.ellipse(0, 0.1, 0.24, 0.07)
    p.stroke([(-0.3, 0.5), (0.3, 0.5)], 0.04)


def _parashurama(p: Pen) -> None:  # axe
    p.poly([(-0.78, 0.9), (-0.9, 0.78), (0.35, -0.47), (0.47, -0.35)])
    blade = np.concatenate([[(0.12, -0.55), (0.55, -0.12)],
                            ellipse_pts(0.2, -0.2, 0.62, 0.62, 0, 15, 75, 12)[::-1]])
    p.poly(blade)
    p.dot(0.42, -0.42, 0.07)


def _rama(p: Pen) -> None:  # bow and arrow
    bow = ellipse_pts(-0.25, 0, 0.55, 0.92, 0, -90, 90, 24)
    p.stroke(bow, 0.1, p.ink.line)
    p.stroke(bow, 0.05, p.ink.fill or p.ink.line)
    p.stroke([(-0.25, -0.92), (-0.25, 0.92)], 0.025)
    p.stroke([(-0.85, 0.0), (0.62, 0.0)], 0.05)
    p.poly([(0.95, 0.0), (0.6, -0.14), (0.6, 0.14)])
    p.poly([(-0.85, 0.0), (-0.95, -0.14), (-0.72, 0.0), (-0.95, 0.14)])


def _balarama(p: Pen) -> None:  # plough
    p.stroke(ellipse_pts(0.6, 0.5, 1.2, 1.1, 0, 195, 265, 16), 0.1, p.ink.line)
    p.poly([(-0.62, 0.3), (-0.2, 0.55), (-0.5, 0.92), (-0.9, 0.75)])
    p.poly([(0.25, -0.62), (0.75, -0.82), (0.8, -0.7), (0.3, -0.5)])
    p.stroke([(-0.4, 0.42), (-0.1, -0.1)], 0.06, p.ink.line)


def _buddha(p: Pen) -> None:  # lotus
    for a in (-60, -30, 30, 60):
        p.ellipse(0.42 * np.sin(np.radians(a)), 0.2 - 0.36 * np.cos(np.radians(a)),
                  0.17, 0.46, a)
    p.ellipse(0, -0.2, 0.2, 0.55)
    p.ellipse(0, 0.55, 0.75, 0.2, 0, 0, 180)
    p.rect(-0.06, 0.55, 0.06, 0.92)


def _kalki(p: Pen) -> None:  # horse's head and neck
    p.poly([(0.55, 0.92), (0.45, 0.1), (0.2, -0.5), (0.05, -0.85), (-0.05, -0.58),
            (-0.45, -0.35), (-0.9, 0.05), (-0.78, 0.25), (-0.35, 0.1), (-0.1, 0.1),
            (-0.1, 0.92)])
    p.stroke([(0.25, -0.45), (0.55, 0.0), (0.62, 0.6)], 0.08)
    p.dot(-0.2, -0.35, 0.07)
    p.stroke([(-0.75, 0.12), (-0.6, 0.15)], 0.04)


EMBLEMS = {
    Suit.SURYA: _surya, Suit.CHANDRA: _chandra, Suit.BARAT: _barat, Suit.PHUL: _phul,
    Suit.KUMANCHA: _kumancha, Suit.GHULAM: _ghulam, Suit.CHENG: _cheng,
    Suit.SHAMSHER: _shamsher, Suit.MATSYA: _matsya, Suit.KURMA: _kurma,
    Suit.VARAHA: _varaha, Suit.NARASIMHA: _narasimha, Suit.VAMANA: _vamana,
    Suit.PARASHURAMA: _parashurama, Suit.RAMA: _rama, Suit.BALARAMA: _balarama,
    Suit.BUDDHA: _buddha, Suit.KALKI: _kalki,
}


def draw_emblem(pen: Pen, suit: Suit) -> None:
    EMBLEMS[suit](pen)
