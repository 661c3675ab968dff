"""The ruling *named by elimination*: a doubtful card whose other readings are cards the
game has seen played is named by the referee, and never otherwise."""

from __future__ import annotations

import dataclasses

import pytest
from referee_show import GJ, TableShow

from companion.games.base import Move
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.referee.elimination import named_by_elimination
from companion.referee.values import pictured_table
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
                                 "no bar", "best was played", "already on the spot",
                                 "read again over its card"])
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
          # the card played on that spot, read surely, then doubted on its own track (a
          # hand resting over it): ruling a-doubt-over-a-laid-card-is-asked
          "read again over its card": dataclasses.replace(
              _unsure(b, 90, 1, 0.86, (played, 0.12)),
              candidates=((c.cards[0].id, 0.86), (played, 0.12)), covers=b.cards[0].id),
          }[why]
    out = ref.observe([ev], 90)
    assert "named" not in [o.kind for o in out]
    assert "unsure" in [o.kind for o in out]
    assert [r.move for r in ref.rulings()] == [a, b]


def test_a_doubt_over_a_card_of_a_trick_already_won_is_named():
    """The next trick's card laid on the spot where the last one's lies (not yet gathered)
    is a new card: ruling a-doubt-over-a-laid-card-is-asked leaves it to elimination."""
    moves = list(table_view(simulate("ganjifa", 4, {}, 0)).moves)
    ref = Referee("ganjifa", 4)
    ref.observe([_seen(m, 30 * (k + 1), k) for k, m in enumerate(moves[:4])], 120)
    nxt = moves[4]
    assert nxt.action == "lead" and len(nxt.cards) == 1
    under = next(m for m in moves[:4] if m.player == nxt.player).cards[0].id
    played = moves[0].cards[0].id if moves[0].cards[0].id != under else moves[1].cards[0].id
    ev = dataclasses.replace(_unsure(nxt, 150, nxt.player, 0.86, (played, 0.12)),
                             covers=under)
    out = ref.observe([ev], 150)
    assert [o.choices for o in out if o.kind == "named"] == [(nxt.cards[0].id,)]


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


def _doubt_on(zone: str, frame: int, track: int) -> TrackEvent:
    """A doubt about the card on ``zone`` with readings of cards nobody laid (unknown art)."""
    return TrackEvent("unsure", None, GJ.zone(zone).center_mm, zone, 0.2, frame - 5, frame,
                      frame / 30, track, candidates=(("kalki-4", 0.2), ("rama-3", 0.1)))


def _to_the_deni_cards_play():
    """A Ganjifa game shown up to the move that plays a Deni's exposed card: (referee, the
    show, that move, the Deni spot)."""
    moves = table_view(simulate("ganjifa", 4, {}, 0)).moves
    k = next(i for i, m in enumerate(moves) if m.action == "deni")
    high, seat = moves[k].cards[1], moves[k].player
    j = next(i for i, m in enumerate(moves) if i > k and high in m.cards)
    assert moves[j].player == seat and moves[j].cards == (high,)
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for move in moves[:j]:
        show.ganjifa(move)
    assert [r.move for r in ref.rulings()] == list(moves[:j])
    return ref, show, moves[j], f"deni{seat}"


@pytest.mark.parametrize("taken", [True, False])
def test_a_deni_card_taken_from_its_spot_is_offered_first_for_a_doubt_on_the_play_spot(taken):
    """The exposed card "remains visible until such time as it is played": once it has left
    the Deni spot, a doubtful card on the same seat's play spot is offered as it first,
    although the reader (a deck it does not know) never read it. Still on its spot, it is
    not offered."""
    ref, show, move, deni = _to_the_deni_cards_play()
    high = move.cards[0]
    if taken:
        show.remove(high, deni)
    f = show.frame + 10
    ev = _doubt_on(f"play{move.player}", f, 99)
    asked = [o for o in ref.observe([ev], f) if o.kind == "unsure"]
    assert len(asked) == 1
    readings = ("kalki-4", "rama-3")
    assert asked[0].choices == ((high.id, *readings) if taken else readings)
    assert (f"{high.name} (was lying face up)" in asked[0].text) == taken
    assert asked[0].why == (((high.id, "was lying face up"),) if taken else ())
    # a card laid on the Deni spot meanwhile is another card to expose, not the one taken
    (elsewhere,) = [o for o in ref.observe([_doubt_on(deni, f, 98)], f) if o.kind == "unsure"]
    assert elsewhere.choices == readings and elsewhere.why == ()
    ref.confirm(high.id, ev.zone, f + 1, (f + 1) / 30, 99)
    assert ref.rulings()[-1].move == move


