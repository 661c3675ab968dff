"""The two court cards' figures in the unit frame: the vizier rides, the raja sits enthroned.

Both are simple silhouettes, deliberately different in outline (a horse's four legs and
long body against a throne's square back and canopy) so that the court cards stay apart
even at low resolution; the suit emblem is carried by the figure.
"""

from __future__ import annotations

from companion.cards import Suit
from companion.synth.emblems import draw_emblem
from companion.synth.pen import Ink, Pen, ellipse_pts


def draw_rider(pen: Pen, suit: Suit, figure: Ink, emblem: Ink) -> None:
    """The vizier: a rider on a horse walking left, holding the suit emblem up."""
    p = pen.with_ink(figure)
    for x, lift in ((-0.45, 0.0), (-0.25, 0.06), (0.3, 0.0), (0.5, 0.06)):
        p.poly([(x - 0.06, 0.2), (x + 0.06, 0.2), (x + 0.05 - lift, 0.78), (x - 0.07 - lift, 0.78)])
    p.poly([(0.62, 0.05), (0.88, 0.45), (0.8, 0.5), (0.6, 0.2)])  # tail
    p.ellipse(0.05, 0.12, 0.62, 0.26)  # body
    p.poly([(-0.42, 0.05), (-0.62, -0.35), (-0.88, -0.2), (-0.9, -0.1), (-0.66, -0.14),
            (-0.4, 0.25)])  # neck and head
    p.poly([(-0.62, -0.35), (-0.6, -0.48), (-0.54, -0.34)])  # ear
    p.dot(-0.7, -0.24, 0.035)
    # The rider: torso, head with turban, a leg down the horse's flank, an arm raised.
    p.poly([(-0.1, -0.05), (0.2, -0.05), (0.14, -0.5), (-0.06, -0.5)])
    p.circle(0.04, -0.62, 0.12)
    p.ellipse(0.04, -0.72, 0.14, 0.06)
    p.stroke([(0.05, -0.05), (0.02, 0.3)], 0.07, figure.line)
    p.stroke([(-0.04, -0.42), (-0.3, -0.55), (-0.36, -0.66)], 0.06, figure.line)
    draw_emblem(pen.at(-0.42, -0.8, 0.2).with_ink(emblem), suit)


def draw_throne(pen: Pen, suit: Suit, figure: Ink, emblem: Ink) -> None:
    """The raja: a crowned figure seated on a throne under a canopy, the emblem at his side."""
    p = pen.with_ink(figure)
    p.poly(ellipse_pts(0, -0.55, 0.72, 0.32, 0, 180, 360, 20))  # canopy
    p.stroke([(-0.62, -0.55), (-0.62, 0.7)], 0.06, figure.line)
    p.stroke([(0.62, -0.55), (0.62, 0.7)], 0.06, figure.line)
    p.rect(-0.45, -0.45, 0.45, 0.3)  # throne back
    p.rect(-0.55, 0.3, 0.55, 0.45)  # seat
    p.rect(-0.5, 0.45, -0.4, 0.78)
    p.rect(0.4, 0.45, 0.5, 0.78)
    # The figure, drawn over the throne in the emblem's ink so it stands out.
    f = p.with_ink(Ink(figure.detail, figure.line, figure.width, figure.fill or figure.line))
    f.poly([(-0.22, 0.3), (0.22, 0.3), (0.16, -0.12), (-0.16, -0.12)])
    f.poly([(-0.2, 0.3), (0.2, 0.3), (0.26, 0.62), (-0.26, 0.62)])  # lap and legs
    f.circle(0, -0.24, 0.12)
    f.poly([(-0.12, -0.32), (-0.14, -0.46), (-0.06, -0.38), (0.0, -0.5), (0.06, -0.38),
            (0.14, -0.46), (0.12, -0.32)])  # crown
    f.stroke([(0.14, -0.02), (0.32, 0.12)], 0.05, figure.line)
    draw_emblem(pen.at(0.32, -0.05, 0.17).with_ink(emblem), suit)
    draw_emblem(pen.at(-0.34, 0.05, 0.12).with_ink(emblem), suit)
