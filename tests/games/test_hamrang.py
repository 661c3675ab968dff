"""Hamrang: the draw and deal, two-card leads and follows with their substitutions,
dropping out without face cards, conservation and termination, and the table referee."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, RankOrder, deck_cards, parse_cards, strength
from companion.games import hamrang
from companion.games.base import IllegalMoveError, Move, Verdict
from companion.record import GameRecord, referee_record, simulate, table_view

C = Card.parse


def test_the_draw_picks_the_dealer_and_the_deal_gives_24_each():
    dealers = set()
    for seed in range(20):
        s = hamrang.new_game(4, None, seed)
        d = hamrang.deal_of(s)
        # replay the draw: all four draw, starting with the shuffler; tied highest redraw
        draws, who = list(d["draws"]), [(d["shuffler"] + i) % 4 for i in range(4)]
        assert [seat for seat, _ in draws[:4]] == who
        while len(who) > 1:
            rnd, draws = draws[:len(who)], draws[len(who):]
            top = max(strength(C(c), RankOrder.STRAIGHT) for _, c in rnd)
            who = [seat for seat, c in rnd if strength(C(c), RankOrder.STRAIGHT) == top]
        assert not draws and who == [d["dealer"]]
        dealers.add(d["dealer"])
        assert [len(h) for h in s.hands] == [24] * 4
        assert {c for h in s.hands for c in h} == set(deck_cards(DeckKind.MUGHAL))
        assert C("surya-raja") in s.hands[hamrang.current_player(s)]
    assert len(dealers) > 1


def _state(hands, leader=0, first_trick=False, **kw):
    hands = tuple(tuple(parse_cards(h)) for h in hands)
    return hamrang.State(hamrang.Options(**kw), hands, tuple(len(h) for h in hands), leader,
                         first_trick=first_trick)


FILL = [["ghulam-raja", "ghulam-1"], ["shamsher-raja", "shamsher-1"], ["cheng-raja", "cheng-1"]]


def test_round_1_leads_the_raja_and_the_lowest_of_its_suit():
    s = _state([["surya-raja", "surya-3", "surya-7", "phul-2"]] + FILL, first_trick=True)
    assert [m.cards for m in hamrang.legal_moves(s)] == [(C("surya-raja"), C("surya-3"))]
    # with no other Surya, the lowest card of another suit substitutes
    s = _state([["surya-raja", "phul-2", "phul-9", "cheng-5"]] + FILL, first_trick=True)
    assert {m.cards for m in hamrang.legal_moves(s)} == {(C("surya-raja"), C("phul-2")),
                                                         (C("surya-raja"), C("cheng-5"))}


def test_later_leads_need_a_suit_with_a_face_card():
    s = _state([["phul-vizier", "phul-4", "phul-6", "cheng-10", "cheng-2", "barat-raja"]]
               + FILL)
    assert {m.cards for m in hamrang.legal_moves(s)} == {
        (C("phul-vizier"), C("phul-4")),  # highest and lowest of Phul
        (C("barat-raja"), C("phul-4")), (C("barat-raja"), C("cheng-2"))}  # Raja + a lowest
    with pytest.raises(IllegalMoveError):  # Cheng has no face card
        hamrang.apply(s, Move(0, "play", (C("cheng-10"), C("cheng-2"))))


def test_followers_play_highest_and_lowest_or_substitute():
    lead = ["phul-raja", "phul-1"]
    s = _state([lead, ["phul-3", "phul-9", "phul-5", "cheng-raja"], ["phul-7", "surya-2",
                "surya-8", "surya-vizier"], ["cheng-3", "cheng-6", "cheng-9", "barat-vizier"]])
    s, _ = hamrang.apply(s, Move(0, "play", parse_cards(lead)))
    assert [set(m.cards) for m in hamrang.legal_moves(s)] == [{C("phul-9"), C("phul-3")}]
    s, _ = hamrang.apply(s, Move(1, "play", (C("phul-3"), C("phul-9"))))  # either order
    # one Phul: it, plus the highest or lowest of another suit
    assert {m.cards for m in hamrang.legal_moves(s)} == {(C("phul-7"), C("surya-vizier")),
                                                         (C("phul-7"), C("surya-2"))}
    s, _ = hamrang.apply(s, Move(2, "play", (C("phul-7"), C("surya-2"))))
    # no Phul: Cheng's highest and lowest, or one extreme of Cheng and the Barat vizier
    assert {frozenset(m.cards) for m in hamrang.legal_moves(s)} == {
        frozenset(parse_cards(p)) for p in (["cheng-9", "cheng-3"], ["cheng-9", "barat-vizier"],
                                            ["cheng-3", "barat-vizier"])}
    s, _ = hamrang.apply(s, Move(3, "play", parse_cards(["cheng-9", "barat-vizier"])))
    # the highest Phul (the leader's Raja) takes it; the others keep playing
    assert s.tricks == (1, 0, 0, 0) and s.leader == 0 and s.won[0] == 8


def test_a_player_without_face_cards_drops_out_and_the_lead_passes():
    s = _state([["phul-2", "phul-1"], ["cheng-raja", "cheng-1"], ["ghulam-vizier", "ghulam-3"],
                ["surya-4", "surya-5"]])
    assert hamrang.legal_moves(s) == [Move(0, "out")]
    s, evs = hamrang.apply(s, Move(0, "out"))
    assert s.out[0] and hamrang.current_player(s) == 1 and evs[0].announce
    s, _ = hamrang.apply(s, hamrang.legal_moves(s)[0])  # seat 1 leads; seat 3 must drop out
    s, _ = hamrang.apply(s, hamrang.legal_moves(s)[0])
    assert hamrang.legal_moves(s) == [Move(3, "out")]


def _play_out(seed, **opts):
    s = hamrang.new_game(4, hamrang.Options(**opts), seed)
    rng, states = random.Random(seed), [s]
    while not hamrang.is_over(s):
        s, _ = hamrang.apply(s, rng.choice(hamrang.legal_moves(s)))
        states.append(s)
        assert len(states) < 100  # at most 48 plays and 4 drop-outs
    return states


@given(st.integers(0, 10_000), st.sampled_from(["day", "night"]),
       st.sampled_from(hamrang.LONE), st.sampled_from(list(RankOrder)))
@settings(max_examples=40, deadline=None)
def test_cards_are_conserved_and_the_game_ends_when_the_face_cards_are_gone(seed, time,
                                                                            lone, order):
    states = _play_out(seed, time_of_day=time, lone_player=lone, rank_order=order)
    for s in states:
        in_hands = [c for h in s.hands for c in h]
        assert len(in_hands) == sum(s.counts) == len(set(in_hands))
        assert sum(s.counts) + sum(s.won) + len(s.trick) == 96
        assert sum(s.won) == 8 * sum(s.tricks) or any(s.out)  # full tricks are 8 cards
    last = states[-1]
    still_in = [p for p in range(4) if not last.out[p]]
    if lone == "play-out":
        assert not still_in  # "until all players have played all of their face cards"
    else:
        assert len(still_in) <= 1
    for p in range(4):
        if last.out[p]:
            assert not any(c.rank.is_face for c in last.hands[p])
    res = hamrang.result(last)
    assert all(last.tricks[w] == max(last.tricks) for w in res.winners)


@given(st.integers(0, 10_000), st.sampled_from(hamrang.LONE))
@settings(max_examples=15, deadline=None)
def test_the_referee_never_calls_a_simulated_game_illegal(seed, lone):
    rec = simulate("hamrang", 4, {"lone_player": lone}, seed)
    assert Verdict.ILLEGAL not in [r.verdict for r in referee_record(table_view(rec))]


def _referee(moves, **opts):
    return list(referee_record(GameRecord("hamrang", 4, opts, None, None, tuple(moves))))


def test_a_false_substitution_is_proven_by_a_later_card():
    moves = [Move(2, "play", parse_cards(["surya-raja", "surya-1"])),  # both surely extremes
             Move(3, "play", parse_cards(["surya-10", "surya-2"])),  # 2 surely lowest; 10?
             Move(0, "play", parse_cards(["phul-3", "cheng-3"])),  # "no Surya"
             Move(1, "play", parse_cards(["surya-vizier", "surya-9"])),
             # seat 2's Raja takes the trick; seat 2 leads again
             Move(2, "play", parse_cards(["phul-raja", "phul-1"])),
             Move(3, "play", parse_cards(["phul-8", "phul-4"])),
             Move(0, "play", parse_cards(["phul-5", "surya-5"]))]  # a Surya: seat 0 lied
    r = _referee(moves)
    assert [x.verdict for x in r[:3]] == [Verdict.LEGAL, Verdict.UNVERIFIABLE,
                                          Verdict.UNVERIFIABLE]
    assert [x.verdict for x in r[3:6]] != [Verdict.ILLEGAL] * 3
    assert r[-1].verdict is Verdict.ILLEGAL and "move 3" in r[-1].reason


def test_the_referee_refuses_a_lead_without_a_face_card():
    moves = [Move(2, "play", parse_cards(["surya-raja", "surya-1"])),
             Move(3, "play", parse_cards(["surya-10", "surya-2"])),
             Move(0, "play", parse_cards(["surya-vizier", "surya-3"])),
             Move(1, "play", parse_cards(["surya-9", "surya-4"])),
             Move(2, "play", parse_cards(["phul-10", "phul-2"]))]  # seat 2 won with the Raja
    r = _referee(moves)
    assert r[-1].verdict is Verdict.ILLEGAL and "face card" in r[-1].reason
    assert _referee([Move(0, "play", parse_cards(["chandra-raja", "chandra-1"]))])[0].verdict \
        is Verdict.ILLEGAL  # by day the Raja of Surya opens



@given(st.integers(0, 10_000), st.integers(0, 40))
@settings(max_examples=40, deadline=None)
def test_the_referee_never_calls_a_rule_breaking_play_legal(seed, at):
    # play legally up to move `at`, then two cards from the hand that the rules forbid there
    s = hamrang.new_game(4, None, seed)
    rng, moves = random.Random(seed), []
    for _ in range(at):
        if hamrang.is_over(s):
            return
        m = rng.choice(hamrang.legal_moves(s))
        s, _ = hamrang.apply(s, m)
        moves.append(m)
    p = hamrang.current_player(s)
    if p is None or hamrang.legal_moves(s)[0].action == "out" or len(s.hands[p]) < 2:
        return
    legal = {frozenset(m.cards) for m in hamrang.legal_moves(s)}
    lead = not s.trick
    wrong = [pair for pair in itertools.permutations(s.hands[p], 2)
             if frozenset(pair) not in legal or (lead and Move(p, "play", pair)
                                                 not in hamrang.legal_moves(s))]
    if not wrong:
        return
    bad = Move(p, "play", rng.choice(wrong))
    with pytest.raises(IllegalMoveError):
        hamrang.apply(s, bad)
    verdicts = [r.verdict for r in _referee(moves + [bad])]
    assert Verdict.ILLEGAL not in verdicts[:-1]
    assert verdicts[-1] is not Verdict.LEGAL
