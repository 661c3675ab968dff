"""Kendra Kari's draws as the camera sees them: a hand that comes in to the stock and turns
back drew; the referee infers a draw the camera missed from the next one it saw."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from referee_show import KK, TableShow, before_a_play

from companion.games.base import Move
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.motion import MotionMap
from companion.vision.track import TrackEvent


def test_a_resting_hand_flickering_beside_the_stock_is_not_a_draw():
    """Player 2 sits at the left edge, beside the stock. Their hand resting there shows in
    the motion map for a frame now and then (light, noise): it came in by nothing, so it
    drew nothing, though it is Player 2's turn."""
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    show = TableShow(Referee("kendra-kari", 4))
    show.kendra_kari(rec.moves[0])  # the deal
    show.kendra_kari(rec.moves[1])  # Player 1's turn; Player 2's is next
    assert show.ref.engine.state.turn == 1
    flicker = np.zeros((252, 356), np.uint8)
    cv2.rectangle(flicker, (0, 118), (63, 134), 1, -1)  # the left edge to the stock
    still = MotionMap.still((252, 356), 0.6)
    before = len(show.outputs)
    for mask in [flicker] + [None] * 8:
        show.frame += 1
        show.t += 0.05
        seen = MotionMap.of(mask.astype(bool), 0.6) if mask is not None else still
        show.outputs += show.ref.observe([], show.frame, show.t, seen)
    assert not [o for o in show.outputs[before:] if o.kind == "draw"]


def test_a_draw_after_a_resting_hand_flickered_deeper_in_is_seen():
    """Player 2's hand rests on the mat past the stock and flickers in the motion map for
    a frame; a moment later the hand draws. The flicker's one sighting is not where that
    reach began: taken as its deepest point, the draw looked like the hand turning back,
    and on a hard filmed game Player 2's draw went unseen and their hand count was one
    card short until the end."""
    rec = table_view(simulate("kendra-kari", 4, {}, 3))
    show = TableShow(Referee("kendra-kari", 4))
    show.kendra_kari(rec.moves[0])  # the deal
    show.kendra_kari(rec.moves[1])  # Player 1's turn; Player 2's is next
    flicker = np.zeros((252, 356), np.uint8)
    cv2.line(flicker, (0, 174), (99, 174), 1, 14)  # resting 165 mm in, past the stock
    still = MotionMap.still((252, 356), 0.6)
    for mask in [flicker, None, None, None]:
        show.frame += 1
        show.t += 0.05
        show.outputs += show.ref.observe(
            [], show.frame, show.t, MotionMap.of(mask.astype(bool), 0.6)
            if mask is not None else still)
    before = len(show.outputs)
    show.reach(1, show.ref.layout.zone("stock").center_mm, inset_mm=10.0)
    assert [o.text for o in show.outputs[before:] if o.kind == "draw"] == [
        "Player 2 draws from the stock (seen)"]


