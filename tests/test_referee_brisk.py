"""Who laid a Kendra Kari card, told by when and where the hands were seen. At a brisk
pace hands pass over a ring position on their way to another place, and a hand pauses
over the place it lays a card on (not moving, so not seen there); a doubt the players
answer later keeps the hand seen when it came."""

from __future__ import annotations

import numpy as np
import pytest
from referee_show import TableShow, before_a_play

from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.track import TrackEvent


@pytest.mark.parametrize("seed", [3, 5])
def test_a_hand_that_passed_nearer_long_before_did_not_lay_the_card(seed):
    """Ruling *nearest-then-and-there*: the next player's hand passed 11 mm from a ring
    position 20 frames before a card was first seen there; the hand that laid it was seen
    12 mm from it, 3 frames before. The card is the later hand's."""
    show, laid = before_a_play(seed)
    zone = f"pos{laid.target}"
    cx, cy = show.ref.layout.zone(zone).center_mm
    show.reach((laid.player + 1) % 4, (cx + 11.0, cy))  # turns there 11 frames before its end
    show.reach(laid.player, (cx, cy + 12.0))
    # seen 3 frames after this hand turned there (20 after the other did)
    out = show.seen_laid(laid.cards[0], zone, show.frame - 8)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]


@pytest.mark.parametrize("seed, i", [(1, 47), (8, 20), (6, 8), (10, 7)])
def test_a_third_players_hand_lays_its_own_card_not_a_second_card(seed, i):
    """Ruling *third-hand-no-second-card*: a player opened a phase on Position 7 (or
    played a card), the next player drew unseen, and the player after laid a card on
    Position 1 (or bridged to 7), their hand seen. That is their own card, after a draw
    inferred, not the first player's second card nor the next player's (which the players
    were asked to choose between)."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:i + 1]:
        show.kendra_kari(move, hands=True)
    show._tick(moves[i + 1].player)  # the camera never saw this draw
    show.kendra_kari(moves[i + 2], hands=True)
    assert [o.ruling.move for o in show.rulings()][-3:] == moves[i:i + 3]
    assert not [o for o in show.outputs if o.kind == "question"]


def test_the_hand_seen_when_a_doubt_came_lays_the_card_the_players_name_later():
    """Ruling *hand-kept-for-the-answer*: Player 1 drew (kept the card) and Player 2's hand
    laid a card on a position that already held one; the reader was unsure, and the doubt
    held nothing up (it might be the card lying there). When the players named the new
    card, the hand seen then was forgotten, and they were asked whether Player 1 had
    played the card just drawn."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, 3)).moves)
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:15]:  # ... Player 1 draws
        show.kendra_kari(move, hands=True)
    laid = moves[15]  # Player 2 plays the 6 of Kumancha onto the 4 of Ghulam
    zone = f"pos{laid.target}"
    (lying,) = show.table[zone]
    centre = show.ref.layout.zone(zone).center_mm
    show.reach(laid.player, centre)
    doubt = TrackEvent("unsure", None, centre, zone, 0.3, show.frame - 5, show.frame, show.t,
                       77, candidates=((lying.id, 0.3), (laid.cards[0].id, 0.2)),
                       covers=lying.id, since=show.frame - 5)
    show.outputs += show.ref.observe([doubt], show.frame, show.t)
    show.outputs += show.ref.confirm(laid.cards[0].id, zone, show.frame + 20, show.t + 1.0,
                                     track=77)
    assert show.rulings()[-1].move == laid
    assert not [o for o in show.outputs if o.kind == "question"]


