"""Sama at a camera table: the face-up cards dealt, a face-up card exchanged and the hands
turned up on the seats' hand zones (``companion.referee.exchanges``)."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.cards import Card
from companion.games.base import Move
from companion.record import simulate
from companion.referee import Referee
from companion.referee.exchanges import UNSEEN_STAND
from companion.vision.track import TrackEvent


def _seen_as(move: Move) -> Move:
    """What the camera can know of a move: a face-down exchange looks like a stand."""
    if move.action == "exchange" and move.target == "down":
        return Move(move.player, "stand")
    return move


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 1), (6, 2)])
def test_sama_is_followed_round_by_round_and_scored(players, seed):
    rec = simulate("sama", players, {}, seed)
    assert any(m.target == "up" for m in rec.moves) and any(m.target == "down"
                                                            for m in rec.moves)
    show = TableShow(Referee("sama", players, rec.options))
    for move in rec.moves:
        show.sama(move)
    judged = show.rulings()
    assert [o.ruling.move for o in judged] == [_seen_as(m) for m in rec.moves]
    assert all(o.ruling.verdict.value == "legal" for o in judged)
    assert all(o.text.endswith(UNSEEN_STAND) for o in judged if o.ruling.move.action == "stand")
    assert rec.result["text"] in judged[-1].ruling.events[-1].text


def test_the_first_face_up_card_seen_names_the_dealer():
    """Ruling *the-first-face-up-card-names-the-dealer* (the options leave it random)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": -1}))
    for seat, card in ((2, "surya-3"), (0, "barat-7"), (1, "phul-raja")):
        show.lay(Card.parse(card), f"hand{seat}")
    deal = show.rulings()[0].ruling.move
    assert deal.player == 1 and [c.id for c in deal.cards] == ["surya-3", "barat-7", "phul-raja"]


def test_a_hand_turned_up_ends_the_exchanges_of_the_seats_still_to_choose():
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    for seat, card in ((1, "surya-3"), (2, "barat-7"), (0, "phul-raja")):
        show.lay(Card.parse(card), f"hand{seat}")
    show._tick(1)
    show.lay(Card.parse("cheng-2"), "hand1")  # Player 2 turns up both face-down cards
    show.lay(Card.parse("cheng-5"), "hand1")
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.player, m.action) for m in moves] == [(0, "deal"), (1, "stand"), (2, "stand"),
                                                     (0, "stand"), (1, "reveal")]
    assert [c.id for c in moves[-1].cards][2] == "surya-3"


def test_face_down_cards_turned_up_in_place_are_dated_when_their_faces_are_read():
    """A back the tracker saw since the deal and then read as a face is dated from the
    back (ruling *no-back-turns-by-itself*); on a hand zone it was turned up: its face's
    first reading dates it, after the exchanges (else the reveal came before them)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    dealt = show.frame
    for seat, card in ((1, "surya-3"), (2, "barat-7"), (0, "phul-raja")):
        show.lay(Card.parse(card), f"hand{seat}")
    show._tick(1)
    show.remove(Card.parse("surya-3"), "hand1")
    show.lay(Card.parse("surya-9"), "hand1")  # Player 2 exchanges the face-up card
    show.still(100)
    for card in ("cheng-2", "cheng-5"):  # its backs, seen since the deal, turned up
        centre = show.ref.layout.zone("hand1").center_mm
        show.frame += 1
        show.ref.observe([TrackEvent("appeared", card, centre, "hand1", 0.99, show.frame,
                                     show.frame + 5, show.t, 40, since=dealt)],
                         show.frame + 5, show.t)
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.player, m.action, m.target) for m in moves] == [
        (0, "deal", ""), (1, "exchange", "up"), (2, "stand", ""), (0, "stand", ""),
        (1, "reveal", "")]