def _missed_draw_then_drawn_and_played(seed: int) -> tuple[list, int]:
    """A game's moves and the index of a draw followed by the next player's draw and
    that player's card (the card drawn, played at once)."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    for i in range(1, len(moves) - 2):
        a, b, c = moves[i:i + 3]
        if a.action == b.action == "draw" and c.action == "play" \
                and b.player == c.player != a.player:
            return moves, i
    raise AssertionError("no such turn in this game")


@pytest.mark.parametrize("seed", [3, 5, 11])
def test_a_card_drawn_and_played_after_a_draw_missed_is_the_drawn_card(seed):
    """Ruling *drawn-then-played-after-a-draw-missed*: the camera missed a player's draw,
    then saw the next player draw and lay a card. That player drew (seen) and played the
    card drawn; the draw before it was missed."""
    moves, missed = _missed_draw_then_drawn_and_played(seed)
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for i, move in enumerate(moves):
        if i == missed:
            show._tick(move.player)  # the camera never saw this hand
            continue
        show.kendra_kari(move, hands=True)
    assert [o.move for o in show.rulings()] == moves
    drawer = moves[missed + 1].player
    draws = [o.text for o in show.outputs if o.kind == "draw"]
    k = draws.index(f"Player {moves[missed].player + 1} must have drawn from the stock (not "
                    f"seen: Player {drawer + 1}'s hand laid the next card)")
    assert draws[k + 1] == f"Player {drawer + 1} draws from the stock (seen)"


@pytest.mark.parametrize("seed", [3, 5])
def test_the_hand_that_laid_a_card_is_the_one_before_it_was_seen_not_before_it_was_named(seed):
    """A doubtful card settles up to a second after it was laid; by then the next player's
    hand may have reached over its zone. The card is the drawn card of the hand that laid
    it (the hard Kendra Kari film with a PySolFC profile: the 5 of Cheng, Player 2's drawn
    card, was taken for Player 3's)."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    k = next(i for i in range(1, len(moves) - 1)
             if moves[i].action == "draw" and moves[i + 1].action == "play"
             and moves[i + 1].player == moves[i].player and moves[i + 1].target != "7")
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:k + 1]:
        show.kendra_kari(move, hands=True)
    laid = moves[k + 1]
    zone = f"pos{laid.target}"
    centre = show.ref.layout.zone(zone).center_mm
    show._tick(laid.player)
    show.reach(laid.player, centre)
    seen_from = show.frame + 1  # the hand has gone: the card is seen from here
    still = MotionMap.still((252, 356), 0.6)
    for _ in range(20):  # a second, its readings in doubt
        show.frame += 1
        show.t += 0.05
        show.ref.observe([], show.frame, show.t, still)
    show.reach((laid.player + 1) % 4, centre)  # the next player's hand passes over it
    doubt = TrackEvent("unsure", None, centre, zone, 0.4, show.frame - 5, show.frame, show.t,
                       77, candidates=((laid.cards[0].id, 0.4),), since=seen_from)
    show.ref.observe([doubt], show.frame, show.t)
    show.ref.confirm(laid.cards[0].id, zone, show.frame + 1, show.t + 0.1)
    assert show.rulings()[-1].move == laid


@pytest.mark.parametrize("seed", [3, 5])
def test_the_hand_that_laid_a_card_is_the_nearest_not_an_idle_one_passing_after(seed):
    """Ruling *nearest-hand-laid-it*: right after a player laid a card, the next player's
    idle hand passed 60 mm from it. The card is the nearer hand's, laid in turn, not the
    next player's (which would mean the player before drew unseen)."""
    show, laid = before_a_play(seed)
    zone = f"pos{laid.target}"
    centre = show.ref.layout.zone(zone).center_mm
    show.reach(laid.player, centre)
    seen_from = show.frame - 5  # the card shows as its hand leaves
    show.reach((laid.player + 1) % 4, (centre[0], centre[1] + 60.0))
    out = show.seen_laid(laid.cards[0], zone, seen_from)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]


@pytest.mark.parametrize("seed", [3, 5])
def test_a_quick_hand_first_seen_over_the_card_laid_it(seed):
    """Ruling *quick-hand-over-the-card*: at a brisk pace a player's hand is first seen
    already over the position it lays a card on (100 mm from their edge), so it is never
    seen coming in. The card is that hand's, not the hand that came in 60 mm from it a
    moment before."""
    show, laid = before_a_play(seed)
    zone = f"pos{laid.target}"
    centre = show.ref.layout.zone(zone).center_mm
    show.reach((laid.player + 1) % 4, (centre[0], centre[1] + 60.0))  # passing near it
    show.reach(laid.player, centre, first_seen=0.95)
    out = show.seen_laid(laid.cards[0], zone, show.frame - 5)
    assert show.rulings()[-1].move == laid
    assert not [o for o in out if o.kind in ("draw", "question")]


def _three_draws(seed: int) -> tuple[list, int]:
    """A game's moves and the index of the first of three draws in a row, none of their
    cards played (each drawn card kept)."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    for i in range(1, len(moves) - 3):
        if all(m.action == "draw" for m in moves[i:i + 3]) and moves[i + 3].player not in (
                m.player for m in moves[i:i + 3]):
            return moves, i
    raise AssertionError("no such round in this game")


@pytest.mark.parametrize("seed", [3, 5, 11])
def test_a_draw_missed_then_the_next_two_players_seen_drawing_is_inferred(seed):
    """Ruling *draws-in-a-row*: the camera missed a player's draw, then saw the next two
    players draw, in turn. Each hand seen drawing out of turn used to be dropped as
    passing by, so a round of draws in a six-player game left the hands' counts short,
    and a player was declared the winner with cards in hand."""
    moves, missed = _three_draws(seed)
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for i, move in enumerate(moves[:missed + 3]):
        if i == missed:
            show._tick(move.player)  # the camera never saw this hand
            continue
        show.kendra_kari(move, hands=True)
    assert [o.ruling.move for o in show.rulings()] == moves[:missed + 3]
    draws = [o.text for o in show.outputs if o.kind == "draw"]
    assert draws[-3:] == [
        (f"Player {moves[missed].player + 1} must have drawn from the stock (not seen: the "
         "next two players were seen drawing)"),
        f"Player {moves[missed + 1].player + 1} draws from the stock (seen)",
        f"Player {moves[missed + 2].player + 1} draws from the stock (seen)"]


def _drawn_then_next_plays_by_the_stock(seed: int) -> tuple[list, int] | None:
    """A four-player game's moves and the index of a draw by Player 2 (the seat nearest
    the stock) followed by Player 3's play to Position 5 or 6 (the ring's nearest the
    stock), or None."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves) - 1)
                 if moves[i].action == "draw" and moves[i].player == 1
                 and moves[i + 1].action == "play" and moves[i + 1].player == 2
                 and moves[i + 1].target in ("5", "6")), None)


