"""Ruling *ring-gathered-unseen*: Kendra Kari's ring gathered while the game has no bridge
asks which cards built it (a hand lay over them), and what follows waits for the answers."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.games.base import Move, Verdict
from companion.record import simulate, table_view
from companion.referee import Referee


def _to_bridge(seed: int, cards: int) -> tuple[list[Move], int]:
    """A 4-player game's moves and the index of its first bridge of ``cards`` cards."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    return moves, next(k for k, m in enumerate(moves)
                       if m.action == "bridge" and len(m.cards) == cards)


def _shown_without(moves: list[Move], k: int) -> TableShow:
    """The moves before ``k`` shown, each bridge swept, then bridge ``k`` laid under a
    resting hand (never seen) and the ring swept."""
    show = TableShow(Referee("kendra-kari", 4))
    for move in moves[:k]:
        show.kendra_kari(move)
        if move.action == "bridge":
            show.table.clear()  # (``kendra_kari`` took its cards off, one by one)
    show._tick(moves[k].player)
    show.t += 2.0
    show.sweep("pos")
    return show


@pytest.mark.parametrize("seed", [0, 1, 2, 6])
def test_a_bridge_never_seen_is_asked_for_when_the_ring_is_gathered(seed):
    for cards in (2, 1):
        moves, k = _to_bridge(seed, cards)
        bridge = moves[k]
        show = _shown_without(moves, k)
        asked = [o for o in show.outputs if o.kind == "unseen"]
        first = f"pos{bridge.target.split(',')[0]}" if cards == 2 else asked[0].zone
        assert [o.zone for o in asked] == [first, "pos7"]
        assert show.ref.waiting_for == first  # the next phase waits for them
        if cards == 2:
            show.ref.confirm(bridge.cards[0].id, first, show.frame, show.t)
        else:
            show.ref.dismiss(first)  # "none": a bridge of one card
        show.ref.confirm(bridge.cards[-1].id, "pos7", show.frame, show.t)
        for move in moves[k + 1:k + 4]:
            show.kendra_kari(move)
        assert [o.ruling.move for o in show.rulings()] == moves[:k + 4]
        assert not [o for o in show.rulings() if o.ruling.verdict is Verdict.ILLEGAL]


def test_a_bridge_seen_then_gathered_asks_nothing():
    moves, k = _to_bridge(1, 2)
    show = TableShow(Referee("kendra-kari", 4))
    for move in moves[:k + 1]:
        show.kendra_kari(move)  # (the bridge's cards are taken off as seen)
    for zone, cards in [(z, c) for z, c in show.table.items() if z.startswith("pos")]:
        cards.clear()
    show.sweep("pos")
    assert not [o for o in show.outputs if o.kind == "unseen"]
    assert show.ref.waiting_for == ""
