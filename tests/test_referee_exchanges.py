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


def _dealt(show: TableShow) -> None:
    """Round 1's face-up cards, Player 1 dealing (the exchanges go Players 2, 3, 1)."""
    for seat, card in ((1, "surya-3"), (2, "barat-7"), (0, "phul-raja")):
        show.lay(Card.parse(card), f"hand{seat}")


def test_a_face_up_card_taken_off_and_replaced_is_an_exchange_though_the_hands_follow_soon():
    """Ruling *an-exchange-is-the-face-up-card-replaced*: Player 3's face-up card taken
    off, a new one laid, and within seconds the hands turned up (a Sama film: taken for
    Player 3's hand turned up, every score after it was a round off)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    _dealt(show)
    show._tick(2)
    show.remove(Card.parse("barat-7"), "hand2")
    show.lay(Card.parse("barat-9"), "hand2")
    for seat, cards in ((1, ("cheng-2", "cheng-5")), (2, ("ghulam-1", "ghulam-4"))):
        for card in cards:  # both hands turned up within seconds of the exchange
            show.lay(Card.parse(card), f"hand{seat}")
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.player, m.action, m.target) for m in moves] == [
        (0, "deal", ""), (1, "stand", ""), (2, "exchange", "up"), (0, "stand", ""),
        (1, "reveal", ""), (2, "reveal", "")]
    assert [c.id for c in moves[2].cards] == ["barat-7", "barat-9"]
    assert [c.id for c in moves[5].cards] == ["ghulam-1", "ghulam-4", "barat-9"]


def test_a_face_up_card_laid_where_the_old_one_lay_is_an_exchange():
    """A face-up card swapped in place: the tracker sees the seat's card change (the new
    one ``covers`` it), never one taken off; it is the exchange, and the hand turned up
    soon after is the reveal (a hard Sama film: Player 3's exchange was read as a stand
    and the new card as one of the hand's face-down cards)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    _dealt(show)
    show._tick(1)
    show.frame += 1
    centre = show.ref.layout.zone("hand1").center_mm
    show.ref.observe([TrackEvent("appeared", "surya-9", centre, "hand1", 0.99, show.frame - 5,
                                 show.frame, show.t, 1, covers="surya-3")], show.frame, show.t)
    for card in ("cheng-2", "cheng-5"):
        show.lay(Card.parse(card), "hand1")
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.player, m.action, m.target) for m in moves] == [
        (0, "deal", ""), (1, "exchange", "up"), (2, "stand", ""), (0, "stand", ""),
        (1, "reveal", "")]
    assert [c.id for c in moves[-1].cards] == ["cheng-2", "cheng-5", "surya-9"]


def test_a_hand_taken_up_a_card_short_is_asked_about_once_the_others_still_lying():
    """Ruling *gathered-unseen*, a hand at a time: Player 2's hand is taken up with one
    face-down card never seen (a resting hand over it) while the other hands still lie;
    the players are asked, naming the card seen. "None of these" is not asked again as
    the other hands are taken up (asked at each zone seen bare, a filmed game put 967
    questions)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    _dealt(show)
    for seat in (1, 2, 0):  # everyone stands
        show._tick(seat)
    show.lay(Card.parse("cheng-2"), "hand1")  # (cheng-5 under a hand)
    for card in ("ghulam-1", "ghulam-4"):
        show.lay(Card.parse(card), "hand2")
    show.still(40)  # (the hands lie turned up a while)
    show.remove(Card.parse("cheng-2"), "hand1")
    assert not [o for o in show.outputs if o.kind == "unseen"]  # (the face-up card lies)
    show.remove(Card.parse("surya-3"), "hand1")
    asked = [o for o in show.outputs if o.kind == "unseen"]
    assert len(asked) == 1 and asked[0].zone == "hand1"
    assert "(seen: 2 of Cheng)" in asked[0].text
    show.ref.dismiss("hand1")
    show.sweep("hand")
    assert len([o for o in show.outputs if o.kind == "unseen"]) == 1


def test_a_hand_taken_up_a_card_short_is_scored_once_the_players_name_the_card():
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    _dealt(show)
    for seat in (1, 2, 0):
        show._tick(seat)
    show.lay(Card.parse("cheng-2"), "hand1")
    show.still(40)
    show.remove(Card.parse("cheng-2"), "hand1")
    show.remove(Card.parse("surya-3"), "hand1")
    show.ref.confirm("cheng-5", "hand1", show.frame, show.t)
    reveal = show.rulings()[-1].ruling
    assert reveal.move.player == 1 and reveal.verdict.value == "legal"
    assert {c.id for c in reveal.move.cards} == {"cheng-2", "cheng-5", "surya-3"}


def test_a_face_up_card_of_the_deal_never_seen_is_asked_for_once_a_seat_shows_two():
    """Ruling *a-face-up-card-dealt-unseen*: Player 3's face-up card lay under a hand for
    the whole deal; Player 2 exchanges (two new cards on its spot), and once that spot is
    bare a moment the players are asked; named, the round is judged as it was played (else
    Player 3's first card seen, a card of its hand, completes the deal)."""
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    for seat, card in ((1, "surya-3"), (0, "phul-raja")):  # (barat-7 under a hand)
        show.lay(Card.parse(card), f"hand{seat}")
    show._tick(1)
    show.remove(Card.parse("surya-3"), "hand1")
    show.lay(Card.parse("surya-9"), "hand1")
    asked = [o for o in show.outputs if o.kind == "unseen"]
    assert len(asked) == 1 and asked[0].zone == "hand2"
    assert asked[0].text == "Player 3's face-up card of the deal was not seen: which card was it?"
    show.ref.confirm("barat-7", "hand2", show.frame, show.t)
    for seat, cards in ((1, ("cheng-2", "cheng-5")), (2, ("ghulam-1", "ghulam-4"))):
        show._tick(seat)
        for card in cards:
            show.lay(Card.parse(card), f"hand{seat}")
    moves = [o.ruling.move for o in show.rulings()]
    assert [(m.player, m.action, m.target) for m in moves] == [
        (0, "deal", ""), (1, "exchange", "up"), (2, "stand", ""), (0, "stand", ""),
        (1, "reveal", ""), (2, "reveal", "")]
    assert [c.id for c in moves[0].cards] == ["surya-3", "barat-7", "phul-raja"]
    assert [c.id for c in moves[-1].cards] == ["ghulam-1", "ghulam-4", "barat-7"]


def test_a_face_the_tracker_dated_itself_keeps_its_date_on_a_hand_zone():
    """A face read where a back lay since the deal is dated when the face was first read
    (the event's first frame), unless the tracker dated it later itself (``since``): a card
    the players were asked about and then read surely, on a track born as the back beneath
    (a Sama film: dated from the back, the 10 of Ghulam went into the round's deal)."""
    from companion.referee.turnups import dated_when_read
    ref = Referee("sama", 3, {"first_dealer": 0})
    centre = ref.layout.zone("hand1").center_mm
    turned = TrackEvent("appeared", "ghulam-10", centre, "hand1", 0.9, 300, 310, 10.0, 5,
                        since=40)  # (the back's date: the face first read at 300)
    assert dated_when_read(ref, turned).since == 300
    asked = TrackEvent("appeared", "ghulam-10", centre, "hand1", 0.9, 40, 310, 10.0, 5,
                       since=300)  # (the track born as the back at 40)
    assert dated_when_read(ref, asked).since == 300
