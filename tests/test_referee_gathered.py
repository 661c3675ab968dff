"""Ruling *gathered-unseen*: a trick gathered a card short asks which card the camera
missed (a hand lay over it), and what follows waits for the answer."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.games.base import Move, Verdict
from companion.record import simulate, table_view
from companion.referee import Referee


def _opening(seed: int) -> list[Move]:
    """A 4-player game's moves up to its first pass (a pass shows nothing on the table)."""
    moves = []
    for move in table_view(simulate("ganjifa", 4, {}, seed)).moves:
        if move.action in ("pass", "show"):
            break
        moves.append(move)
    return moves


def _show_with_one_unseen(seed: int, which: int, stop: bool = False
                          ) -> tuple[TableShow, list[Move], Move]:
    """The opening shown trick by trick, each trick swept once complete, but for the
    ``which``-th trick-ending follow: never seen, its trick swept without it (``stop``: and
    nothing after it)."""
    moves = _opening(seed)
    show = TableShow(Referee("ganjifa", 4))
    enders = 0
    unseen = None
    for move in moves:
        ends = move.action == "follow" and len(move.cards) == 1 and \
            show.ref.engine.picture.table.queue == (move.player,)
        if ends and enders == which and unseen is None:
            unseen = move
            show._tick(move.player)
            show.sweep("play")
            if stop:
                break
            continue
        enders += ends
        show.ganjifa(move)
        if not show.ref.engine.picture.table.trick and unseen is None:
            show.sweep("play")
    assert unseen is not None
    return show, moves, unseen


@pytest.mark.parametrize("seed,which", [(0, 1), (3, 2), (5, 0)])
def test_a_card_a_hand_hid_till_its_trick_was_gathered_is_asked_for(seed, which):
    show, moves, unseen = _show_with_one_unseen(seed, which)
    asked = [o for o in show.outputs if o.kind == "unseen"]
    assert len(asked) == 1  # complete tricks swept asked nothing
    zone = f"play{unseen.player}"
    assert asked[0].zone == zone and "not seen" in asked[0].text
    assert show.ref.waiting_for == zone  # what follows waits: no card judged out of turn
    assert not [o for o in show.rulings() if o.ruling.verdict is Verdict.ILLEGAL]
    show.ref.confirm(unseen.cards[0].id, zone, show.frame, show.t)
    assert [o.move for o in show.rulings()] == moves
    assert not [o for o in show.rulings() if o.ruling.verdict is Verdict.ILLEGAL]
    assert unseen.cards[0] not in show.ref._table.get(zone, [])  # gathered, not lying there


def test_none_of_these_goes_on_without_the_unseen_card():
    show, moves, unseen = _show_with_one_unseen(0, 1)
    zone = f"play{unseen.player}"
    show.ref.dismiss(zone)
    assert show.ref.waiting_for == ""
    assert len(show.rulings()) > moves.index(unseen)  # the moves after it were judged


def test_a_lead_taken_back_is_no_trick_gathered():
    """One card of a trick taken off its spot is a lead changed, not a trick gathered."""
    moves = _opening(0)
    show = TableShow(Referee("ganjifa", 4))
    show.ganjifa(moves[0])
    show.sweep("play")
    assert not [o for o in show.outputs if o.kind == "unseen"]
    assert show.ref.waiting_for == ""


@pytest.mark.parametrize("seed", [0, 3, 5])
def test_an_unseen_card_goes_before_the_card_refused_for_want_of_it(seed):
    """The player after the unseen one laid their card before the trick was gathered: it
    was refused ("... still has to play"). Named, the unseen card goes in its turn, before
    it, and both are judged right."""
    moves = _opening(seed)
    show = TableShow(Referee("ganjifa", 4))
    for k, move in enumerate(moves):
        queue = show.ref.engine.picture.table.queue
        if move.action == "follow" and len(queue) == 2 and queue[0] == move.player \
                and len(move.cards) == 1 and moves[k + 1].player == queue[1] \
                and len(moves[k + 1].cards) == 1:
            break
        show.ganjifa(move)
        if not show.ref.engine.picture.table.trick:
            show.sweep("play")
    unseen, after = moves[k], moves[k + 1]
    show._tick(unseen.player)  # a resting hand hides it for as long as it lies there
    show.ganjifa(after)
    assert show.rulings()[-1].ruling.verdict is Verdict.ILLEGAL  # "still has to play"
    show.frame += 60  # the trick lies a while before it is gathered (not two cards together)
    show.t += 2.0
    show.sweep("play")
    (asked,) = [o for o in show.outputs if o.kind == "unseen"]
    show.ref.confirm(unseen.cards[0].id, asked.zone, show.frame, show.t)
    assert [o.move for o in show.rulings()] == moves[:k + 2]
    assert not [o for o in show.rulings() if o.ruling.verdict is Verdict.ILLEGAL]


def test_an_answer_naming_a_card_already_played_is_not_asked_again():
    """Named as a card the game has seen that player play before, the unseen card is no
    card: the trick is not asked about again (it was, for ever, on a hard Dashavatara
    film, answered with the card that player had laid on the spot a trick before)."""
    show, moves, unseen = _show_with_one_unseen(0, 1, stop=True)
    zone = f"play{unseen.player}"
    before = next(m.cards[0] for m in moves[:moves.index(unseen)] if m.player == unseen.player)
    out = show.ref.confirm(before.id, zone, show.frame, show.t)
    assert not [o for o in out if o.kind == "unseen"]
    assert show.ref.waiting_for == ""