def _shown_up_to(find) -> tuple[TableShow, list, int]:
    """The first game of seeds 0-59 in which ``find`` finds a turn (its moves, the turn's
    index), shown with its hands up to that turn: the show, the moves, the index."""
    moves, i = next(filter(None, map(find, range(60))))
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:i]:
        show.kendra_kari(move, hands=True)
    return show, moves, i


def test_a_hand_over_the_stock_lays_no_card_on_the_ring():
    """Ruling *a-hand-at-the-stock-lays-nothing*: a hand drawing at the stock, within reach
    of Position 5 or 6, did not lay the card next seen there; with no other hand seen the
    turn order says who did."""
    show, moves, i = _shown_up_to(_drawn_then_next_plays_by_the_stock)
    nxt = moves[i + 1]
    ring = np.array(KK.zone(f"pos{nxt.target}").center_mm)
    stock = np.array(KK.zone("stock").center_mm)
    show._tick(1)
    show.reach(1, tuple(stock + 25.0 * (ring - stock) / np.linalg.norm(ring - stock)))
    show.lay(nxt.cards[0], f"pos{nxt.target}")  # Player 3's hand never seen
    assert [r.move for r in show.ref.rulings()][-2:] == moves[i:i + 2]


def _draw_then_another_plays(seed: int) -> tuple[list, int] | None:
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves) - 1) if moves[i].action == "draw"
                 and moves[i + 1].action == "play" and moves[i + 1].player != moves[i].player
                 and moves[i + 1].target != "7"), None)


def test_two_hands_as_near_the_card_after_a_draw_ask_who_laid_it():
    """Ruling *a-close-hand-is-asked*: the drawer's hand and the next player's came about as
    near the card (within ``RIVAL_MM``) when it was laid: the players are asked, and the
    nearer hand is the likelier answer."""
    moves, i = next(filter(None, map(_draw_then_another_plays, range(60))))
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:i + 1]:
        show.kendra_kari(move, hands=True)
    drawer, laid = moves[i].player, moves[i + 1]
    zone = f"pos{laid.target}"
    centre = KK.zone(zone).center_mm
    show.reach(drawer, centre, first_seen=0.9)
    between = show.frame
    show.reach(laid.player, centre, first_seen=0.9)
    show.seen_laid(laid.cards[0], zone, between)
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert len(asked) == 1 and laid.cards[0].name in asked[0].text
    assert asked[0].choices[0].startswith(f"Player {laid.player + 1} ")  # the nearer hand
    assert show.rulings()[-1].move == laid
    show.ref.answer(asked[0].question_id, 1)
    assert show.rulings()[-1].move == Move(drawer, "play", laid.cards, laid.target)


def _two_card_bridge(seed: int) -> tuple[list, int] | None:
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves)) if moves[i].action == "bridge"
                 and len(moves[i].cards) == 2), None)


