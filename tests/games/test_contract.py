"""Every registered game honours the shared contract (companion/games/base.py):
seeded deals, immutable states with cheap undo, replayable JSON records, and a table
referee that never calls a simulated (legal) game illegal."""

import json
import random

import pytest

from companion.games import _MODULES, game_names, get_game
from companion.games.base import (
    IllegalMoveError,
    OptionsError,
    UnknownGameError,
    Verdict,
    options_from_json,
    options_to_json,
)
from companion.record import GameRecord, referee_record, replay, simulate, table_view

GAMES = game_names()
SEEDS = range(6)


def _player_counts(game):
    return sorted({game.MIN_PLAYERS, game.MAX_PLAYERS, (game.MIN_PLAYERS + game.MAX_PLAYERS) // 2})


def test_every_planned_game_is_registered():
    assert set(GAMES) == set(_MODULES), f"missing game modules: {set(_MODULES) - set(GAMES)}"


def test_unknown_game_lists_the_known_names():
    with pytest.raises(UnknownGameError) as e:
        get_game("poker")
    assert "kendra-kari" in str(e.value) or not GAMES


@pytest.mark.parametrize("name", GAMES)
def test_module_surface(name):
    g = get_game(name)
    for attr in ("NAME", "TITLE", "MIN_PLAYERS", "MAX_PLAYERS", "Options", "new_game",
                 "current_player", "legal_moves", "apply", "is_over", "result", "deal_of",
                 "public_move", "TableReferee"):
        assert hasattr(g, attr), f"{name} lacks {attr}"
    assert g.NAME == name
    assert options_from_json(g.Options, options_to_json(g.Options())) == g.Options()
    with pytest.raises(OptionsError):
        options_from_json(g.Options, {"no_such_option": 1})


@pytest.mark.parametrize("name", GAMES)
def test_seeded_deal_is_deterministic(name):
    g = get_game(name)
    n = g.MIN_PLAYERS
    a, b = g.new_game(n, g.Options(), 11), g.new_game(n, g.Options(), 11)
    assert g.deal_of(a) == g.deal_of(b)
    json.dumps(g.deal_of(a))  # JSON-able


@pytest.mark.parametrize("name", GAMES)
def test_records_replay_and_the_referee_finds_no_false_errors(name):
    g = get_game(name)
    for players in _player_counts(g):
        for seed in SEEDS:
            rec = simulate(name, players, None, seed)
            assert rec.result is not None
            # JSON round trip keeps everything
            again = GameRecord.loads(rec.dumps())
            assert again == rec
            # full replay reproduces the events and the result
            states = list(replay(again))
            assert [tuple(evs) for _, _, evs in states] == list(rec.events)
            final = states[-1][0] if states else g.new_game(players, g.Options(), seed)
            assert g.is_over(final)
            res = g.result(final)
            assert res.to_json() == rec.result
            assert all(0 <= w < players for w in res.winners)
            assert len(res.scores) == players
            # the table referee, seeing only the public moves, calls nothing illegal
            rulings = list(referee_record(table_view(rec)))
            assert len(rulings) == len(rec.moves)
            illegal = [(i, r.reason) for i, r in enumerate(rulings)
                       if r.verdict is Verdict.ILLEGAL]
            assert not illegal, f"{name} p={players} seed={seed}: false errors {illegal[:3]}"


@pytest.mark.parametrize("name", GAMES)
def test_states_are_immutable_so_undo_is_keeping_the_old_state(name):
    g = get_game(name)
    rng = random.Random(3)
    state = g.new_game(g.MIN_PLAYERS, g.Options(), 3)
    for _ in range(40):
        if g.is_over(state):
            break
        before_moves = g.legal_moves(state)
        before_deal = json.dumps(g.deal_of(state), sort_keys=True)
        move = rng.choice(before_moves)
        new_state, _ = g.apply(state, move)
        assert g.legal_moves(state) == before_moves  # old state untouched
        assert json.dumps(g.deal_of(state), sort_keys=True) == before_deal
        state = new_state


@pytest.mark.parametrize("name", GAMES)
def test_moves_outside_legal_moves_are_refused(name):
    g = get_game(name)
    state = g.new_game(g.MAX_PLAYERS, g.Options(), 5)
    legal = g.legal_moves(state)
    assert legal, f"{name}: no legal move at the start"
    wrong_seat = type(legal[0])((legal[0].player + 1) % g.MAX_PLAYERS, legal[0].action,
                                legal[0].cards, legal[0].target)
    bogus = [type(legal[0])(legal[0].player, "no-such-action", legal[0].cards, legal[0].target)]
    if g.MAX_PLAYERS > 1 and wrong_seat not in legal:
        bogus.append(wrong_seat)
    for move in bogus:
        with pytest.raises(IllegalMoveError) as e:
            g.apply(state, move)
        assert e.value.reason
