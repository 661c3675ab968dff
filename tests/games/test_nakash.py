"""Nakash: the automatic losses and the victory ladder against hand-worked examples from
seed 003, an exhaustive check over every pair of ranks, and the game's invariants."""

import itertools
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, Rank, Suit, deck_cards, parse_cards
from companion.games import nakash
from companion.games.base import Move, Verdict
from companion.record import referee_record, simulate, table_view

MUGHAL = deck_cards(DeckKind.MUGHAL)


def h(*ids):
    return parse_cards(ids)


def test_card_values_follow_the_symbols_and_the_faces():
    # "The raja is 12 and the vizier is 11"; a weak suit's 1 is still one symbol
    assert nakash.hand_sum(h("surya-raja", "chandra-vizier")) == 23
    assert nakash.hand_sum(h("surya-1", "surya-10")) == 11


def test_automatic_losses():
    # 9 + 9 = 18 loses even though it is a pair; vizier + 8 = 19; raja + 9 = 21;
    # raja + vizier = 23
    for hand in (h("surya-9", "phul-9"), h("cheng-vizier", "cheng-8"), h("phul-raja", "barat-9"),
                 h("phul-raja", "barat-vizier")):
        assert nakash.is_automatic_loss(hand) and nakash.victory(hand) is None


def test_the_ladder_in_order_of_preference():
    one_one = h("surya-1", "chandra-1")  # 1. a pair of 1s (sum only 2)
    rajas = h("surya-raja", "chandra-raja")  # 2. 24
    viziers = h("surya-vizier", "chandra-vizier")  # 3. 22
    tens = h("surya-10", "chandra-10")  # 4. 20
    seventeen = h("surya-vizier", "chandra-6")  # 5. 11 + 6 = 17
    sixteen = h("phul-9", "ghulam-7")  # 16
    ladder = [one_one, rajas, viziers, tens, seventeen, sixteen]
    for better, worse in itertools.combinations(ladder, 2):
        assert nakash.winners([worse, better]) == (1,)
        assert nakash.winners([better, worse]) == (0,)


def test_hands_with_no_victory_condition_cannot_win():
    # raja + 8 = 20 is not a pair of 10s; raja + 10 = 22 is not a pair of viziers;
    # neither is an automatic loss, but neither meets a condition either
    for hand in (h("surya-raja", "phul-8"), h("surya-raja", "phul-10"),
                 h("surya-vizier", "phul-9")):
        assert not nakash.is_automatic_loss(hand) and nakash.victory(hand) is None
    # so a plain 2 + 3 = 5 beats them
    assert nakash.winners([h("surya-raja", "phul-8"), h("cheng-2", "cheng-3")]) == (1,)


def test_hand_worked_settlements():
    # 4 players, stake 1: seats 0 and 2 tie on 17 (vizier+6, 9+8), seat 1 has 18 (loss),
    # seat 3 has 12. Losers pay 1 each = 2, shared: +1 each.
    hands = [h("surya-vizier", "chandra-6"), h("surya-9", "phul-9"),
             h("ghulam-9", "cheng-8"), h("barat-5", "barat-7")]
    assert nakash.settle(hands, 1) == (1, -1, 1, -1)
    # three winners (pairs of 1s) and one loser, stake 2: 2 shared three ways = 2/3 each
    hands = [h("surya-1", "chandra-1"), h("phul-1", "ghulam-1"), h("cheng-1", "barat-1"),
             h("surya-raja", "phul-raja")]
    assert nakash.settle(hands, 2) == (Fraction(2, 3),) * 3 + (-2,)
    # nobody can win (18, 19, 21): every ante goes back
    hands = [h("surya-9", "phul-9"), h("cheng-vizier", "cheng-8"), h("phul-raja", "barat-9")]
    assert nakash.settle(hands, 5) == (0, 0, 0)


def _oracle(a, b):
    # an independent table: (rank of class, tiebreak) or None
    v = lambda r: int(r)
    s = v(a) + v(b)
    if s in (18, 19, 21, 23):
        return None
    pairs = {Rank.ONE: 5, Rank.RAJA: 4, Rank.VIZIER: 3, Rank.TEN: 2}
    if a == b and a in pairs:
        return (pairs[a], 0)
    return (1, s) if s <= 17 else None


def test_every_pair_of_ranks():
    for a, b in itertools.product(Rank, repeat=2):
        hand = (Card(Suit.SURYA, a), Card(Suit.PHUL, b))
        assert nakash.victory(hand) == _oracle(a, b), (a, b)


dealt = st.integers(2, 6).flatmap(lambda n: st.lists(st.sampled_from(MUGHAL), min_size=2 * n,
                                                     max_size=2 * n, unique=True))


@given(dealt, st.integers(1, 5))
@settings(max_examples=150, deadline=None)
def test_settlement_is_zero_sum_and_winners_are_the_best(deck, stake):
    n = len(deck) // 2
    hands = [deck[2 * i:2 * i + 2] for i in range(n)]
    pay = nakash.settle(hands, stake)
    assert sum(pay) == 0
    won = nakash.winners(hands)
    for s, p in enumerate(pay):
        if not won or len(won) == n:
            assert p == 0  # no winner, or everybody ties: nobody pays
        elif s in won:
            assert p == Fraction(stake * (n - len(won)), len(won))
        else:
            assert p == -stake
    for w in won:
        assert all(nakash.victory(hands[w]) >= (nakash.victory(h) or (0, 0)) for h in hands)


@given(st.integers(2, 6), st.integers(0, 10_000), st.integers(0, 3), st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_games_conserve_cards_end_and_keep_a_zero_sum_ledger(players, seed, rounds, stake):
    rec = simulate("nakash", players, {"rounds": rounds, "stake": stake}, seed)
    assert len(rec.moves) == (rounds or players) * players
    ledger = [Fraction(0)] * players
    for r, rnd in enumerate(rec.deal["hands"]):
        cards = [c for hand in rnd for c in hand]
        assert len(cards) == 2 * players == len(set(cards))
        shown = [m.cards for m in sorted(rec.moves[r * players:(r + 1) * players],
                                         key=lambda m: m.player)]
        ledger = [a + b for a, b in zip(ledger, nakash.settle(shown, stake))]
    assert rec.result["scores"] == [float(x) for x in ledger]
    assert abs(sum(rec.result["scores"])) < 1e-9


def test_referee_refuses_a_card_shown_twice():
    rec = simulate("nakash", 3, None, 2)
    moves = list(table_view(rec).moves)
    moves[1] = Move(moves[1].player, "reveal", (moves[0].cards[0], moves[1].cards[1]))
    bad = type(rec)(rec.game, rec.players, rec.options, None, None, tuple(moves[:2]))
    assert [r.verdict for r in referee_record(bad)] == [Verdict.LEGAL, Verdict.ILLEGAL]