@pytest.mark.parametrize("seed", [3, 5])
def test_a_hand_back_from_its_own_card_did_not_lay_the_next_a_moment_later(seed):
    """Ruling *no-round-of-draws-in-a-moment*: the player who just played reached back
    over the next position, and the next player's card was seen there 0.45 s after the
    card before it (the laying hand never seen). The passing hand's story needs the three
    other players to have drawn unseen meanwhile, 0.3 s a draw at least: the turn order
    stands, with no draw inferred and nothing asked."""
    show, laid = before_a_play(seed)
    before = show.rulings()[-1].move
    zone = f"pos{laid.target}"
    cx, cy = show.ref.layout.zone(zone).center_mm
    start = show.frame
    show.reach(before.player, (cx + 5.0, cy))
    out = show.seen_laid(laid.cards[0], zone, start + 9)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]


@pytest.mark.parametrize("seed", [3, 5, 11])
def test_of_two_cards_seen_together_the_one_on_the_next_position_came_first(seed):
    """Ruling *the-ring-tells-the-order*: two players laid cards one after the other, and
    the tracker first saw the second one 2 frames before the first (a hand rested over
    it). The card on the position the next card goes to came first; both stand."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    i = next(k for k in range(1, len(moves) - 1)
             if all(m.action == "play" and m.target != "7" for m in moves[k:k + 2])
             and moves[k].player != moves[k + 1].player)
    show = TableShow(Referee("kendra-kari", 4))
    for move in moves[:i]:
        show.kendra_kari(move)
    first, second = moves[i], moves[i + 1]
    show._tick(first.player)
    since = show.frame
    show.frame += 5
    show.seen_laid(second.cards[0], f"pos{second.target}", since)
    show.seen_laid(first.cards[0], f"pos{first.target}", since + 2)
    assert [r.move for r in show.ref.rulings()][-2:] == [first, second]


@pytest.mark.parametrize("seed", [2, 5, 8])
def test_a_new_phases_card_on_position_7_seen_late_came_first(seed):
    """Ruling *seven-is-first*: the bridge's builder began a new phase with two cards, and
    a hand resting over the one on Position 7 kept it from view until 2 s after the one on
    Position 1 was seen. "The first card to be laid down is deemed to be the one at
    Position 7": the phase begins with both, none refused."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    i = next(k for k, m in enumerate(moves) if m.action == "start" and len(m.cards) == 2)
    show = TableShow(Referee("kendra-kari", 4))
    for move in moves[:i]:
        show.kendra_kari(move)
    start = moves[i]
    show._tick(start.player)
    on_7, on_1 = start.cards
    show.lay(on_1, "pos1")
    show.t += 2.0
    show.frame += 20
    show.lay(on_7, "pos7")
    for move in moves[i + 1:i + 3]:
        show.kendra_kari(move)
    rulings = show.ref.rulings()
    assert [r.move for r in rulings][-3:] == moves[i:i + 3]
    assert not [r for r in rulings if r.verdict.value == "illegal"]


@pytest.mark.parametrize("seed", [3, 5, 11])
def test_a_hand_touching_the_edge_nearer_the_next_seat_is_still_its_arms(seed):
    """Ruling *a-hand-keeps-its-arm*: a player's arm came in toward a ring position, then
    only the hand and its card showed in the motion map (the sleeve like the mat), a blob
    touching the mat's edge nearer the next player's seat than the player's own. It is the
    hand the player's reach was seen at a moment before: the card is the player's (not
    the next player's after a draw unseen), and nothing is asked."""
    show, laid = before_a_play(seed)
    zone = f"pos{laid.target}"
    target = np.array(show.ref.layout.zone(zone).center_mm)
    edge = show.edge(laid.player)
    short = target - (target - edge) / np.linalg.norm(target - edge) * 40.0
    contact = show.edge_at(90 + 90 * laid.player + 67.5)  # nearer the next seat's
    # the arm in from its own edge to 40 mm short of the place, then the hand alone
    for f in np.linspace(0.2, 1, 5):
        show.moving(edge, edge + (short - edge) * f)
    show.moving(contact, target)
    since = show.frame
    show.still()
    out = show.seen_laid(laid.cards[0], zone, since)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]
