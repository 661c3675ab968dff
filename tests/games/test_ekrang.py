"""Ekrang: the reconstructed setup, the two phases, conservation and termination of whole
games, and the table referee's claims (a revoke is unverifiable until a later card proves
it)."""

import dataclasses
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, RankOrder, deck_cards, parse_cards
from companion.games import ekrang
from companion.games.base import IllegalMoveError, Move, Verdict
from companion.record import GameRecord, referee_record, simulate, table_view

C = Card.parse


def _play_out(players, seed, **opts):
    s = ekrang.new_game(players, ekrang.Options(**opts), seed)
    rng = random.Random(seed)
    states = [s]
    while not ekrang.is_over(s):
        s, _ = ekrang.apply(s, rng.choice(ekrang.legal_moves(s)))
        states.append(s)
        assert len(states) < 200
    return states


@pytest.mark.parametrize("players,per", [(2, 48), (3, 32), (4, 24)])
def test_the_deal_is_equal_for_every_table_size(players, per):
    # "deal an equal number of cards to each player": 96 = 2 x 48 = 3 x 32 = 4 x 24
    s = ekrang.new_game(players, None, 1)
    assert [len(h) for h in s.hands] == [per] * players
    assert {c for h in s.hands for c in h} == set(deck_cards(DeckKind.MUGHAL))


@pytest.mark.parametrize("time,raja", [("day", "surya-raja"), ("night", "chandra-raja")])
def test_the_days_raja_opens_with_a_card_of_8_or_higher(time, raja):
    for seed in range(10):
        s = ekrang.new_game(3, ekrang.Options(time_of_day=time), seed)
        first = ekrang.current_player(s)
        assert C(raja) in s.hands[first]
        for m in ekrang.legal_moves(s):
            assert m.action == "setup" and m.cards[0] == C(raja)
            assert int(m.cards[1].rank) >= 8 and m.cards[1] in s.hands[first]


def test_the_setup_trick_takes_lower_cards_and_goes_to_the_first_player():
    s = ekrang.new_game(4, None, 3)
    first = ekrang.current_player(s)
    setup = min(ekrang.legal_moves(s), key=lambda m: int(m.cards[1].rank))
    s, _ = ekrang.apply(s, setup)
    bar = int(setup.cards[1].rank)
    for _ in range(3):
        p = ekrang.current_player(s)
        lower = [c for c in s.hands[p] if int(c.rank) < bar]
        allowed = [m.cards[0] for m in ekrang.legal_moves(s)]
        assert set(allowed) == (set(lower) or set(s.hands[p]))
        s, _ = ekrang.apply(s, ekrang.legal_moves(s)[0])
    assert s.tricks[first] == 1 and s.won[first] == 5 and ekrang.current_player(s) == first


def _state(hands, **kw):
    """A hand-made position: 2 players, seat 0 to lead phase 1."""
    hands = tuple(tuple(parse_cards(h)) for h in hands)
    base = ekrang._blank(2, ekrang.Options(), hands, 0)
    return dataclasses.replace(base, counts=tuple(len(h) for h in hands), kind="lead",
                               leader=0, **kw)


def test_phase_1_leads_the_highest_card_and_followers_follow_suit():
    s = _state([["phul-raja", "phul-2", "cheng-vizier"], ["phul-5", "cheng-raja", "surya-1"]])
    assert [m.cards for m in ekrang.legal_moves(s)] == [(C("phul-raja"),)]
    with pytest.raises(IllegalMoveError):
        ekrang.apply(s, Move(0, "play", (C("cheng-vizier"),)))
    s, _ = ekrang.apply(s, Move(0, "play", (C("phul-raja"),)))
    assert [m.cards for m in ekrang.legal_moves(s)] == [(C("phul-5"),)]
    with pytest.raises(IllegalMoveError) as e:
        ekrang.apply(s, Move(1, "play", (C("cheng-raja"),)))
    assert "follow" in e.value.reason
    s, _ = ekrang.apply(s, Move(1, "play", (C("phul-5"),)))
    # phase 2: the winner leads the lowest Phul; any card may follow
    assert s.tricks == (1, 0) and s.p1_suit.value == "phul"
    assert [m.cards for m in ekrang.legal_moves(s)] == [(C("phul-2"),)]
    s, _ = ekrang.apply(s, Move(0, "play", (C("phul-2"),)))
    assert {m.cards[0] for m in ekrang.legal_moves(s)} == {C("cheng-raja"), C("surya-1")}
    # a card of another suit does not win, even a Raja: seat 0 takes the phase 2 trick
    s, _ = ekrang.apply(s, Move(1, "play", (C("cheng-raja"),)))
    assert s.tricks == (2, 0) and s.p1_suit is None


def test_phase_2_is_skipped_when_the_winner_lacks_the_suit():
    s = _state([["phul-raja", "cheng-vizier"], ["phul-5", "cheng-raja"]])
    s, _ = ekrang.apply(s, Move(0, "play", (C("phul-raja"),)))
    s, _ = ekrang.apply(s, Move(1, "play", (C("phul-5"),)))
    assert [m.cards for m in ekrang.legal_moves(s)] == [(C("cheng-vizier"),)]  # a new phase 1
    s, evs = ekrang.apply(s, Move(0, "play", (C("cheng-vizier"),)))
    assert any("skipped" in e.text for e in evs) and s.kind == "p1"