def test_two_hands_as_near_a_second_card_ask_whose_it_was():
    """*a-close-hand-is-asked*, for a second card: the hand of the player who laid the first
    and the next player's came about as near it; the nearer hand is the likelier answer."""
    moves, i = next(filter(None, map(_two_card_bridge, range(60))))
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:i]:
        show.kendra_kari(move, hands=True)
    bridge = moves[i]
    first, second = bridge.target.split(",")
    show._tick(bridge.player)
    show.reach(bridge.player, KK.zone(f"pos{first}").center_mm, lay=bridge.cards[0])
    nxt = (bridge.player + 1) % 4
    centre = KK.zone(f"pos{second}").center_mm
    show.reach(nxt, centre, first_seen=0.9)
    between = show.frame
    show.reach(bridge.player, centre, first_seen=0.9)
    show.seen_laid(bridge.cards[1], f"pos{second}", between)
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert len(asked) == 1 and bridge.cards[1].name in asked[0].text
    assert asked[0].choices[0].startswith(f"Player {bridge.player + 1} ")  # the nearer hand
    assert show.rulings()[-1].move == bridge


def _beside_the_stock_draws_and_plays(seed: int) -> tuple[list, int] | None:
    """A four-player game's moves and the index of a draw by Player 2 (the seat beside the
    stock) whose card is played at once on Positions 1-6, or None."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves) - 1)
                 if moves[i].action == "draw" and moves[i].player == 1
                 and moves[i + 1].player == 1 and moves[i + 1].action == "play"
                 and moves[i + 1].target != "7"), None)


def test_a_short_reach_to_the_stock_and_on_to_the_ring_is_a_draw():
    """Ruling *a-short-reach-to-the-stock*: Player 2 sits beside the stock. Their hand
    comes 70 mm in to it, goes 65 mm back, then on to the ring to lay the card drawn: a
    draw, though the hand never went back the 80 mm of a turn elsewhere on the mat."""
    show, moves, i = _shown_up_to(_beside_the_stock_draws_and_plays)
    laid = moves[i + 1]
    show.over_the_stock_to(laid.cards[0], f"pos{laid.target}")
    assert "Player 2 draws from the stock (seen)" in [o.text for o in show.outputs]
    assert [r.move for r in show.ref.rulings()][-2:] == moves[i:i + 2]


def _draws_seen(show: TableShow) -> list[tuple[int, int, float]]:
    """The list the show's hand watcher adds each draw it sees to, as (seat, frame, t)."""
    watcher, seen = show.ref._arms, []
    update = watcher.update
    watcher.update = lambda *a: seen.extend(out := update(*a)) or out
    return seen


def test_a_hand_tip_jumping_away_at_the_stock_for_a_frame_is_one_draw():
    """A hand drawing at the stock whose tip jumps 90 mm to another point of the arm for a
    frame looks like two turns back at the stock; it is one draw (``hands.ONE_DRAW``). On a
    hard film Player 1's draw was reported twice, 3 frames apart."""
    show = TableShow(Referee("kendra-kari", 4))
    seen = _draws_seen(show)
    show.arm(0, [(100.0, 380.0), (100.0, 320.0), (100.0, 260.0), (100.0, 215.0),
                 (150.0, 300.0), (100.0, 212.0), (100.0, 260.0), (100.0, 340.0),
                 (100.0, 400.0)])
    assert [seat for seat, _, _ in seen] == [0]


def test_a_hand_first_seen_at_the_stock_that_stays_on_it_drew():
    """A quick hand of Player 2's (beside the stock) is first seen already 25 mm from the
    stock, stays on it for three frames, and goes: it came in by less than a reach, but a
    resting hand's flicker does not stay, so it drew. On a brisk, hard film with our art
    such a draw was missed, and the count of Player 2's hand ran a card short."""
    show = TableShow(Referee("kendra-kari", 4))
    seen = _draws_seen(show)
    show.arm(1, [(75.0, 210.0), (95.0, 212.0), (100.0, 208.0), (98.0, 210.0), (70.0, 210.0)])
    assert [seat for seat, _, _ in seen] == [1]


