"""The tracker tests' table: a Kendra Kari layout, readings the test chooses, and motion
maps of a still table or a hand over one spot."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.layouts import load_layout
from companion.vision.classify import Classifications
from companion.vision.detect import Detections
from companion.vision.motion import MotionMap
from companion.vision.track import TableTracker

LAYOUT = load_layout("kendra-kari")
POS = {z.id: z.center_mm for z in LAYOUT.zones}


@dataclass(frozen=True)
class Reading:
    """What the classifier says about one card (an oracle built in the test)."""

    card: str | None
    conf: float = 0.99
    face_down: bool = False
    topk: tuple = ()
    evidence: bool = True  # False: a reading given again (companion.vision.reuse)




def frame(cards: list[tuple[tuple[float, float], Reading]]) -> tuple[Detections, Classifications]:
    n = len(cards)
    centers = np.array([c for c, _ in cards], float).reshape(n, 2)
    det = Detections(centers, centers * 2, np.full(n, 60.0), np.ones(n),
                     np.zeros((n, 96, 96, 3), np.uint8), np.ones(n))
    cls = Classifications(
        [None if r.face_down else r.card for _, r in cards],
        np.array([r.conf for _, r in cards]),
        np.array([0.99 if r.face_down else 0.0 for _, r in cards]),
        np.array([0.0 if (r.face_down or r.card) else 0.99 for _, r in cards]),
        [list(r.topk or ((r.card, r.conf),)) if r.card else [] for _, r in cards],
        evidence=np.array([r.evidence for _, r in cards], bool))
    return det, cls


def still_and_hand_over(zone: str, px: float = 0.5) -> tuple[MotionMap, MotionMap]:
    """Motion maps of a still table, and of a hand over ``zone``."""
    mask = np.zeros((300, 400), bool)
    x, y = (np.asarray(POS[zone]) * px).astype(int)
    mask[y - 10:y + 10, x - 10:x + 10] = True
    return MotionMap.still(mask.shape, px), MotionMap.of(mask, px)


def run(tracker: TableTracker, frames: list, start: int = 0, motion=None) -> list:
    events = []
    for k, cards in enumerate(frames):
        det, cls = frame(cards)
        m = motion[k] if motion is not None else None
        events += tracker.update(start + k, (start + k) / 30, det, cls, m)
    return events