def test_traditional_order_reverses_the_weak_suits():
    s = _state([["surya-1", "surya-10"], ["phul-5", "cheng-3"]])
    s = dataclasses.replace(s, options=ekrang.Options(rank_order=RankOrder.TRADITIONAL))
    assert [m.cards for m in ekrang.legal_moves(s)] == [(C("surya-1"),)]  # 1 is high in Surya


@given(st.integers(2, 4), st.integers(0, 10_000), st.sampled_from(["day", "night"]),
       st.sampled_from(ekrang.LEADS), st.sampled_from(list(RankOrder)))
@settings(max_examples=30, deadline=None)
def test_cards_are_conserved_and_the_game_ends_with_every_card_played(players, seed, time,
                                                                      lead, order):
    states = _play_out(players, seed, time_of_day=time, lead=lead, rank_order=order)
    for s in states:
        in_hands = [c for h in s.hands for c in h]
        assert len(in_hands) == sum(s.counts) == len(set(in_hands))
        assert sum(s.counts) + sum(s.won) + len(s.trick) == 96
    last = states[-1]
    assert sum(last.counts) == 0 and sum(last.won) == 96
    assert len(states) - 1 == 95  # every card once; the setup move plays two
    res = ekrang.result(last)
    assert res.scores == tuple(float(t) for t in last.tricks)
    assert all(last.tricks[w] == max(last.tricks) for w in res.winners)


@given(st.integers(2, 4), st.integers(0, 10_000), st.sampled_from(["day", "night"]),
       st.sampled_from(ekrang.LEADS))
@settings(max_examples=15, deadline=None)
def test_the_referee_never_calls_a_simulated_game_illegal(players, seed, time, lead):
    rec = simulate("ekrang", players, {"time_of_day": time, "lead": lead}, seed)
    verdicts = [r.verdict for r in referee_record(table_view(rec))]
    assert Verdict.ILLEGAL not in verdicts


def _referee(moves, players=2, **opts):
    rec = GameRecord("ekrang", players, opts, None, None, tuple(moves))
    return list(referee_record(rec))


def test_a_revoke_is_unverifiable_until_the_player_shows_the_suit():
    moves = [Move(0, "setup", parse_cards(["surya-raja", "phul-10"])),
             Move(1, "play", (C("phul-2"),)),  # lower than 10: legal
             Move(0, "play", (C("chandra-raja"),)),  # a Raja is surely the highest
             Move(1, "play", (C("cheng-3"),)),  # no Chandra? the table cannot know
             Move(0, "play", (C("chandra-1"),)),  # phase 2: the 1 is surely the lowest
             Move(1, "play", (C("chandra-5"),))]  # ...but here is a Chandra: a revoke
    v = [r.verdict for r in _referee(moves)]
    assert v == [Verdict.LEGAL, Verdict.LEGAL, Verdict.LEGAL, Verdict.UNVERIFIABLE,
                 Verdict.LEGAL, Verdict.ILLEGAL]
    assert "move 4 broke the rules" in _referee(moves)[-1].reason


def test_the_referee_checks_the_setup_and_the_turn():
    r = _referee([Move(0, "setup", parse_cards(["chandra-raja", "phul-10"]))])
    assert r[0].verdict is Verdict.ILLEGAL  # by day the Raja of Surya opens
    r = _referee([Move(0, "setup", parse_cards(["chandra-raja", "phul-10"]))],
                 time_of_day="night")
    assert r[0].verdict is Verdict.LEGAL
    r = _referee([Move(1, "setup", parse_cards(["surya-raja", "phul-3"])),
                  Move(1, "play", (C("phul-2"),)),
                  Move(0, "play", (C("phul-9"),)),  # not lower than 3: unverifiable
                  Move(1, "play", (C("phul-9"),)),  # not a card the game has twice
                  ])
    assert [x.verdict for x in r] == [Verdict.UNVERIFIABLE, Verdict.ILLEGAL,
                                      Verdict.UNVERIFIABLE, Verdict.ILLEGAL]


@given(st.integers(2, 4), st.integers(0, 10_000), st.integers(0, 94),
       st.sampled_from(ekrang.LEADS))
@settings(max_examples=40, deadline=None)
def test_the_referee_never_calls_a_rule_breaking_play_legal(players, seed, at, lead):
    # play legally up to move `at`, then a card from the hand that the rules forbid there
    s = ekrang.new_game(players, ekrang.Options(lead=lead), seed)
    rng, moves = random.Random(seed), []
    for _ in range(at):
        m = rng.choice(ekrang.legal_moves(s))
        s, _ = ekrang.apply(s, m)
        moves.append(m)
    p = ekrang.current_player(s)
    if s.kind == "setup" or p is None:
        return
    legal = {m.cards[0] for m in ekrang.legal_moves(s)}
    wrong = [c for c in s.hands[p] if c not in legal]
    if not wrong:
        return
    bad = Move(p, "play", (rng.choice(wrong),))
    with pytest.raises(IllegalMoveError):
        ekrang.apply(s, bad)
    verdicts = [r.verdict for r in _referee(moves + [bad], players, lead=lead)]
    assert Verdict.ILLEGAL not in verdicts[:-1]
    assert verdicts[-1] is not Verdict.LEGAL


def test_at_the_end_every_open_claim_is_confirmed():
    rec = simulate("ekrang", 3, None, 12)
    rulings = list(referee_record(table_view(rec)))
    assert any(r.verdict is Verdict.UNVERIFIABLE for r in rulings)
    assert [e.kind for e in rulings[-1].events][-1] == "claims-confirmed"
    assert not any(e.kind == "claims-confirmed" for r in rulings[:-1] for e in r.events)
