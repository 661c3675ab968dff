"""Kendra Kari at a brisk pace: hands that pass over a ring position on their way to
another place, and a hand pausing over the place it lays a card on (not moving, so not
seen there), tell who laid a card only by when and where they were seen."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from referee_show import TableShow

from companion.record import simulate, table_view
from companion.referee import Referee
from companion.referee.hands import ArmWatcher
from companion.vision.motion import MotionMap
from companion.vision.track import TrackEvent

SHAPE, PX = (252, 356), 0.6


@pytest.mark.parametrize("seed", [3, 5])
def test_a_hand_that_passed_nearer_long_before_did_not_lay_the_card(seed):
    """Ruling *nearest-then-and-there*: the next player's hand passed 11 mm from a ring
    position 20 frames before a card was first seen there; the hand that laid it was seen
    12 mm from it, 3 frames before. The card is the later hand's."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    k = next(i for i in range(2, len(moves))
             if moves[i].action == "play" and moves[i - 1].action != "draw"
             and moves[i].target != "7")
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:k]:
        show.kendra_kari(move, hands=True)
    laid = moves[k]
    zone = f"pos{laid.target}"
    cx, cy = show.ref.layout.zone(zone).center_mm
    show.reach((laid.player + 1) % 4, (cx + 11.0, cy))  # turns there 11 frames before its end
    show.reach(laid.player, (cx, cy + 12.0))
    since = show.frame - 8  # seen 3 frames after this hand turned (20 after the other did)
    card = TrackEvent("appeared", laid.cards[0].id, (cx, cy), zone, 0.99, since,
                      show.frame, show.t, 78, since=since)
    out = show.ref.observe([card], show.frame, show.t)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]


def test_fingers_cut_off_from_their_arm_by_a_palm_at_rest_are_that_arms():
    """Ruling *arm-at-rest-joins-its-hand*: Player 4's arm comes in from the right edge;
    its palm pauses (at rest in the motion map) while only the fingertips move, cut off
    from the arm. Player 3's hand, which has just left that place, is not whose they are."""
    arms = ArmWatcher((594.0, 420.0), (90.0, 180.0, 270.0, 0.0), (100.0, 210.0))

    def seen(moving: np.ndarray, whole: np.ndarray | None = None, frame: int = 0) -> None:
        whole = moving if whole is None else whole
        arms.update(MotionMap.of(whole.astype(bool), PX, moving.astype(bool)), frame, frame / 20)

    # Player 3 (top edge) reaches down towards (300, 150) mm
    for f, y in enumerate((40, 70, 90)):
        top = np.zeros(SHAPE, np.uint8)
        cv2.line(top, (180, 0), (180, y), 1, 14)
        seen(top, frame=f)
    # Player 4's arm from the right edge to (330, 160) mm: palm at rest, fingertips moving
    arm = np.zeros(SHAPE, np.uint8)
    cv2.line(arm, (355, 96), (215, 96), 1, 16)
    fingers = np.zeros(SHAPE, np.uint8)
    cv2.line(fingers, (212, 96), (190, 96), 1, 10)
    seen(fingers, arm | fingers, frame=3)
    assert 3 in arms.active and 2 in arms.active
    _, _, x, _ = arms.active[3].tips[-1]
    assert x == pytest.approx(190 / PX, abs=12)  # the fingertips, not the arm's end
    assert arms.active[2].last_frame == 2
