"""Rules verbs: `simulate`, `referee`, `demo`, `games`."""

from __future__ import annotations

import argparse
import json
import sys
import time

from companion.cli import UsageError


def _option_pairs(pairs: list[str]) -> dict[str, str]:
    out = {}
    for p in pairs or []:
        key, eq, value = p.partition("=")
        if not eq or not key:
            raise UsageError(f"--option takes KEY=VALUE, got {p!r}")
        out[key.strip().replace("-", "_")] = value.strip()
    return out


def _add_game_args(p: argparse.ArgumentParser, players_required: bool = True) -> None:
    p.add_argument("--game", required=True, help="game name, e.g. kendra-kari, ganjifa")
    p.add_argument("--players", type=int, required=players_required, help="number of players")
    p.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a rule option or ruling, e.g. -o direction=anticlockwise (repeatable)")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("games", help="list the games and their options")
    p.set_defaults(handler=_games)

    p = sub.add_parser("simulate", help="play complete games with a bot; JSON records on stdout")
    _add_game_args(p)
    p.add_argument("--seed", type=int, default=0, help="seed of the first game")
    p.add_argument("--games", type=int, default=1, help="how many games (seeds seed, seed+1, ...)")
    p.set_defaults(handler=_simulate)

    p = sub.add_parser("referee", help="judge records read on stdin as the table sees them")
    _add_game_args(p, players_required=False)
    p.set_defaults(handler=_referee)

    p = sub.add_parser("demo", help="a narrated simulated game in the terminal")
    p.add_argument("--game", default="kendra-kari")
    p.add_argument("--players", type=int, default=None, help="default: 4, or what the game allows")
    p.add_argument("--seed", type=int, default=None, help="default: a new game every run")
    p.add_argument("--delay", type=float, default=0.4, help="seconds between moves")
    p.set_defaults(handler=_demo)


def _games(args: argparse.Namespace) -> int:
    import dataclasses

    from companion.games import game_names, get_game
    for name in game_names():
        g = get_game(name)
        opts = ", ".join(f"{f.name}={getattr(g.Options(), f.name)!s}".replace("RankOrder.", "")
                         for f in dataclasses.fields(g.Options))
        print(f"{name:12} {g.TITLE} ({g.MIN_PLAYERS}-{g.MAX_PLAYERS} players)  {opts}")
    return 0


def _load(args: argparse.Namespace):
    from companion.games.base import (
        OptionsError,
        RecordError,
        UnknownGameError,
        options_from_json,
    )
    from companion.record import load_game
    try:
        game = load_game(args.game)
    except (RecordError, UnknownGameError) as e:
        raise UsageError(str(e)) from None
    options = _option_pairs(args.option)
    try:
        options_from_json(game.Options, options)
    except OptionsError as e:
        raise UsageError(str(e)) from None
    if args.players is not None and not game.MIN_PLAYERS <= args.players <= game.MAX_PLAYERS:
        raise UsageError(f"{game.TITLE} is for {game.MIN_PLAYERS}-{game.MAX_PLAYERS} players, "
                         f"not {args.players}")
    return game, options


def _simulate(args: argparse.Namespace) -> int:
    from companion.record import simulate
    game, options = _load(args)
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    from companion.games.base import OptionsError
    for i in range(args.games):
        try:
            rec = simulate(game.NAME, args.players, options, args.seed + i)
        except OptionsError as e:  # some options are checked against the player count
            raise UsageError(str(e)) from None
        sys.stdout.write(rec.dumps() + "\n")
    return 0


def _referee(args: argparse.Namespace) -> int:
    """Each input line is a record; each output line is one ruling (JSON)."""
    from companion.games.base import OptionsError, RecordError, Verdict
    from companion.record import GameRecord, referee_record
    game, options = _load(args)
    worst = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            rec = GameRecord.loads(line)
            if rec.game != game.NAME:
                raise RecordError(f"record is for {rec.game!r}, not {game.NAME!r}")
            if args.players is not None and rec.players != args.players:
                raise RecordError(f"record has {rec.players} players, not {args.players}")
            for step, ruling in enumerate(referee_record(rec, options), 1):
                out = {"record": n, "step": step, **ruling.to_json()}
                sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
                if ruling.verdict is Verdict.ILLEGAL:
                    worst = 1
        except (RecordError, OptionsError) as e:
            print(f"companion referee: record {n}: {e}", file=sys.stderr)
            worst = 2
    return worst


def _demo(args: argparse.Namespace) -> int:
    """Narrate a simulated game move by move, with its announcements."""
    import random

    from companion.record import replay, simulate
    game, _ = _load(argparse.Namespace(game=args.game, players=args.players, option=[]))
    if args.players is None:
        args.players = min(max(4, game.MIN_PLAYERS), game.MAX_PLAYERS)
    seed = args.seed if args.seed is not None else random.randrange(1_000_000)
    rec = simulate(game.NAME, args.players, {}, seed)
    print(f"{game.TITLE}: {args.players} players, seed {seed} "
          f"(replay with: companion demo --game {game.NAME} --seed {seed})\n")
    render = getattr(game, "render", None)  # board games draw their board after each move
    for i, (_state, move, events) in enumerate(replay(rec), 1):
        lines = [f">>> {e.text.upper()} <<<" if e.announce else e.text for e in events]
        print(f"{i:4}. " + "\n      ".join(lines or [str(move)]))
        if render is not None:
            print(render(_state))
        sys.stdout.flush()
        if args.delay > 0:
            time.sleep(args.delay * (3 if any(e.announce for e in events) else 1))
    print(f"\nResult: {rec.result['text'] if rec.result else '?'}")
    return 0
