"""Ruling *players-over-an-earlier-reading*: the players name a card they were asked about
(read surely or not) as one the game has seen another seat play, so that earlier sighting
was a misreading."""

from __future__ import annotations

import dataclasses

import pytest
from referee_show import GJ

from companion.games.base import Verdict
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.track import TrackEvent


def _seen(card_id: str, seat: int, frame: int, track: int) -> TrackEvent:
    zone = f"play{seat}"
    return TrackEvent("appeared", card_id, GJ.zone(zone).center_mm, zone, 0.99, frame - 5,
                      frame, frame / 30, track)


@pytest.mark.parametrize("seed,read", [(0, "surely"), (7, "surely"), (10, "surely"),
                                       (7, "unsure")])
def test_the_players_word_on_a_card_reopens_the_earlier_misreading(seed, read):
    moves = list(table_view(simulate("ganjifa", 4, {}, seed)).moves)
    # a follow misread as a card of its suit that is played later, by another seat
    plain = next(n for n, m in enumerate(moves)  # single cards led and followed
                 if m.action not in ("lead", "follow") or len(m.cards) != 1)
    i, k = next((i, k) for i, m in enumerate(moves[:plain]) if m.action == "follow"
                for k in range(i + 1, plain) if moves[k].player != m.player
                and moves[k].cards[0].suit == m.cards[0].suit)
    ref = Referee("ganjifa", 4)
    misread = moves[k].cards[0]
    for j, m in enumerate(moves[:k]):
        card = misread if j == i else m.cards[0]
        ref.observe([_seen(card.id, m.player, 30 * (j + 1), j)], 30 * (j + 1))
    frame = 30 * (k + 1)
    seen = _seen(misread.id, moves[k].player, frame, k)
    if read == "unsure":  # (and too doubtful for elimination)
        seen = dataclasses.replace(seen, kind="unsure", card_id=None, confidence=0.4,
                                   candidates=((misread.id, 0.4), ("kurma-4", 0.3)))
    out = ref.observe([seen], frame)
    assert [o.kind for o in out if o.kind in ("doubt", "unsure")] == [
        "doubt" if read == "surely" else "unsure"]
    out = ref.confirm(misread.id, f"play{moves[k].player}", frame + 10, frame / 30, track=k)
    (asked,) = [o for o in out if o.kind == "unseen"]
    assert asked.zone == f"play{moves[i].player}" and asked.frame == 30 * (i + 1)
    assert ref.waiting_for == asked.zone
    ref.confirm(moves[i].cards[0].id, asked.zone, frame + 20, frame / 30 + 1, track=asked.track)
    rulings = [o.ruling for o in ref.outputs if o.kind == "ruling"]
    assert [r.move for r in ref.rulings()] == moves[:k + 1]
    assert not [r for r in ref.rulings() if r.verdict is Verdict.ILLEGAL] and rulings
