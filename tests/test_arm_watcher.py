"""Whose hand is where (``ArmWatcher``), on motion maps drawn by hand: six seats round the
mat (Player 1 at the bottom, then clockwise), the stock at the left."""

from __future__ import annotations

import cv2
import numpy as np

from companion.referee.hands import ArmWatcher
from companion.vision.motion import MotionMap

PX_PER_MM = 0.6
SIX_SEATS = (90.0, 150.0, 210.0, 270.0, 330.0, 30.0)


def _moving(*lines_mm) -> MotionMap:
    """A motion map (the mat's 594 x 420 mm) showing a thick stroke along each line."""
    mask = np.zeros((252, 356), np.uint8)
    for a, b in lines_mm:
        pa, pb = (tuple(int(v * PX_PER_MM) for v in p) for p in (a, b))
        cv2.line(mask, pa, pb, 1, 14)
    return MotionMap.of(mask.astype(bool), PX_PER_MM)


def test_a_hands_blob_is_the_hand_last_seen_on_it_not_the_one_nearest_its_middle():
    """Ruling *a-hand-moves-on-from-its-last-place*: Player 2's hand rests in from the
    lower left; Player 1's arm comes in from the bottom edge, then only its moving hand
    shows, crossing the mat toward Position 1. The blob's middle is nearer Player 2's
    hand, but it runs from where Player 1's hand was a frame before: it is Player 1's."""
    arms = ArmWatcher((594.0, 420.0), SIX_SEATS, (100.0, 210.0))
    arms.update(_moving(((0.0, 405.0), (225.0, 227.0)), ((300.0, 420.0), (278.0, 347.0))),
                1, 0.05)
    assert set(arms.active) == {0, 1}
    arms.update(_moving(((282.0, 330.0), (380.0, 145.0))), 2, 0.10)
    x, y = arms.active[0].tips[-1][2:]
    assert np.hypot(x - 380.0, y - 145.0) < 15  # Player 1's hand, at the stroke's far end
    assert len(arms.active[1].tips) == 1  # Player 2's hand was not seen again


def test_a_hand_seen_a_moment_ago_is_likelier_the_one_moving_than_a_hand_at_rest():
    """Player 2's hand comes in from the left and rests; Player 1's arm comes in from the
    bottom, moving a little each frame. Then only a moving hand shows, with no arm: a blob
    lying over Player 2's resting place of three frames before and a few millimetres from
    Player 1's place of a frame before. It is Player 1's hand moving on."""
    arms = ArmWatcher((594.0, 420.0), SIX_SEATS, (100.0, 210.0))
    arms.update(_moving(((0.0, 300.0), (200.0, 300.0)), ((330.0, 420.0), (262.0, 330.0))),
                1, 0.05)
    arms.update(_moving(((330.0, 420.0), (248.0, 320.0))), 2, 0.10)
    arms.update(_moving(((330.0, 420.0), (236.0, 312.0))), 3, 0.15)
    assert set(arms.active) == {0, 1}
    resting = np.array(arms.active[1].tips[-1][2:])
    moving = np.array(arms.active[0].tips[-1][2:])
    hand = _moving((tuple(resting + (0.0, -50.0)), tuple(resting)))
    ys, xs = np.nonzero(hand.mask)
    gaps = [float(np.min(np.hypot(xs / PX_PER_MM - x, ys / PX_PER_MM - y)))
            for x, y in (resting, moving)]
    assert gaps[0] < 2 and 2 < gaps[1] < 20  # Player 2's place lies on it, Player 1's near
    arms.update(hand, 4, 0.20)
    assert arms.active[0].tips[-1][0] == 4
    assert arms.active[1].tips[-1][0] == 1
