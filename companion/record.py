"""Game records: one JSON object per game, one line each in JSON-lines streams.

The format is documented in ``docs/records.md``. A record holds the game name, its options
and players, the seed and the deal (or ``null`` for hidden hands, as the table sees a game),
the ordered moves, and the events each move produced. A record with a deal replays exactly
through the engine (``replay``); a table-view record is judged by ``referee_record``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from companion.games import get_game
from companion.games.base import (
    Event,
    GameModule,
    IllegalMoveError,
    Move,
    RecordError,
    Result,
    Ruling,
    UnknownGameError,
    options_from_json,
    options_to_json,
)

FORMAT = "ganjifa-companion/record@1"


@dataclass(frozen=True)
class GameRecord:
    game: str
    players: int
    options: dict[str, Any]
    seed: int | None
    deal: dict[str, Any] | None  # None: hands unknown (the table's view)
    moves: tuple[Move, ...]
    events: tuple[tuple[Event, ...], ...] = ()  # events[i] came from moves[i]
    result: dict[str, Any] | None = None
    seats: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT, "game": self.game, "players": self.players,
            "seats": list(self.seats), "options": self.options, "seed": self.seed,
            "deal": self.deal if self.deal is not None else "unknown",
            "moves": [m.to_json() for m in self.moves],
            "events": [[e.to_json() for e in evs] for evs in self.events],
            "result": self.result,
        }

    def dumps(self) -> str:
        return json.dumps(self.to_json(), separators=(",", ":"))

    @classmethod
    def from_json(cls, d: Any) -> GameRecord:
        if not isinstance(d, dict):
            raise RecordError("a game record must be a JSON object")
        missing = [k for k in ("game", "players", "moves") if k not in d]
        if missing:
            raise RecordError(f"game record lacks {', '.join(missing)}")
        if not isinstance(d["players"], int) or isinstance(d["players"], bool):
            raise RecordError(f"'players' must be a whole number, got {d['players']!r}")
        if not isinstance(d["moves"], list):
            raise RecordError("'moves' must be a list")
        deal = d.get("deal", "unknown")
        events = d.get("events") or []
        if not isinstance(events, list) or not all(isinstance(e, list) for e in events):
            raise RecordError("'events' must be a list of lists")
        return cls(
            game=str(d["game"]), players=d["players"], options=dict(d.get("options") or {}),
            seed=d.get("seed"), deal=None if deal in (None, "unknown") else deal,
            moves=tuple(Move.from_json(m) for m in d["moves"]),
            events=tuple(tuple(Event.from_json(e) for e in evs) for evs in events),
            result=d.get("result"), seats=tuple(d.get("seats") or ()),
        )

    @classmethod
    def loads(cls, line: str) -> GameRecord:
        try:
            return cls.from_json(json.loads(line))
        except json.JSONDecodeError as e:
            raise RecordError(f"not JSON: {e}") from None


def load_game(name: str) -> GameModule:
    try:
        return get_game(name)
    except UnknownGameError as e:
        raise RecordError(str(e)) from None


def simulate(game_name: str, players: int, options: dict[str, Any] | None = None,
             seed: int | None = None, max_moves: int = 100_000) -> GameRecord:
    """Play one complete game with the game's bot (or random legal moves) and record it."""
    game = load_game(game_name)
    opts = options_from_json(game.Options, options)
    state = game.new_game(players, opts, seed)
    rng = random.Random(seed)
    bot: Callable[[Any, random.Random], Move] = getattr(
        game, "bot_move", lambda s, r: r.choice(game.legal_moves(s)))
    moves: list[Move] = []
    events: list[tuple[Event, ...]] = []
    while not game.is_over(state):
        if len(moves) >= max_moves:
            raise RuntimeError(f"{game_name} did not end within {max_moves} moves (seed {seed})")
        move = bot(state, rng)
        state, evs = game.apply(state, move)
        moves.append(move)
        events.append(tuple(evs))
    return GameRecord(game.NAME, players, options_to_json(opts), seed, game.deal_of(state),
                      tuple(moves), tuple(events), game.result(state).to_json())


def replay(record: GameRecord) -> Iterator[tuple[Any, Move, list[Event]]]:
    """Re-run a full record through the engine: yields (state after, move, events).

    Raises ``RecordError`` if the record's deal differs from what its seed deals, and
    ``IllegalMoveError`` at the first move the engine refuses.
    """
    game = load_game(record.game)
    state = game.new_game(record.players, options_from_json(game.Options, record.options),
                          record.seed)
    if record.deal is not None and game.deal_of(state) != record.deal:
        raise RecordError("the record's deal is not what its seed deals; cannot replay")
    for i, move in enumerate(record.moves):
        try:
            state, evs = game.apply(state, move)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"move {i + 1} ({move}): {e.reason}", move) from None
        yield state, move, evs


def final_result(record: GameRecord) -> Result:
    game = load_game(record.game)
    state = None
    for state, _, _ in replay(record):
        pass
    if state is None or not game.is_over(state):
        raise RecordError("the record does not reach the end of the game")
    return game.result(state)


def table_view(record: GameRecord) -> GameRecord:
    """The record as the camera sees it: no deal, hidden information removed from moves."""
    game = load_game(record.game)
    return GameRecord(record.game, record.players, record.options, None, None,
                      tuple(game.public_move(m) for m in record.moves), (), None, record.seats)


def referee_record(record: GameRecord,
                   options: dict[str, Any] | None = None) -> Iterator[Ruling]:
    """Judge each move of a (table-view) record with the game's table referee."""
    game = load_game(record.game)
    opts = options_from_json(game.Options, {**record.options, **(options or {})})
    referee = game.TableReferee(record.players, opts)
    for move in record.moves:
        yield referee.observe(game.public_move(move))
