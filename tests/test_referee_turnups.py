"""Kendra Kari's 2011 turn-ups at a camera table: every player holds nine cards and none can
play, so the player who last came to nine turns up cards from the stock. No pass shows;
ruling *turned-up-onto-the-gathered-pile*: an unsuitable card is laid face up on the
Gathered pile, the suitable one is taken into the hand and laid on the ring."""

from __future__ import annotations

import pytest
from referee_show import KK, TableShow

from companion.cards import Card
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.track import TrackEvent

BOOK_2011 = {"hand_limit_nine": True, "play_drawn_card": False, "first_play_2011": True}


def _turn_up_games() -> list[int]:
    """Three-player 2011-book games (seeds 170-199) that come to a turn-up; one turns up an
    unsuitable card first (turn-ups are rare: none in 400 games of four to six players)."""
    return [seed for seed in range(170, 200) if any(
        m.action == "turnup" for m in simulate("kendra-kari", 3, BOOK_2011, seed).moves)]


def _shown(seed: int, unseen_draws: int = 0) -> tuple[list, TableShow]:
    """The game shown with its hands (passes show nothing, nor the last ``unseen_draws``
    draws before the first turn-up): the record's moves and the show."""
    moves = list(table_view(simulate("kendra-kari", 3, BOOK_2011, seed)).moves)
    first = next(i for i, m in enumerate(moves) if m.action == "turnup")
    draws = [i for i in range(first) if moves[i].action == "draw"]
    missed = draws[len(draws) - unseen_draws:] if unseen_draws else []
    show = TableShow(Referee("kendra-kari", 3, BOOK_2011))
    for i, (move, after) in enumerate(zip(moves, moves[1:] + [None])):
        if move.action != "pass" and i not in missed:
            show.kendra_kari(move, hands=True, after=after)
    return moves, show


def test_two_games_come_to_turn_ups_one_with_a_card_turned_aside():
    seeds = _turn_up_games()
    assert len(seeds) == 2
    turned = [m for m in simulate("kendra-kari", 3, BOOK_2011, seeds[1]).moves
              if m.action == "turnup"]
    assert len(turned) == 2  # (the first is unsuitable)


@pytest.mark.parametrize("seed", [174, 179])
def test_a_round_of_passes_and_the_turn_ups_are_followed(seed):
    """The turn-up shows the passes no camera sees: every player held nine cards and
    passed. A card new to the game face up on the Gathered pile was turned up and was not
    suitable; the card the turner's hand lays on the ring, the hand having stopped at the
    stock, was turned up and played "as though it were a card from their hand"."""
    moves, show = _shown(seed)
    judged = [r.move for r in show.ref.rulings()]
    assert judged == moves
    assert not [o for o in show.ref.outputs if o.kind in ("question", "desync")]
    events = [e for o in show.ref.outputs if o.ruling for e in o.ruling.events]
    told = [e.text for e in events if e.kind == "turnup" and e.announce]
    assert len(told) == 1 and "face up on the Gathered pile" in told[0]  # (where to lay them)
    assert sum(e.kind == "turnup" and not e.announce for e in events) == \
        sum(m.action == "turnup" for m in moves)


def test_a_turn_up_shows_the_draws_the_camera_missed_before_it():
    """The last two draws before the turn-up unseen (at a brisk 2011-book table with three
    players, Player 1 drew four times in 30 frames while the others passed, and two draws
    were taken for the one before seen again): the turner's hand stopped at the stock is
    taken for one of them, and the card turned aside shows that every hand came to nine,
    so the other is put back (marked as inferred) before the passes."""
    moves, show = _shown(179, unseen_draws=2)
    assert [r.move for r in show.ref.rulings()] == moves
    assert any(o.kind == "draw" and "must have drawn" in o.text for o in show.ref.outputs)


def test_a_card_on_the_gathered_pile_is_no_move_without_the_nine_card_limit():
    """By the 2015 book a player who cannot play draws, so nobody turns cards up: a card
    seen on the Gathered pile decides nothing."""
    moves = list(table_view(simulate("kendra-kari", 3, {}, 179)).moves)
    show = TableShow(Referee("kendra-kari", 3))
    for move in moves[:10]:
        show.kendra_kari(move, hands=True)
    before = [r.move for r in show.ref.rulings()]
    unplayed = next(c for c in simulate("kendra-kari", 3, {}, 179).deal["stock"][::-1]
                    if all(c not in [x.id for x in m.cards] for m in moves[:10]))
    show.reach(0, KK.zone("gathered").center_mm, lay=Card.parse(unplayed))
    assert [r.move for r in show.ref.rulings()] == before == moves[:10]


