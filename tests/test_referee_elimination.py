"""The ruling *named by elimination*: a doubtful card whose other readings are cards the
game has seen played is named by the referee, and never otherwise."""

from __future__ import annotations

import dataclasses

import pytest
from referee_show import GJ

from companion.games.base import Move
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.referee.elimination import named_by_elimination
from companion.vision.track import TrackEvent


def _moves(n: int) -> list[Move]:
    return list(table_view(simulate("ganjifa", 4, {}, 0)).moves[:n])


def _seen(move: Move, frame: int, track: int) -> TrackEvent:
    zone = f"play{move.player}"
    return TrackEvent("appeared", move.cards[0].id, GJ.zone(zone).center_mm, zone, 0.99,
                      frame - 5, frame, frame / 30, track)


def _unsure(move: Move, frame: int, track: int, conf: float, *others: tuple[str, float],
            needed: float | None = 0.9) -> TrackEvent:
    """The tracker's doubt about ``move``'s card, read at ``conf``, with ``others``."""
    zone = f"play{move.player}"
    return TrackEvent("unsure", None, GJ.zone(zone).center_mm, zone, conf, frame - 5, frame,
                      frame / 30, track, candidates=((move.cards[0].id, conf), *others),
                      needed=needed)


def _two_played():
    a, b, c = _moves(3)
    ref = Referee("ganjifa", 4)
    ref.observe([_seen(a, 30, 0), _seen(b, 60, 1)], 60)
    return ref, a, b, c


def test_a_doubt_shared_with_a_played_card_is_named_and_judged():
    ref, a, b, c = _two_played()
    ev = _unsure(c, 90, 2, 0.86, (a.cards[0].id, 0.12), ("kurma-4", 0.01))
    out = ref.observe([ev], 90)
    named = [o for o in out if o.kind == "named"]
    assert len(named) == 1 and named[0].choices == (c.cards[0].id,)
    assert named[0].track == 2  # the tracker is told it, as an answer (TableTracker.name)
    assert a.cards[0].id in named[0].text and "98%" in named[0].text  # 0.86 / 0.88
    assert not [o for o in out if o.kind == "unsure"] and ref.waiting_for == ""
    assert [r.move for r in ref.rulings()] == [a, b, c]
    # the tracker's readings settle on the same card later: no second move
    later = dataclasses.replace(_seen(c, 150, 2), resolves=True)
    assert ref.observe([later], 150) == [] and [r.move for r in ref.rulings()] == [a, b, c]


def test_the_ruling_can_be_turned_off():
    a, b, c = _moves(3)
    ref = Referee("ganjifa", 4, by_elimination=False)
    ref.observe([_seen(a, 30, 0), _seen(b, 60, 1)], 60)
    ev = _unsure(c, 90, 2, 0.86, (a.cards[0].id, 0.12))
    assert [o.kind for o in ref.observe([ev], 90)] == ["unsure"]
    assert ref.waiting_for == f"play{c.player}"


@pytest.mark.parametrize("why", ["others in play", "too little left", "capped confidence",
                                 "no bar", "best was played", "already on the spot"])
def test_a_doubt_the_played_cards_do_not_settle_is_asked(why):
    ref, a, b, c = _two_played()
    played = a.cards[0].id
    ev = {"others in play": _unsure(c, 90, 2, 0.86, ("kurma-4", 0.12)),
          # 0.6 / (1 - 0.2) = 0.75, under the tracker's 0.9
          "too little left": _unsure(c, 90, 2, 0.6, (played, 0.2), ("kurma-4", 0.15)),
          # the tracker held the reading at 0.5 (a weak detail match) though it ranks 0.95
          "capped confidence": dataclasses.replace(
              _unsure(c, 90, 2, 0.95, (played, 0.04)), confidence=0.5),
          "no bar": _unsure(c, 90, 2, 0.86, (played, 0.12), needed=None),
          "best was played": dataclasses.replace(
              _unsure(c, 90, 2, 0.12, (played, 0.86)),
              candidates=((played, 0.86), (c.cards[0].id, 0.12))),
          # the card lying on that spot, read again on a new track as another card: the
          # played card among the readings may be this very card
          "already on the spot": dataclasses.replace(
              _unsure(a, 90, 5, 0.86, (played, 0.12)),
              candidates=((c.cards[0].id, 0.86), (played, 0.12))),
          }[why]
    out = ref.observe([ev], 90)
    assert "named" not in [o.kind for o in out]
    assert "unsure" in [o.kind for o in out]
    assert [r.move for r in ref.rulings()] == [a, b]


def test_elimination_names_only_the_best_reading_and_says_how_sure():
    ref, a, b, c = _two_played()
    ev = _unsure(c, 90, 2, 0.8, (a.cards[0].id, 0.1), (b.cards[0].id, 0.05))
    named = named_by_elimination(ev, ref._already_played)
    assert named is not None and named.card == c.cards[0]
    assert named.sure == pytest.approx(0.8 / 0.85)
    assert named.played == (a.cards[0].id, b.cards[0].id)
    # an appeared event, or a doubt with nothing played among its readings: nothing
    assert named_by_elimination(_seen(c, 90, 2), ref._already_played) is None
    assert named_by_elimination(ev, lambda card: False) is None


def test_the_players_are_offered_the_first_three_readings_the_game_allows():
    from companion.cards import deck_cards
    ref, a, b, c = _two_played()
    laid = {a.cards[0], b.cards[0], c.cards[0]}
    others = [x.id for x in deck_cards(c.cards[0].deck) if x not in laid][:3]
    ev = _unsure(c, 90, 2, 0.4, (a.cards[0].id, 0.2), *((o, 0.1) for o in others))
    assert len(ev.candidates) == 5
    assert ref.choices_for(ev) == ((c.cards[0].id, 0.4), (others[0], 0.1), (others[1], 0.1))
    out = ref.observe([ev], 90)  # 0.4 / 0.8 is not sure enough to name it
    assert [o.choices for o in out if o.kind == "unsure"] == [
        (c.cards[0].id, others[0], others[1])]
