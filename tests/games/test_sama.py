"""Sama: the doubled face-up card, the single exchange and the ledger, against the book's
own example and hand-worked ones, plus invariants of whole games."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, Rank, deck_cards, parse_cards
from companion.games import sama
from companion.games.base import IllegalMoveError, Move, Verdict
from companion.record import referee_record, simulate, table_view

C = Card.parse


def h(*ids):
    return parse_cards(ids)


def test_the_books_example_7_10_and_a_3_face_up_make_23():
    # "a '7' card and a '10' card would be '17'" ... "a '3' card would be worth '6'" ...
    # "'17' for the face down cards and '6' for the face up card for a final total of '23'"
    assert sama.hand_value(h("surya-7", "phul-10"), Card.parse("cheng-3")) == 23


def test_hand_worked_values():
    # a raja face up counts 12, doubled 24: 1 + 2 + 24 = 27
    assert sama.hand_value(h("surya-1", "surya-2"), Card.parse("phul-raja")) == 27
    # faces count "whether face up or down": vizier 11 + raja 12 + 2 x 10 = 43
    assert sama.hand_value(h("surya-vizier", "chandra-raja"), Card.parse("barat-10")) == 43
    # the greatest hand: two rajas down, a raja up = 12 + 12 + 24 = 48
    assert sama.hand_value(h("surya-raja", "chandra-raja"), Card.parse("barat-raja")) == 48
    # the least: 1 + 1 + 2 x 1 = 4
    assert sama.hand_value(h("surya-1", "chandra-1"), Card.parse("barat-1")) == 4


def test_hand_worked_settlement():
    # totals 23, 27, 27 with stake 2: pot 6, two winners share it, 3 each:
    # seat 0 -2; seats 1, 2: 3 - 2 = +1
    assert sama.settle([23, 27, 27], 2) == (-2, 1, 1)
    assert sama.round_winners([30, 12, 29, 30]) == (0, 3)


@given(st.lists(st.integers(4, 48), min_size=3, max_size=6), st.integers(1, 5))
def test_settlement_is_zero_sum_and_pays_the_highest(totals, stake):
    pay = sama.settle(totals, stake)
    assert sum(pay) == 0
    best = max(totals)
    for t, p in zip(totals, pay):
        assert (p == -stake) == (t < best)


@given(st.integers(3, 6), st.integers(0, 10_000), st.integers(0, 3),
       st.sampled_from(["stakes", "rounds"]))
@settings(max_examples=40, deadline=None)
def test_games_conserve_cards_and_score_consistently(players, seed, rounds, scoring):
    opts = {"rounds": rounds, "scoring": scoring}
    rec = simulate("sama", players, opts, seed)
    r = rounds or players
    assert len(rec.moves) == r * (1 + 2 * players)  # a deal, n exchanges/stands, n reveals
    ledger = [Fraction(0)] * players
    round_moves = [rec.moves[i * (1 + 2 * players):(i + 1) * (1 + 2 * players)]
                   for i in range(r)]
    for deck, moves in zip(rec.deal["decks"], round_moves):
        deck = parse_cards(deck)
        assert len(deck) == 96 and set(deck) == set(deck_cards(DeckKind.MUGHAL))
        reveals = moves[1 + players:]
        cards = [c for m in reveals for c in m.cards]
        assert len(cards) == 3 * players == len(set(cards))  # no card in two hands
        # every revealed card came off the top of this round's deck: the deal, then one
        # card per face-up exchange and two per face-down exchange
        drawn = sum({"up": 1, "down": 2}.get(m.target, 0) for m in moves[1:1 + players])
        assert set(cards) <= set(deck[:3 * players + drawn])
        totals = [0] * players
        for m in reveals:
            totals[m.player] = sama.hand_value(m.cards[:2], m.cards[2])
        won = sama.round_winners(totals)
        pay = (sama.settle(totals, 1) if scoring == "stakes"
               else [Fraction(int(s in won)) for s in range(players)])
        ledger = [a + b for a, b in zip(ledger, pay)]
    assert rec.result["scores"] == [float(x) for x in ledger]
    if scoring == "stakes":
        assert abs(sum(rec.result["scores"])) < 1e-9
    else:
        assert sum(rec.result["scores"]) >= r


def test_only_one_exchange_and_only_in_turn():
    s = sama.new_game(3, sama.Options(first_dealer=0), 1)
    s, _ = sama.apply(s, sama.legal_moves(s)[0])  # the deal
    assert sama.current_player(s) == 1  # "starting with the player to the right of the dealer"
    up_swap = next(m for m in sama.legal_moves(s) if m.target == "up")
    s2, _ = sama.apply(s, up_swap)
    assert sama.current_player(s2) == 2
    with pytest.raises(IllegalMoveError):
        sama.apply(s2, up_swap)  # player 2 may not exchange again
    # after the exchange the new face-up card counts double at the reveal
    while s2.phase != "reveal":
        s2, _ = sama.apply(s2, Move(sama.current_player(s2), "stand"))
    reveal = sama.legal_moves(s2)[0]
    assert reveal.player == 1 and reveal.cards[2] == up_swap.cards[1]


def test_referee_checks_the_face_up_card_at_the_reveal():
    rec = simulate("sama", 4, {"first_dealer": 2}, 5)
    moves = list(table_view(rec).moves)
    i = next(i for i, m in enumerate(moves) if m.action == "reveal")
    m = moves[i]
    other = next(c for c in parse_cards([f"ghulam-{k}" for k in range(1, 11)])
                 if c not in m.cards and all(c not in x.cards for x in moves))
    moves[i] = Move(m.player, "reveal", m.cards[:2] + (other,))
    bad = type(rec)(rec.game, rec.players, rec.options, None, None, tuple(moves[:i + 1]))
    verdicts = [r.verdict for r in referee_record(bad)]
    assert verdicts == [Verdict.LEGAL] * i + [Verdict.ILLEGAL]


def test_the_seed_chooses_the_first_dealer():
    dealers = {sama.new_game(4, None, seed).first_dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert Rank.RAJA == 12  # the values used above


def test_a_face_down_exchange_is_hidden_from_the_table():
    m = Move(1, "exchange", parse_cards(["surya-1", "surya-2", "phul-3", "phul-4"]), "down")
    assert sama.public_move(m) == Move(1, "exchange", (), "down")
    up = Move(1, "exchange", parse_cards(["surya-1", "phul-3"]), "up")
    assert sama.public_move(up) == up


@pytest.mark.parametrize("bad", [{"scoring": "poker"}, {"stake": 0}, {"rounds": -1},
                                 {"first_dealer": 9}])
def test_bad_options_are_refused_by_name(bad):
    from companion.games.base import OptionsError, options_from_json
    with pytest.raises(OptionsError) as e:
        options_from_json(sama.Options, bad)
    assert next(iter(bad)).split("_")[0] in str(e.value)


def test_every_rank_combination_against_the_books_values():
    # "Face cards are worth 11 for the Vizier and 12 for the Raja whether face up or down";
    # number cards are worth their number; the face-up card counts twice
    worth = {str(n): n for n in range(1, 11)} | {"vizier": 11, "raja": 12}
    for a, b, u in itertools.product(worth, repeat=3):
        down = parse_cards([f"surya-{a}", f"phul-{b}"])
        assert sama.hand_value(down, C(f"cheng-{u}")) == worth[a] + worth[b] + 2 * worth[u]
