"""Komi: hand scoring and settlement against hand-worked examples from seed 003, plus
exhaustive and property checks of the game (cards conserved, ledger sums to zero)."""

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, Rank, Suit, deck_cards, parse_cards
from companion.games import komi
from companion.games.base import Move, Verdict
from companion.record import referee_record, simulate, table_view

MUGHAL = deck_cards(DeckKind.MUGHAL)


def h(*ids):
    return parse_cards(ids)


def test_the_books_example_5_7_vizier_scores_2():
    # "5 + 7 + 0 = 12, but only the last digit is used ... a final score of 2"
    assert komi.score_hand(h("surya-5", "cheng-7", "phul-vizier")) == 2


def test_hand_worked_scores():
    # three face cards: "this hand is called Komi"
    assert komi.score_hand(h("surya-raja", "chandra-vizier", "barat-raja")) == "komi"
    # two faces and a 5: not all face cards, 0 + 0 + 5 = 5
    assert komi.score_hand(h("surya-raja", "chandra-vizier", "barat-5")) == 5
    # 10 + 10 + raja = 20 -> last digit 0, the worst score
    assert komi.score_hand(h("surya-10", "chandra-10", "barat-raja")) == 0
    # 9 + 9 + 9 = 27 -> 7
    assert komi.score_hand(h("surya-9", "chandra-9", "barat-9")) == 7
    # 1 + 2 + 3 = 6, single digit kept as is
    assert komi.score_hand(h("cheng-1", "cheng-2", "cheng-3")) == 6
    # suits do not matter: a weak suit's 1 is still worth 1
    assert komi.score_hand(h("surya-1", "barat-1", "cheng-8")) == 0


def test_hand_worked_settlement():
    # Dealer seat 0 holds 2 + 4 + raja = 6.
    # Seat 1: 5 + 7 + vizier = 2 < 6, bet 3: pays the dealer 3.
    # Seat 2: Komi beats 6, bet 5: the dealer pays 5.
    # Seat 3: 1 + 5 + 10 = 16 -> 6 = dealer, bet 2: keeps the bet.
    # Dealer: +3 - 5 = -2.
    hands = [h("surya-2", "phul-4", "cheng-raja"), h("surya-5", "cheng-7", "phul-vizier"),
             h("chandra-raja", "ghulam-vizier", "shamsher-raja"),
             h("barat-1", "barat-5", "phul-10")]
    assert komi.settle(0, hands, [0, 3, 5, 2]) == (-2, -3, 5, 0)
    # A dealer's Komi ties a player's Komi and beats everything else.
    hands = [h("surya-raja", "phul-raja", "cheng-vizier"), h("chandra-raja", "ghulam-vizier",
             "shamsher-raja"), h("surya-9", "chandra-9", "ghulam-1")]  # 19 -> 9
    assert komi.settle(0, hands, [0, 4, 4]) == (4, 0, -4)


def _last_digit_oracle(ranks):
    # independent reading of the rule: write the sum out and keep its last character
    if all(r >= Rank.VIZIER for r in ranks):
        return "komi"
    return int(str(sum(0 if r >= Rank.VIZIER else int(r) for r in ranks))[-1])


def test_every_rank_combination_scores_by_the_last_digit():
    for ranks in itertools.product(Rank, repeat=3):
        cards = tuple(Card(s, r) for s, r in zip((Suit.SURYA, Suit.PHUL, Suit.CHENG), ranks))
        assert komi.score_hand(cards) == _last_digit_oracle(ranks), ranks


hands3 = st.lists(st.sampled_from(MUGHAL), min_size=3, max_size=3, unique=True)


@given(st.lists(hands3, min_size=2, max_size=6), st.data())
@settings(max_examples=300, deadline=None)
def test_settlement_is_zero_sum_and_bounded_by_the_bets(hands, data):
    n = len(hands)
    dealer = data.draw(st.integers(0, n - 1))
    bets = data.draw(st.lists(st.integers(1, 10), min_size=n, max_size=n))
    pay = komi.settle(dealer, hands, bets)
    assert sum(pay) == 0
    for seat in range(n):
        if seat != dealer:
            assert pay[seat] in (-bets[seat], 0, bets[seat])
            tie = komi.score_hand(hands[seat]) == komi.score_hand(hands[dealer])
            assert (pay[seat] == 0) == tie


@given(st.integers(2, 6), st.integers(0, 10_000), st.integers(0, 3))
@settings(max_examples=40, deadline=None)
def test_games_conserve_cards_end_and_keep_a_zero_sum_ledger(players, seed, rounds):
    rec = simulate("komi", players, {"rounds": rounds}, seed)
    r = rounds or players
    assert len(rec.moves) == r * (2 * players - 1)  # n-1 bets and n reveals a round
    for rnd in rec.deal["hands"]:
        cards = [c for hand in rnd for c in hand]
        assert len(cards) == 3 * players == len(set(cards))
    assert abs(sum(rec.result["scores"])) < 1e-9
    # the ledger is the sum of the rounds settled from the revealed cards alone
    ledger = [0] * players
    bets = [0] * players
    shown = {}
    rnd = 0
    for m in rec.moves:
        if m.action == "bet":
            bets[m.player] = int(m.target)
        else:
            shown[m.player] = m.cards
            if len(shown) == players:
                dealer = rnd % players
                for s, p in enumerate(komi.settle(dealer, [shown[i] for i in range(players)],
                                                  bets)):
                    ledger[s] += p
                shown, rnd = {}, rnd + 1
    assert rec.result["scores"] == [float(x) for x in ledger]


def test_the_dealer_rotates_and_reveals_last():
    s = komi.new_game(3, komi.Options(first_dealer=1), 4)
    assert [komi.current_player(s)] == [2]  # the dealer's right-hand neighbour bets first
    s, _ = komi.apply(s, Move(2, "bet", (), "1"))
    s, _ = komi.apply(s, Move(0, "bet", (), "1"))
    order = []
    while s.round == 0:
        order.append(komi.current_player(s))
        s, _ = komi.apply(s, komi.legal_moves(s)[0])
    assert order == [2, 0, 1] and s.dealer == 2


def _judge(rec, moves):
    bad = type(rec)(rec.game, rec.players, rec.options, None, None, tuple(moves))
    return [r.verdict for r in referee_record(bad)]


def test_referee_refuses_a_card_shown_twice():
    rec = simulate("komi", 3, None, 9)
    moves = list(table_view(rec).moves)
    i = next(i for i, m in enumerate(moves) if m.action == "reveal")
    moves[i + 1] = Move(moves[i + 1].player, "reveal",
                        (moves[i].cards[0],) + moves[i + 1].cards[1:])
    verdicts = _judge(rec, moves)
    assert verdicts[:i + 1] == [Verdict.LEGAL] * (i + 1)
    assert verdicts[i + 1] is Verdict.ILLEGAL


def test_referee_refuses_a_bet_out_of_range():
    rec = simulate("komi", 3, None, 9)
    moves = list(table_view(rec).moves)
    moves[0] = Move(moves[0].player, "bet", (), "11")
    assert _judge(rec, moves[:1]) == [Verdict.ILLEGAL]


def test_bad_options_are_refused():
    import pytest

    from companion.games.base import OptionsError
    for bad in ({"min_bet": 0}, {"min_bet": 5, "max_bet": 4}, {"rounds": -2}):
        with pytest.raises(OptionsError):
            komi.Options(**bad)
    with pytest.raises(OptionsError):
        komi.new_game(3, komi.Options(first_dealer=4), 1)  # only seats 0..2