def _drawn_and_played(seed: int) -> tuple[list, int] | None:
    """A four-player game's moves and the index of a draw whose card is played at once."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves) - 1) if moves[i].action == "draw"
                 and moves[i + 1].action == "play" and moves[i + 1].player == moves[i].player
                 and moves[i + 1].target != "7"), None)


@pytest.mark.parametrize("seats_on", [-1, 2])
def test_a_card_drawn_and_laid_by_a_hand_taken_for_another_seats_offers_the_drawer(seats_on):
    """Ruling *the-drawer-is-a-choice*: a player drew (seen) and laid the card drawn, but
    the hand was taken for another seat's: the seat before theirs, which two unseen draws
    would make the one to play, or the seat after the player to play, which one would.
    The players are asked, and the drawer is among the choices; asked only between the
    player to play and the hand, a filmed game took the hand and put draws in the record
    that never happened, and the one-draw story, taken without a question, put another's
    turns a seat off to its end. With one or two draws unseen the hand's story is still the
    likelier (*three-draws-unseen-are-unlikely*)."""
    show, moves, i = _shown_up_to(_drawn_and_played)
    show.kendra_kari(moves[i], hands=True)  # the draw, seen
    laid = moves[i + 1]
    other = (laid.player + seats_on) % 4
    show.reach(other, KK.zone(f"pos{laid.target}").center_mm, lay=laid.cards[0])
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert len(asked) == 1 and laid.cards[0].name in asked[0].text
    assert asked[0].choices[0] == (f"Player {other + 1}, whose hand was seen (the players "
                                   "before drew unseen)")
    assert show.rulings()[-1].move == Move(other, "play", laid.cards, laid.target)
    show.ref.answer(asked[0].question_id, asked[0].choices.index(
        f"Player {laid.player + 1}, with the card just drawn"))
    assert show.rulings()[-1].move == laid
    assert not [o for o in show.ref.outputs if "must have drawn" in o.text]


def _two_plays(seed: int) -> tuple[list, int] | None:
    """A four-player game's moves and the index of a card played from the hand followed
    by the next player's, on Positions 1-6, or None."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return next(((moves, i) for i in range(1, len(moves) - 1)
                 if all(m.action == "play" and m.target != "7" for m in moves[i:i + 2])
                 and moves[i - 1].action != "draw"), None)


def test_a_card_laid_by_the_hand_three_seats_on_is_the_player_to_plays():
    """Ruling *three-draws-unseen-are-unlikely*: a while after a player laid a card, the
    next card was laid by a hand taken for that same player's, which only three unseen
    draws would make the one to play. The players are asked; the player to play is the
    likelier answer."""
    show, moves, i = _shown_up_to(_two_plays)
    show.kendra_kari(moves[i], hands=True)
    laid = moves[i + 1]
    show.t += 3.0
    show.frame += 30
    show.reach(moves[i].player, KK.zone(f"pos{laid.target}").center_mm, lay=laid.cards[0])
    asked = [o for o in show.ref.outputs if o.kind == "question"]
    assert len(asked) == 1 and laid.cards[0].name in asked[0].text
    assert asked[0].choices[0] == f"Player {laid.player + 1}, whose turn it was"
    assert show.rulings()[-1].move == laid


def test_an_arm_first_seen_between_two_seats_then_plainly_before_one_is_that_seats():
    """Ruling *a-hand-keeps-its-arm*, the plainer crossing deciding: Player 1's arm is first
    seen crossing the mat's edge between two seats, a little nearer Player 2's, then
    plainly in front of Player 1's seat, and the hand goes on to the stock and back. On a
    hard six-player film such a draw was lost to Player 2's reach."""
    show = TableShow(Referee("kendra-kari", 4))
    seen = _draws_seen(show)
    stock = np.array(KK.zone("stock").center_mm)
    show.moving(show.edge_at(137.0), (150.0, 360.0))  # 43 degrees from Player 2, 47 from 1
    for tip in [(140.0, 320.0), (120.0, 270.0), (100.0, 215.0), stock, (130.0, 300.0),
                (150.0, 380.0)]:
        show.moving(show.edge_at(110.0), tip)
    show.still()
    assert [seat for seat, _, _ in seen] == [0]


def test_an_arm_coming_in_where_another_reach_touched_the_edge_is_its_own_seats():
    """Ruling *a-hand-keeps-its-arm* holds for a hand seen deep in the mat, not for a
    reach's farthest point on the mat's edge: Player 2's reach to the stock merged for a
    frame with motion up to the top edge, where Player 3's arm then came in. That arm is
    Player 3's; on a brisk, hard film Player 3's card was taken for Player 2's."""
    show = TableShow(Referee("kendra-kari", 4))
    stock = KK.zone("stock").center_mm
    for tip in [(40.0, 212.0), (80.0, 211.0), stock]:
        show.moving(show.edge(1, 0.0), tip)
    # the sleeve, and motion beyond the hand to the top edge: the reach's farthest point
    show.moving(show.edge(1, 0.0), stock, (342.0, 2.0), width_px=40)
    show.moving((360.0, 0.0), (380.0, 100.0))
    assert show.ref._arms.who_reached((380.0, 100.0), show.frame, over_mm=40.0) == 2