def _to_the_gathered_pile(seed: int) -> tuple[list, int, TableShow]:
    """The game shown with its hands up to its first turn-up, the turner's hand then
    reaching to the Gathered pile (the card it lays there not yet seen): the moves, the
    turn-up's index and the show."""
    moves = list(table_view(simulate("kendra-kari", 3, BOOK_2011, seed)).moves)
    first = next(i for i, m in enumerate(moves) if m.action == "turnup")
    show = TableShow(Referee("kendra-kari", 3, BOOK_2011))
    for move in moves[:first]:
        if move.action != "pass":
            show.kendra_kari(move, hands=True)
    show._tick(moves[first].player)
    show.reach(moves[first].player, KK.zone("gathered").center_mm)
    return moves, first, show


def test_a_turned_up_card_not_named_on_the_gathered_pile_is_asked_about():
    """The card turned aside read unsure (a deck the model never saw): while every player
    holds nine cards it is asked about, and the answer judges the turn-up. (On a brisk
    three-player film with the Mughal deck three of four cards turned aside went unjudged,
    their doubts dropped as a pile's.)"""
    moves, first, show = _to_the_gathered_pile(179)
    card = moves[first].cards[0]
    doubt = TrackEvent("unsure", None, KK.zone("gathered").center_mm, "gathered", 0.4,
                       show.frame - 5, show.frame, show.t, 91,
                       candidates=((card.id, 0.4), (Card.parse("barat-8").id, 0.3)))
    (asked,) = show.ref.observe([doubt], show.frame, show.t)
    assert asked.kind == "unsure" and asked.choices[0] == card.id
    assert show.ref.waiting_for == "gathered"
    show.ref.confirm(card.id, "gathered", show.frame + 100, show.t + 5)
    assert [r.move for r in show.ref.rulings()] == moves[:first + 1]


def test_a_doubt_about_the_gathered_pile_long_before_a_turn_up_is_not_asked():
    moves = list(table_view(simulate("kendra-kari", 3, BOOK_2011, 179)).moves)
    show = TableShow(Referee("kendra-kari", 3, BOOK_2011))
    for move in moves[:6]:
        if move.action != "pass":
            show.kendra_kari(move, hands=True)
    doubt = TrackEvent("unsure", None, KK.zone("gathered").center_mm, "gathered", 0.4,
                       show.frame - 5, show.frame, show.t, 91, candidates=(("barat-8", 0.4),))
    assert show.ref.observe([doubt], show.frame, show.t) == []


@pytest.mark.parametrize("players,seed", [(3, 115), (4, 162)])
def test_a_player_who_drew_to_nine_and_plays_from_the_hand_after_a_round_turned_nothing_up(
        players, seed):
    """By the 2011 book a player who drew their ninth card plays from the hand on their next
    turn, the others having passed: their hand stopped at the stock to draw, which is no
    turn-up. (On a brisk four-player 2011-book film, seed 162, a round of passes and a
    turn-up nobody made were judged, taking the hand's own draw for a sign of one.)"""
    moves = list(table_view(simulate("kendra-kari", players, BOOK_2011, seed)).moves)
    at = next(i for i in range(len(moves) - players) if moves[i].action == "draw"
              and all(m.action == "pass" for m in moves[i + 1:i + players])
              and moves[i + players].player == moves[i].player
              and moves[i + players].action == "play")
    show = TableShow(Referee("kendra-kari", players, BOOK_2011))
    for move in moves[:at + players + 1]:
        if move.action == "draw":
            show._tick(move.player)
            show.stop_at_stock(move.player)
        elif move.action != "pass":
            show.kendra_kari(move, hands=True)
    assert [r.move for r in show.ref.rulings()] == moves[:at + players + 1]


def test_a_card_turned_aside_onto_the_backs_was_laid_when_its_face_was_first_read():
    """The tracker reads a face on the Gathered pile's backs with no hand in its crops as
    the pile's top card turned over (*no-back-turns-by-itself*), lying there since the
    first back: the card turned aside is dated when its face was first read."""
    moves, first, show = _to_the_gathered_pile(179)
    card = moves[first].cards[0]
    seen = TrackEvent("appeared", card.id, KK.zone("gathered").center_mm, "gathered", 0.99,
                      show.frame - 5, show.frame, show.t, 91, since=20)  # (the first back)
    show.ref.observe([seen], show.frame, show.t)
    assert [r.move for r in show.ref.rulings()] == moves[:first + 1]
