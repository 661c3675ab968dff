"""Udvasa (seed 003): builds, working stacks, fills, deals, the end, hints and the solver."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.cards import Card, Rank, Suit
from companion.games import udvasa as u
from companion.games.base import IllegalMoveError, Move, OptionsError, Verdict
from companion.games.udvasa_solver import solve, solve_seed
from companion.record import referee_record, simulate, table_view

C = Card.parse
OPTS = u.Options()
START = tuple(int(c.rank) for c in u.start_cards(OPTS))  # surya 1, chandra raja, ...


def position(*stacks, builds=START, options=OPTS, stock=0, idle=0):
    """A mid-game position; ``stock`` cards (unseen) are left to deal."""
    work = tuple(tuple(C(x) for x in s.split()) if s else () for s in stacks)
    work += ((),) * (8 - len(work))
    return u.State(options, (), builds, work, dealt=u.TO_DEAL - stock, idle=idle)


def moves_of(state):
    return {(m.action, m.cards[0].id if m.cards else "", m.target) for m in u.legal_moves(state)}


def test_start_four_rajas_and_four_ones_and_the_opening_deal():
    s = u.new_game(1, None, 4)
    start = u.start_cards(OPTS)
    assert sorted(c.rank for c in start) == [Rank.ONE] * 4 + [Rank.RAJA] * 4
    # strong suits (10 high) build down from the Raja, reversed suits up from the 1
    assert {c.suit for c in start if c.rank is Rank.RAJA} == {
        Suit.CHANDRA, Suit.PHUL, Suit.GHULAM, Suit.SHAMSHER}
    assert len(set(s.order)) == 88 and not set(s.order) & set(start)
    assert u.legal_moves(s) == [Move(0, "deal", s.order[:8])]
    s, _ = u.apply(s, u.legal_moves(s)[0])
    assert [w[-1] for w in s.work] == list(s.order[:8]) and u.stock_left(s) == 80


def test_down_suits_option():
    weak = u.Options(down_suits="weak")
    assert {c.suit for c in u.start_cards(weak) if c.rank is Rank.RAJA} == {
        Suit.SURYA, Suit.BARAT, Suit.KUMANCHA, Suit.CHENG}
    mixed = u.Options(down_suits="surya,chandra,barat,phul")
    assert u.down_flags(mixed.down_suits)[:4] == (True,) * 4
    for bad in ("surya,chandra", "surya,chandra,barat,matsya", "up"):
        with pytest.raises(OptionsError):
            u.Options(down_suits=bad)


def test_one_more_or_less_by_printed_number_any_suit():
    s = position("surya-3", "chandra-4", "barat-9", "ghulam-vizier", "phul-10", "cheng-raja",
                 "kumancha-6", "shamsher-8")
    got = {(c, t) for a, c, t in moves_of(s) if a == "move"}
    assert ("surya-3", "work2") in got and ("chandra-4", "work1") in got  # a reversed suit
    assert ("ghulam-vizier", "work5") in got and ("phul-10", "work4") in got  # 10 <-> vizier
    assert ("cheng-raja", "work4") in got  # vizier <-> raja
    assert ("barat-9", "work8") in got and ("barat-9", "work5") in got
    assert not any(c == "kumancha-6" for c, _ in got)
    assert len(got) == 10


def test_raja_and_one_are_adjacent_only_with_wrap():
    s = position("surya-raja", "chandra-1", "barat-7", "phul-5", "ghulam-3", "cheng-9",
                 "kumancha-vizier", "shamsher-5")
    assert ("move", "surya-raja", "work2") not in moves_of(s)
    wrapped = replace(s, options=u.Options(wrap=True))
    assert ("move", "surya-raja", "work2") in moves_of(wrapped)


def test_builds_follow_the_suit_direction():
    s = position("surya-2", "chandra-vizier", "chandra-10", "barat-3", "phul-vizier",
                 "kumancha-raja", "ghulam-7", "shamsher-5")
    builds = {c for a, c, _ in moves_of(s) if a == "build"}
    assert builds == {"surya-2", "chandra-vizier", "phul-vizier"}
    s, _ = u.apply(s, Move(0, "build", (C("surya-2"),), "build-surya"))
    assert s.builds[0] == 2 and u.cards_built(s) == 9 and s.idle == 0
    with pytest.raises(IllegalMoveError, match="next card"):
        u.apply(s, Move(0, "build", (C("chandra-10"),), "build-chandra"))
    with pytest.raises(IllegalMoveError, match="not on top"):
        u.apply(s, Move(0, "build", (C("surya-2"),), "build-surya"))


def test_an_empty_stack_must_be_filled_from_a_stack_of_two():
    s = position("surya-5 chandra-8", "barat-3", "", "phul-4", "kumancha-2", "ghulam-9",
                 "cheng-6", "shamsher-7", stock=8)
    assert moves_of(s) == {("move", "chandra-8", "work3")}  # the only fill; no build first
    with pytest.raises(IllegalMoveError, match="filled first"):
        u.apply(s, Move(0, "move", (C("barat-3"),), "work4"))
    # lone cards do not fill a gap; then play goes on
    alone = position("barat-3", "", "phul-4", "kumancha-2", "ghulam-9", "cheng-6",
                     "shamsher-7", "surya-vizier")
    assert ("build", "kumancha-2", "build-kumancha") in moves_of(alone)
    assert not any(t == "work2" for _, _, t in moves_of(alone))


def test_deal_only_when_no_card_can_be_built():
    s = position("surya-2", "barat-5", "phul-8", "kumancha-6", "ghulam-3", "cheng-10",
                 "shamsher-2", "chandra-4", stock=8)
    assert not any(a == "deal" for a, _, _ in moves_of(s))
    ref = u.TableReferee(1, OPTS)
    ref._states = [replace(s, order=())]
    deal = Move(0, "deal", tuple(C(f"ghulam-{n}") for n in range(4, 10)) +
                (C("cheng-9"), C("phul-9")))
    assert ref.observe(deal).verdict is Verdict.ILLEGAL
    built, _ = u.apply(s, Move(0, "build", (C("surya-2"),), "build-surya"))
    assert not u._deal_allowed(built)  # only working moves left
    strict = replace(built, options=u.Options(deal_when=u.DealWhen.NO_MOVE))
    assert u._deal_allowed(strict)


# odd ranks only: no two tops are 1 apart, and none of them builds
STUCK = ("surya-5", "barat-9", "phul-3", "kumancha-7", "kumancha-vizier", "cheng-3",
         "shamsher-5")


def test_stuck_with_no_stock_is_lost():
    s = position(*STUCK, "chandra-1 surya-2")
    assert u._ending(s) == ""
    s, evs = u.apply(s, Move(0, "build", (C("surya-2"),), "build-surya"))
    assert s.ended == "stuck" and u.is_over(s)
    r = u.result(s)
    assert r.winners == () and r.scores == (9.0,) and "lost" in r.text
    assert evs[-1].announce


def test_idle_limit_ends_the_game():
    s = position("surya-5", "chandra-6", options=u.Options(idle_limit=3, fill_first=False))
    n = 0
    while not u.is_over(s):
        assert not any(m.action == "build" for m in u.legal_moves(s))
        s, _ = u.apply(s, u.legal_moves(s)[0])
        n += 1
    assert n == 3 and s.ended == "idle" and "idle-limit" in u.result(s).text


def test_the_last_card_wins():
    builds = tuple(12 if b == 1 else 1 for b in START)
    builds = (11,) + builds[1:]  # Surya builds up and lacks its Raja
    s = position("surya-raja", builds=builds)
    s, evs = u.apply(s, Move(0, "build", (C("surya-raja"),), "build-surya"))
    assert s.ended == "won" and u.result(s).winners == (0,) and u.result(s).scores == (96.0,)
    assert [e.kind for e in evs] == ["build", "build-complete", "game-over"]


def test_hint_names_a_legal_move_in_words():
    s = position("surya-6", "chandra-4", "barat-2", "phul-vizier", "ghulam-9", "cheng-5",
                 "kumancha-7", "shamsher-3")
    text = u.hint_text(s)
    assert text == ("a legal move exists: 2 of Barat from working stack 3 to the Barat "
                    "build stack")
    assert u.hint(s) in u.legal_moves(s)
    over = replace(s, ended="stuck")
    assert u.hint(over) is None and "over" in u.hint_text(over)


def test_solver_finds_a_line_that_the_engine_plays_to_a_win():
    found = solve_seed(10, budget=5_000)
    assert found.status == "winnable" and found.winnable
    s = u.new_game(1, None, 10)
    for m in found.moves:
        s, _ = u.apply(s, m)
    assert s.ended == "won"
    # the hint with a budget starts the same winning line
    assert u.hint(u.new_game(1, None, 10), budget=5_000) == found.moves[0]


def test_solver_says_unwinnable_only_after_a_full_search():
    stuck = position(*STUCK, "chandra-1 surya-3")
    assert solve(stuck, 100).status == "unwinnable"
    assert solve_seed(1, budget=50).status == "unknown"


def test_referee_accepts_simulated_games_and_catches_tampering():
    rec = simulate("udvasa", 1, None, 2)
    rulings = list(referee_record(table_view(rec)))
    assert all(r.verdict is Verdict.LEGAL for r in rulings)
    ref = u.TableReferee(1, OPTS)
    first = rec.moves[0]
    dup = Move(0, "deal", first.cards[:7] + first.cards[:1])
    assert ref.observe(dup).verdict is Verdict.ILLEGAL
    built = Move(0, "deal", first.cards[:7] + (C("chandra-raja"),))  # on a build stack
    assert ref.observe(built).verdict is Verdict.ILLEGAL
    assert ref.observe(first).verdict is Verdict.LEGAL
    onto_itself = Move(0, "move", (first.cards[0],), "work1")
    assert ref.observe(onto_itself).verdict is Verdict.ILLEGAL


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), down=st.sampled_from(["strong", "weak"]),
       wrap=st.booleans(), when=st.sampled_from(list(u.DealWhen)),
       fill_first=st.booleans(), greedy=st.booleans())
def test_cards_are_conserved_builds_stay_in_sequence_and_games_end(
        seed, down, wrap, when, fill_first, greedy):
    opts = u.Options(down_suits=down, wrap=wrap, deal_when=when, fill_first=fill_first,
                     idle_limit=40)
    rng = random.Random(seed)
    s = u.new_game(1, opts, seed)
    moves = 0
    while not u.is_over(s):
        m = u.greedy_move(s, rng) if greedy else rng.choice(u.legal_moves(s))
        before = u.cards_built(s)
        s, _ = u.apply(s, m)
        moves += 1
        on_table = sum(len(w) for w in s.work)
        assert u.cards_built(s) + on_table + u.stock_left(s) == 96
        assert len({c for w in s.work for c in w}) == on_table
        assert u.cards_built(s) - before == (1 if m.action == "build" else 0)
        assert moves <= (88 + 11) * opts.idle_limit  # idle-limit bounds every game
    assert 8 <= u.result(s).scores[0] <= 96
    assert (u.result(s).winners == (0,)) == (u.cards_built(s) == 96)
    assert s.ended in ("won", "stuck", "idle")


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), wrap=st.booleans(), fill_first=st.booleans(),
       when=st.sampled_from(list(u.DealWhen)))
def test_apply_accepts_exactly_the_listed_moves(seed, wrap, fill_first, when):
    """Every card on top of a stack, to every stack and its build: ``apply`` agrees with
    ``legal_moves``, and a game with moves left is not declared over."""
    opts = u.Options(wrap=wrap, fill_first=fill_first, deal_when=when, idle_limit=30)
    rng = random.Random(seed)
    s = u.new_game(1, opts, seed)
    for _ in range(60):
        if u.is_over(s):
            break
        legal = u.legal_moves(s)
        assert legal
        tops = [w[-1] for w in s.work if w]
        tries = [Move(0, "move", (c,), f"work{j}") for c in tops for j in range(1, 9)]
        tries += [Move(0, "build", (c,), u.build_target(c.suit)) for c in tops]
        for m in tries:
            try:
                u.apply(s, m)
                ok = True
            except IllegalMoveError:
                ok = False
            assert ok == (m in legal), m
        s, _ = u.apply(s, rng.choice(legal))
        if s.ended == "stuck":  # lost-when-stuck only when nothing at all can be played
            assert u.legal_moves(replace(s, ended="")) == []


def test_render_shows_builds_stacks_and_stock():
    s = position("surya-5 barat-9", "chandra-6", stock=16)
    text = u.render(s)
    assert "Surya up 1" in text and "Chandra down raja" in text
    assert "work1: surya-5 barat-9" in text and "work2: chandra-6" in text
    assert "stock: 16 cards" in text and "(8/96)" in text


def test_the_bot_plays_the_solvers_line_to_a_win_when_it_has_one():
    wins = 0
    for seed in range(4):
        opening = u.new_game(1, None, seed)
        opening, _ = u.apply(opening, u.legal_moves(opening)[0])
        planned = solve(opening, u.PLAN_BUDGET).status == "winnable"
        rec = simulate("udvasa", 1, None, seed)
        if planned:
            assert rec.result["winners"] == [0], seed
        wins += planned
    assert wins  # the bot can show a won game
