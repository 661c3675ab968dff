"""Kendra Kari property tests over thousands of random games (Hypothesis, derandomized):
every card is always accounted for, every move legal_moves offers is accepted, every
other move is refused, and the table referee never calls a legal move illegal."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from test_kendra_kari import accounted

from companion.games import kendra_kari as kk
from companion.games.base import IllegalMoveError, Move, Verdict

OPTIONS = st.builds(kk.Options, direction=st.sampled_from(list(kk.Direction)),
                    stock_exhausted=st.sampled_from(list(kk.StockExhausted)),
                    first_play_2011=st.booleans(), play_drawn_card=st.booleans(),
                    hand_limit_nine=st.booleans())
ACTIONS = ("deal", "play", "bridge", "start", "draw", "pass", "turnup", "discard")
TARGETS = ("", "1", "2", "3", "4", "5", "6", "7", "7,1", "1,7", "3,7", "6,7", "0", "8", "x")
GAMES_PER_EXAMPLE = 20


def _short_stock(state: kk.State, short: int) -> kk.State:
    """Count part of the stock as already captured, so that stock exhaustion, reshuffles
    and the nine-card footnote come up often."""
    short = min(short, len(state.stock) - 1)
    return state._replace(pos=short, captured=sum(1 << c for c in state.stock[:short]))


def _wrong_move(state: kk.State, rng: random.Random) -> Move:
    seat = state.turn if rng.random() < 0.8 else rng.randrange(state.players)
    pool = kk.bits(state.hands[state.turn]) + [t for t in state.tops if t >= 0]
    if state.pos < len(state.stock):
        pool.append(state.stock[state.pos])
    pool += [rng.randrange(96) for _ in range(3)]
    cards = tuple(kk.CARDS[rng.choice(pool)] for _ in range(rng.choice((0, 1, 1, 2))))
    return Move(seat, rng.choice(ACTIONS), cards, rng.choice(TARGETS))


def _play_games(options, players, seed, short, every_legal=False, referee=True):
    games = moves_seen = 0
    for k in range(GAMES_PER_EXAMPLE if not every_legal else 4):
        state = kk.new_game(players, options, seed + k)
        if short:
            state = _short_stock(state, short)
        ref = kk.TableReferee(players, options) if referee and not short else None
        rng = random.Random(seed * 31 + k)
        while not kk.is_over(state):
            assert accounted(state)
            legal = kk.legal_moves(state)
            assert legal and {m.player for m in legal} == {kk.current_player(state)}
            if every_legal:
                for m in legal:
                    assert accounted(kk.apply(state, m)[0])
            bad = _wrong_move(state, rng)
            if bad in legal:
                kk.apply(state, bad)
            else:
                try:
                    kk.apply(state, bad)
                except IllegalMoveError as e:
                    assert e.reason
                else:
                    raise AssertionError(f"accepted a move not in legal_moves: {bad}")
            move = rng.choice(legal)
            state, _ = kk.apply(state, move)
            moves_seen += 1
            if ref is not None:
                r = ref.observe(kk.public_move(move))
                assert r.verdict is not Verdict.ILLEGAL, (move, r.reason)
                assert (r.verdict is Verdict.UNVERIFIABLE) == (move.action in ("draw", "pass"))
        assert accounted(state)
        res = kk.result(state)
        counts = [h.bit_count() for h in state.hands]
        assert res.winners and all(counts[w] == min(counts) for w in res.winners)
        games += 1
    return games, moves_seen


@settings(max_examples=75, derandomize=True, deadline=None)
@given(options=OPTIONS, players=st.integers(3, 6), seed=st.integers(0, 2**31),
       short=st.sampled_from((0, 0, 30, 60)))
def test_random_games_account_for_every_card_and_refuse_every_wrong_move(
        options, players, seed, short):
    games, _ = _play_games(options, players, seed, short)
    assert games == GAMES_PER_EXAMPLE


@settings(max_examples=30, derandomize=True, deadline=None)
@given(options=OPTIONS, players=st.integers(3, 6), seed=st.integers(0, 2**31),
       short=st.sampled_from((0, 40, 60)))
def test_every_move_legal_moves_offers_is_accepted(options, players, seed, short):
    _play_games(options, players, seed, short, every_legal=True, referee=False)
