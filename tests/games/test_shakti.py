"""Shakti (seed 003): the deal, the draws, the discards, the rebuilt deck, the win, the referee."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, DeckKind, deck_cards
from companion.games import shakti as s
from companion.games.base import IllegalMoveError, Move, OptionsError, Verdict
from companion.record import referee_record, simulate, table_view

C = Card.parse


def cards(text):
    return tuple(C(x) for x in text.split())


def dealt(seed=1, options=None):
    st0 = s.new_game(4, options, seed)
    st1, _ = s.apply(st0, s.legal_moves(st0)[0])
    return st1


def all_cards(state):
    return [c for h in state.hands for c in h] + [c for p in state.piles for c in p] + list(
        state.deck)


def test_the_deal_from_the_dealers_right():
    g = s.new_game(4, None, 7)
    assert [len(h) for h in g.hands] == [8] * 4 and len(g.deck) == 60
    assert s.current_player(g) == 3  # the dealer lays the four face-up cards
    assert s.legal_moves(g) == [Move(3, "deal", g.deal[1])]
    g, _ = s.apply(g, s.legal_moves(g)[0])
    assert [len(p) for p in g.piles] == [1] * 4 and s.current_player(g) == 0
    assert sorted(map(str, all_cards(g))) == sorted(c.id for c in deck_cards(DeckKind.MUGHAL))
    with pytest.raises(OptionsError):
        s.Options(dealer=4)


def test_the_first_draw_choices():
    g = dealt()
    targets = [m.target for m in s.legal_moves(g)]
    assert targets == ["deck", "tops", "bottoms"]  # no pile has four cards yet
    with pytest.raises(IllegalMoveError, match="fewer than four"):
        s.apply(g, Move(0, "draw", (), "pile1-top"))


def test_a_deck_draw_is_discarded_onto_the_own_pile():
    g = dealt()
    g, evs = s.apply(g, Move(0, "draw", g.deck[:4], "deck"))
    assert len(g.hands[0]) == 12 and g.pending == ("pile1-top",) * 4
    assert evs[0].cards == ()  # nobody sees what came from the deck
    assert s.public_move(Move(0, "draw", g.hands[0][8:], "deck")).cards == ()
    tops = Move(1, "draw", cards("surya-1 surya-2 surya-3 surya-4"), "tops")
    assert s.public_move(tops) == tops  # pile cards are in view
    with pytest.raises(IllegalMoveError, match="where you drew"):
        s.apply(g, Move(0, "discard", (g.hands[0][0],), "pile2-top"))
    for card in g.hands[0][:4]:
        g, _ = s.apply(g, Move(0, "discard", (card,), "pile1-top"))
    assert len(g.piles[0]) == 5 and len(g.deck) == 56 and s.current_player(g) == 1
    other = dealt(options=s.Options(deck_discard=s.DeckDiscard.DECK_BOTTOM))
    other, _ = s.apply(other, Move(0, "draw", other.deck[:4], "deck"))
    assert other.pending == ("deck-bottom",) * 4


def test_tops_draw_one_from_each_pile_and_one_back_to_each():
    g = dealt()
    tops = tuple(p[-1] for p in g.piles)
    g, _ = s.apply(g, Move(0, "draw", tops, "tops"))
    hand = g.hands[0]
    g, _ = s.apply(g, Move(0, "discard", (hand[0],), "pile3-top"))
    with pytest.raises(IllegalMoveError):
        s.apply(g, Move(0, "discard", (hand[1],), "pile3-top"))
    for card, t in zip(hand[1:4], ("pile1-top", "pile2-top", "pile4-top")):
        g, _ = s.apply(g, Move(0, "discard", (card,), t))
    assert [len(p) for p in g.piles] == [1] * 4 and g.piles[2] == (hand[0],)


def test_four_from_the_bottom_of_one_pile_go_back_to_its_bottom():
    g = dealt()
    pile = cards("surya-1 surya-2 surya-3 surya-4 surya-5")
    g = replace(g, piles=(g.piles[0], pile, g.piles[2], g.piles[3]))
    moves = {m.target: m.cards for m in s.legal_moves(g)}
    assert moves["pile2-bottom"] == pile[:4]
    assert moves["pile2-top"] == tuple(reversed(pile[1:]))
    h, _ = s.apply(g, Move(0, "draw", pile[:4], "pile2-bottom"))
    assert h.piles[1] == pile[4:] and set(h.pending) == {"pile2-bottom"}
    h, _ = s.apply(h, Move(0, "discard", (h.hands[0][0],), "pile2-bottom"))
    assert h.piles[1][0] == h.deal[0][0][0]
    top = replace(g, options=s.Options(discard_end=s.DiscardEnd.TOP))
    h, _ = s.apply(top, Move(0, "draw", pile[:4], "pile2-bottom"))
    assert set(h.pending) == {"pile2-top"}
    with pytest.raises(IllegalMoveError, match="not the cards"):
        s.apply(g, Move(0, "draw", pile[1:5], "pile2-bottom"))


@pytest.mark.parametrize("hand,order,want", [
    ("chandra-2 chandra-3 chandra-4 chandra-5 chandra-6 chandra-7 chandra-8 chandra-9",
     s.RunOrder.PRINTED, "run"),
    ("phul-5 phul-6 phul-7 phul-8 phul-9 phul-10 phul-vizier phul-raja",
     s.RunOrder.PRINTED, "run"),
    ("surya-4 surya-5 surya-6 surya-7 surya-8 surya-9 surya-10 surya-vizier",
     s.RunOrder.PRINTED, "run"),
    ("surya-4 surya-5 surya-6 surya-7 surya-8 surya-9 surya-10 surya-vizier",
     s.RunOrder.TRADITIONAL, ""),
    ("surya-1 surya-2 surya-3 surya-4 surya-5 surya-6 surya-vizier surya-raja",
     s.RunOrder.TRADITIONAL, "run"),
    ("surya-1 surya-2 surya-3 surya-4 surya-5 surya-6 surya-vizier surya-raja",
     s.RunOrder.PRINTED, ""),
    (("surya-raja chandra-raja barat-raja phul-raja kumancha-raja ghulam-raja cheng-raja "
     "shamsher-raja"), s.RunOrder.PRINTED, "eight"),
    ("chandra-2 chandra-3 chandra-4 chandra-5 chandra-6 chandra-7 chandra-8 surya-9",
     s.RunOrder.PRINTED, ""),
    ("chandra-2 chandra-3 chandra-4 chandra-5 chandra-6 chandra-7 chandra-8",
     s.RunOrder.PRINTED, ""),
])
def test_winning_hands(hand, order, want):
    got = s.winning(cards(hand), order)
    assert (got.split(" ")[0] if got else "") == ("a" if want == "run" else want)


def test_a_completed_hand_must_be_shown_and_wins():
    g = dealt()
    run = cards("chandra-2 chandra-3 chandra-4 chandra-5 chandra-6 chandra-7 chandra-8 "
                "chandra-9")
    junk = cards("surya-1 barat-1 phul-1 cheng-1")
    g = replace(g, hands=(run[:4] + junk,) + g.hands[1:], phase="discard",
                pending=("pile1-top",) * 4)
    g = replace(g, hands=(g.hands[0] + run[4:],) + g.hands[1:])
    for card in junk:
        g, _ = s.apply(g, Move(0, "discard", (card,), "pile1-top"))
    assert s.legal_moves(g) == [Move(0, "show", run)]
    with pytest.raises(IllegalMoveError):
        s.apply(g, Move(0, "draw", (), "deck"))
    g, evs = s.apply(g, Move(0, "show", run))
    assert s.is_over(g) and s.result(g).winners == (0,)
    assert s.result(g).scores == (1.0, 0.0, 0.0, 0.0)
    assert evs[0].announce and "run of 8 in Chandra" in evs[0].text


def test_the_deck_is_rebuilt_when_it_runs_out():
    g = dealt()
    extra = g.deck[4:]
    piles = tuple(p + extra[i * 14:(i + 1) * 14] for i, p in enumerate(g.piles))
    g = replace(g, deck=g.deck[:4], piles=piles)
    tops_before = [p[-1] for p in g.piles]
    g, _ = s.apply(g, Move(0, "draw", g.deck, "deck"))
    evs = []
    for card in g.hands[0][:4]:
        g, evs = s.apply(g, Move(0, "discard", (card,), "pile1-top"))
    assert [e.kind for e in evs] == ["discard", "rebuild"] and evs[1].announce
    assert [len(p) for p in g.piles] == [1] * 4 and g.piles[1:] == tuple(
        (t,) for t in tops_before[1:])
    assert len(g.deck) == 60 and g.rebuilds == 1
    assert len(set(all_cards(g))) == 96


def test_turn_limit_ends_in_a_draw():
    rec = simulate("shakti", 4, {"max_turns": 3}, 5)
    assert rec.result["winners"] == [] and "turn-limit" in rec.result["text"]
    assert sum(1 for m in rec.moves if m.action == "draw") == 3


def test_referee_finds_no_false_errors_and_catches_cheats():
    for seed in range(8):
        rec = simulate("shakti", 4, None, seed)
        assert not [r for r in referee_record(table_view(rec)) if r.verdict is Verdict.ILLEGAL]
    rec = simulate("shakti", 4, None, 3)
    moves = [s.public_move(m) for m in rec.moves]
    ref = s.TableReferee(4, s.Options())
    assert ref.observe(moves[0]).verdict is Verdict.LEGAL  # the deal
    face_up = moves[0].cards
    wrong = Move(0, "draw", tuple(reversed(face_up)), "tops")
    assert ref.observe(wrong).verdict is Verdict.ILLEGAL
    assert ref.observe(Move(0, "draw", (), "deck")).verdict is Verdict.LEGAL
    on_pile = Move(0, "discard", (face_up[2],), "pile1-top")
    assert "discard pile" in ref.observe(on_pile).reason
    bogus = Move(1, "show", cards("chandra-2 chandra-3 chandra-4 chandra-5 chandra-6 "
                                  "chandra-7 chandra-8 surya-9"))
    assert ref.observe(bogus).verdict is Verdict.ILLEGAL



OPTIONS = st.builds(s.Options, dealer=st.integers(0, 3),
                    run_order=st.sampled_from(list(s.RunOrder)),
                    deck_discard=st.sampled_from(list(s.DeckDiscard)),
                    discard_end=st.sampled_from(list(s.DiscardEnd)),
                    max_turns=st.integers(1, 60))


@settings(max_examples=30, deadline=None)
@given(opts=OPTIONS, seed=st.integers(0, 10_000), greedy=st.booleans())
def test_cards_are_conserved_and_games_end_with_a_true_winner(opts, seed, greedy):
    rng = random.Random(seed)
    g = s.new_game(4, opts, seed)
    moves = 0
    while not s.is_over(g):
        m = s.bot_move(g, rng) if greedy else rng.choice(s.legal_moves(g))
        g, _ = s.apply(g, m)
        moves += 1
        assert len(all_cards(g)) == 96 and len(set(all_cards(g))) == 96
        if g.phase == "draw":
            assert [len(h) for h in g.hands] == [8] * 4
        assert moves <= 1 + 5 * opts.max_turns + 1
    assert g.turns <= opts.max_turns
    r = s.result(g)
    if r.winners:
        (w,) = r.winners
        assert s.winning(g.hands[w], opts.run_order) and r.scores[w] == 1.0
        assert sum(r.scores) == 1.0
    else:
        assert g.turns == opts.max_turns and sum(r.scores) == 0.0


def test_referee_checks_a_shown_hand_against_the_cards_seen_taken():
    ref = s.TableReferee(4, s.Options())
    g = s.new_game(4, None, 9)
    face_up = g.deal[1]
    assert ref.observe(Move(3, "deal", face_up)).verdict is Verdict.LEGAL
    assert ref.observe(Move(0, "draw", face_up, "tops")).verdict is Verdict.LEGAL
    suits = [x for x in ("chandra", "phul", "ghulam", "shamsher", "surya", "barat")
             if not any(c.suit.value == x for c in face_up)]
    run = cards(" ".join(f"{suits[0]}-{n}" for n in range(1, 9)))
    junk = cards(" ".join(f"{suits[1]}-{n}" for n in range(1, 5)))
    for card, pile in zip(junk, ("pile1-top", "pile2-top", "pile3-top", "pile4-top")):
        assert ref.observe(Move(0, "discard", (card,), pile)).verdict is Verdict.LEGAL
    ruling = ref.observe(Move(0, "show", run))
    assert ruling.verdict is Verdict.ILLEGAL and "seen taking" in ruling.reason
    honest = face_up + run[4:]
    assert not s.winning(honest)  # the face-up cards are not a run, so that is refused too
    assert ref.observe(Move(0, "show", honest)).verdict is Verdict.ILLEGAL
