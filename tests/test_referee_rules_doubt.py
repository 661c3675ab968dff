"""Ruling *the-rules-doubt-a-reading*: a card read surely that the rules refuse, where another
of its readings would be accepted, is asked about rather than ruled an error."""

from __future__ import annotations

import pytest
from referee_show import KK, before_a_play

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import Move, Verdict
from companion.vision.track import TrackEvent


def _misread_play(seed: int) -> tuple:
    """A Kendra Kari play up to its card, and a card that the rules refuse there as a
    wrong match (the card it could be misread as)."""
    show, move = before_a_play(seed)
    eng = show.ref.engine
    for card in deck_cards(DeckKind.MUGHAL):
        if card == move.cards[0]:
            continue
        ruling = eng.observe(Move(move.player, move.action, (card,), move.target))
        eng.undo()
        if ruling.verdict is Verdict.ILLEGAL and "match" in ruling.reason:
            return show, move, card
    raise AssertionError("no card is refused as a wrong match")


def _seen(show, move: Move, read: Card, readings) -> str:
    zone = f"pos{move.target}"
    show._tick(move.player)
    show.reach(move.player, KK.zone(zone).center_mm)
    show.frame += 1
    show.outputs += show.ref.observe([TrackEvent(
        "appeared", read.id, KK.zone(zone).center_mm, zone, readings[0][1], show.frame - 5,
        show.frame, show.t, track_id=50, candidates=readings)], show.frame, show.t)
    return zone


@pytest.mark.parametrize("seed", [0, 3])
def test_a_refused_card_another_reading_fits_is_asked_about(seed):
    show, move, wrong = _misread_play(seed)
    zone = _seen(show, move, wrong, ((wrong.id, 0.98), (move.cards[0].id, 0.02)))
    doubts = [o for o in show.outputs if o.kind == "doubt"]
    assert len(doubts) == 1 and doubts[0].zone == zone and "rules" in doubts[0].text
    assert doubts[0].choices == (move.cards[0].id, wrong.id)  # the one that fits, as read
    assert show.ref.waiting_for == zone
    show.ref.confirm(move.cards[0].id, zone, show.frame, show.t, doubts[0].track)
    last = show.rulings()[-1].ruling
    assert last.move == move and last.verdict is not Verdict.ILLEGAL


def test_the_players_word_that_it_was_read_right_stands_and_is_not_asked_again():
    show, move, wrong = _misread_play(0)
    zone = _seen(show, move, wrong, ((wrong.id, 0.98), (move.cards[0].id, 0.02)))
    doubts = [o for o in show.outputs if o.kind == "doubt"]
    said = show.ref.confirm(wrong.id, zone, show.frame, show.t, doubts[0].track)
    assert not [o for o in said if o.kind == "doubt"] and show.ref.waiting_for == ""
    assert show.rulings()[-1].ruling.verdict is Verdict.ILLEGAL  # the players' error


def test_an_unlikely_other_reading_leaves_the_error_to_the_players():
    show, move, wrong = _misread_play(0)
    _seen(show, move, wrong, ((wrong.id, 0.998), (move.cards[0].id, 0.002)))
    assert not [o for o in show.outputs if o.kind == "doubt"]
    last = show.rulings()[-1].ruling
    assert last.move.cards == (wrong,) and last.verdict is Verdict.ILLEGAL