def test_a_deni_card_taken_off_the_one_beneath_is_offered_first():
    """On the real-art Ganjifa film Player 2's second Deni card (the Rama 5) lay on their
    first (the Kalki vizier), one card to the tracker, named twice by the players. Taken to
    be played, the card beneath was asked about and named: the Rama 5 is off the table, and
    offered first for the doubt on the play spot. Here, Player 3's two Denis."""
    moves = table_view(simulate("ganjifa", 4, {}, 0)).moves
    first, second = [i for i, m in enumerate(moves) if m.action == "deni" and m.player == 2][:2]
    beneath, on_top = moves[first].cards[1], moves[second].cards[1]
    j = next(i for i, m in enumerate(moves) if on_top in m.cards and i > second)
    assert moves[j].cards == (on_top,) and beneath not in moves[j].cards
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for i, move in enumerate(moves[:j]):
        if i not in (first, second):
            show.ganjifa(move)
            continue
        show.lay(move.cards[0], "play2")
        f = show.frame = show.frame + 5
        ref.observe([_doubt_on("deni2", f, 77)], f)
        ref.confirm(move.cards[1].id, "deni2", f, f / 30, 77)
    assert [r.move for r in ref.rulings()] == list(moves[:j])
    f = show.frame + 10
    ref.observe([_doubt_on("deni2", f, 77)], f)  # the card beneath shows
    ref.confirm(beneath.id, "deni2", f, f / 30, 77)
    asked = [o for o in ref.observe([_doubt_on("play2", f + 10, 99)], f + 10)
             if o.kind == "unsure"]
    assert asked and asked[0].choices[0] == on_top.id


def test_the_card_a_deni_calls_for_is_offered_to_the_followers_until_it_is_played():
    """"The player with the called-for card must play it": while a Deni's trick waits for
    it, a doubtful card of a follower is offered as it too, after the best reading (one of
    them holds it); not once it has been played, nor after the trick."""
    moves = table_view(simulate("ganjifa", 4, {}, 0)).moves
    k = next(i for i, m in enumerate(moves) if m.action == "deni")
    ref = Referee("ganjifa", 4)
    show = TableShow(ref)
    for move in moves[:k + 1]:
        show.ganjifa(move)
    called = pictured_table(ref.engine).deni.called
    trick = [m for m in moves[k + 1:k + 4] if m.action in ("follow", "double")]
    j = next(i for i, m in enumerate(trick) if called in m.cards)
    f = show.frame + 10
    for i, m in enumerate(trick):
        ev = _doubt_on(f"play{m.player}", f, 100 + i)
        (asked,) = [o for o in ref.observe([ev], f) if o.kind == "unsure"]
        if i <= j:
            assert asked.choices == ("kalki-4", called.id, "rama-3")  # after the best reading
            assert asked.why == ((called.id, "called for"),) and "(called for)" in asked.text
        else:  # played already
            assert called.id not in asked.choices and asked.why == ()
        ref.confirm(m.cards[0].id, ev.zone, f + 1, (f + 1) / 30, 100 + i)
        f += 10
        if len(m.cards) > 1:
            show.lay(m.cards[1], f"play{m.player}")
    assert [r.move for r in ref.rulings()] == list(moves[:k + 1]) + trick
    leader = moves[k + 1 + len(trick)].player  # the trick's winner leads the next
    (asked,) = [o for o in ref.observe([_doubt_on(f"play{leader}", f, 99)], f)
                if o.kind == "unsure"]
    assert asked.why == ()
