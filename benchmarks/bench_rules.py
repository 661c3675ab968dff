"""Rules-engine speed: complete random games per second and moves per second, one core.

A random game is the engine's own loop: legal_moves -> pick one at random -> apply, from
the seeded deal to the end. Rates are per second of this process's CPU time on one core
(so other load on the machine does not distort them). Usage:

    .venv/bin/python benchmarks/bench_rules.py [--seconds 3] [--game NAME ...]
"""

from __future__ import annotations

import argparse
import os
import random
import time

from companion.games import game_names, get_game


def default_players(game) -> int:
    return min(max(4, game.MIN_PLAYERS), game.MAX_PLAYERS)


def play_random(game, players: int, seed: int) -> int:
    rng = random.Random(seed)
    state = game.new_game(players, game.Options(), seed)
    moves = 0
    while not game.is_over(state):
        state, _ = game.apply(state, rng.choice(game.legal_moves(state)))
        moves += 1
    return moves


def bench(name: str, seconds: float) -> tuple[int, int, int, float]:
    game = get_game(name)
    players = default_players(game)
    play_random(game, players, -1)  # warm caches
    games = moves = 0
    start = time.process_time()
    while (elapsed := time.process_time() - start) < seconds or games < 3:
        moves += play_random(game, players, games)
        games += 1
    return players, games, moves, elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per game (default 3)")
    ap.add_argument("--game", action="append", help="only these games")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"{'game':12} {'players':>7} {'games':>7} {'games/s':>9} {'moves/s':>10} "
          f"{'moves/game':>10}")
    for name in args.game or game_names():
        players, games, moves, elapsed = bench(name, args.seconds)
        print(f"{name:12} {players:>7} {games:>7} {games / elapsed:>9.1f} "
              f"{moves / elapsed:>10.0f} {moves / games:>10.1f}")


if __name__ == "__main__":
    main()
