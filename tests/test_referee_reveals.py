"""Komi and Nakash at a camera table: hands turned face up on the seats' hand zones are
reveals, judged in the game's order; Komi's spoken bets are asked
(``companion.referee.reveals``)."""

from __future__ import annotations

import pytest
from referee_show import TableShow

from companion.games.base import seat_name
from companion.record import simulate
from companion.referee import Referee


def _shown(game: str, players: int, seed: int):
    """A simulated game, and its table shown each round's hands turned up in the reverse of
    the game's order (the dealer first), then swept off; nothing told of the bets."""
    rec = simulate(game, players, {}, seed)
    show = TableShow(Referee(game, players, rec.options))
    reveals = [m for m in rec.moves if m.action == "reveal"]
    for r in range(0, len(reveals), players):
        for move in reversed(reveals[r:r + players]):
            show.handful(move, f"hand{move.player}")
        show.sweep("hand")
    return rec, show


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 2), (6, 3)])
def test_nakash_hands_turned_up_in_any_order_are_scored_round_by_round(players, seed):
    rec, show = _shown("nakash", players, seed)
    judged = [o.ruling for o in show.rulings()]
    assert [r.move for r in judged] == list(rec.moves)
    assert all(r.verdict.value == "legal" for r in judged)
    assert rec.result["text"] in judged[-1].events[-1].text


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 4)])
def test_komi_bets_are_asked_and_the_answers_settle_the_stakes(players, seed):
    """Ruling *bets-asked-at-the-reveal*: the lowest stake, assumed, until answered."""
    rec, show = _shown("komi", players, seed)
    ref = show.ref
    bets = [m for m in rec.moves if m.action == "bet"]
    questions = [o for o in ref.outputs if o.kind == "question"]
    assert len(questions) == len(bets)
    assumed = [o for o in show.rulings() if o.ruling.move.action == "bet"]
    assert all(o.assumed and o.ruling.move.target == "1" for o in assumed)
    for q, bet in zip(questions, bets):
        assert seat_name(bet.player) in q.text
        ref.answer(q.question_id, q.choices.index(f"{seat_name(bet.player)} bet {bet.target}"))
    judged = [o.ruling for o in show.rulings()]
    assert [r.move for r in judged] == list(rec.moves)
    assert not any(o.assumed for o in show.rulings())
    assert rec.result["text"] in judged[-1].events[-1].text


def test_a_hand_still_being_turned_up_holds_the_ones_after_it():
    rec = simulate("nakash", 3, {}, 1)
    first, second = [m for m in rec.moves if m.action == "reveal"][:2]
    show = TableShow(Referee("nakash", 3, rec.options))
    show.lay(first.cards[0], f"hand{first.player}")
    show.handful(second, f"hand{second.player}")
    assert not show.rulings()
    show.lay(first.cards[1], f"hand{first.player}")
    assert [o.ruling.move for o in show.rulings()] == [first, second]


def test_a_hand_taken_up_with_a_card_never_seen_is_asked_for():
    """Ruling *gathered-unseen*: else it takes the next round's first card."""
    rec = simulate("nakash", 3, {}, 1)
    first = [m for m in rec.moves if m.action == "reveal"][:3]
    show = TableShow(Referee("nakash", 3, rec.options))
    for move in first[:2]:
        show.handful(move, f"hand{move.player}")
    last = first[2]
    show.lay(last.cards[0], f"hand{last.player}")  # its other card under a resting hand
    show.sweep("hand")
    asked = [o for o in show.outputs if o.kind == "unseen"]
    assert len(asked) == 1 and asked[0].zone == f"hand{last.player}"
    assert "before the hand was gathered" in asked[0].text
    show.ref.confirm(last.cards[1].id, asked[0].zone, show.frame, show.t)
    assert [o.ruling.move for o in show.rulings()] == first


def test_a_card_of_an_earlier_round_named_again_reopens_nothing():
    """Each round is dealt from a fresh shuffle: a Sama face-up card of round 1 dealt to
    another seat in round 2, and named there by the players, is that card dealt again, not
    a sign that round 1's reading was wrong (ruling *players-over-an-earlier-reading* is
    for one deck a game)."""
    from companion.cards import Card
    from companion.vision.track import TrackEvent
    show = TableShow(Referee("sama", 3, {"first_dealer": 0}))
    ups = {1: "surya-3", 2: "barat-7", 0: "phul-raja"}
    downs = {1: ("cheng-2", "cheng-5"), 2: ("ghulam-1", "ghulam-4"), 0: ("kumancha-6", "phul-2")}
    for seat, card in ups.items():
        show.lay(Card.parse(card), f"hand{seat}")
    for seat in (1, 2, 0):  # everyone stands, then turns the hand up
        show._tick(seat)
        for card in downs[seat]:
            show.lay(Card.parse(card), f"hand{seat}")
    show.sweep("hand")
    first = [o.ruling for o in show.rulings()]
    assert first[-1].move.action == "reveal" and len(first) == 7
    for seat, card in ((2, "chandra-9"), (0, "surya-3"), (1, "barat-7")):  # round 2
        show.lay(Card.parse(card), f"hand{seat}")
    # a doubt about another card on Player 2's zone, which the players name: the 7 of
    # Barat, Player 3's in round 1, Player 2's face-up card now
    centre = show.ref.layout.zone("hand1").center_mm
    doubt = TrackEvent("unsure", None, centre, "hand1", 0.4, show.frame + 1, show.frame + 6,
                       show.t, 77, candidates=(("kumancha-1", 0.4),), needed=0.9)
    show.ref.observe([doubt], show.frame + 6, show.t)
    outs = show.ref.confirm("barat-7", "hand1", show.frame + 7, show.t, 77)
    assert not any(o.kind == "unseen" for o in outs)
    assert [o.ruling for o in show.rulings()][:7] == first
