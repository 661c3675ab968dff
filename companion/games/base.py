"""The shared vocabulary of every game: moves, events, results, errors and the contract.

Every game is one module in ``companion.games`` (OpenSpiel style) exposing:

- ``NAME``, ``TITLE``, ``MIN_PLAYERS``, ``MAX_PLAYERS``, ``DECK`` (a ``DeckKind`` or None);
- ``Options``: a frozen dataclass of rule variants and rulings (defaults = the rule book);
- ``new_game(players, options=None, seed=None) -> State``: dealing is the explicit random
  step, done with ``random.Random(seed)``; the state is an immutable (frozen) value, so
  undo is just keeping the previous state (python-chess's cheap undo);
- ``current_player(state) -> int | None`` (0-based seat; None when over or nobody to act);
- ``legal_moves(state) -> list[Move]`` for the player to act;
- ``apply(state, move) -> (State, list[Event])``; raises ``IllegalMoveError`` with the
  reason in a player's words;
- ``is_over(state)`` and ``result(state) -> Result``;
- ``deal_of(state) -> dict``: the JSON-able deal, so a record can be replayed;
- ``public_move(move) -> Move``: the move as the table (the camera) sees it, with hidden
  information (a drawn card that went into a hand) removed;
- ``TableReferee(players, options)``: judges public moves one by one without seeing the
  hands: ``observe(move) -> Ruling`` and ``undo()``;
- optionally ``bot_move(state, rng) -> Move`` for ``companion simulate`` (defaults to a
  random legal move).

Seats are 0-based in code and "Player 1".."Player N" in words. Nothing here does I/O.
"""

from __future__ import annotations

import dataclasses
import enum
import random
import typing
from dataclasses import dataclass
from typing import Any, Protocol

from companion.cards import Card, CardIdError


class RuleError(Exception):
    """Base of every rules error."""


class IllegalMoveError(RuleError):
    """A move the rules forbid; ``reason`` is said to the table as it is."""

    def __init__(self, reason: str, move: Move | None = None):
        super().__init__(reason)
        self.reason = reason
        self.move = move


class NotYourTurnError(IllegalMoveError):
    pass


class GameOverError(IllegalMoveError):
    pass


class OptionsError(RuleError, ValueError):
    """Unknown option name or a value of the wrong kind."""


class RecordError(ValueError):
    """A game record or a move in JSON that cannot be read."""


class UnknownGameError(LookupError):
    pass


def seat_name(seat: int | None) -> str:
    return "nobody" if seat is None else f"Player {seat + 1}"


@dataclass(frozen=True)
class Move:
    """One action at the table.

    ``action`` is the game's verb ("play", "draw", "bridge", "pass", "sow", "lead", ...),
    ``target`` where it goes (a ring position, a pile, a hole), both as short strings so
    that every game shares one JSON form.
    """

    player: int
    action: str
    cards: tuple[Card, ...] = ()
    target: str = ""

    def __str__(self) -> str:
        cards = " ".join(c.id for c in self.cards)
        where = f" -> {self.target}" if self.target else ""
        return f"{seat_name(self.player)} {self.action} {cards}{where}".replace("  ", " ").strip()

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"player": self.player, "action": self.action}
        if self.cards:
            d["cards"] = [c.id for c in self.cards]
        if self.target:
            d["target"] = self.target
        return d

    @classmethod
    def from_json(cls, d: Any) -> Move:
        if not isinstance(d, dict):
            raise RecordError(f"a move must be a JSON object, got {d!r}")
        unknown = set(d) - {"player", "action", "cards", "target"}
        if unknown:
            raise RecordError(f"unknown move field(s) {sorted(unknown)}; "
                              "a move has player, action, cards, target")
        player, action = d.get("player"), d.get("action")
        if not isinstance(player, int) or isinstance(player, bool) or player < 0:
            raise RecordError(f"move 'player' must be a seat number >= 0, got {player!r}")
        if not isinstance(action, str) or not action:
            raise RecordError(f"move 'action' must be a non-empty string, got {action!r}")
        cards = d.get("cards", [])
        if not isinstance(cards, list):
            raise RecordError(f"move 'cards' must be a list of card ids, got {cards!r}")
        try:
            parsed = tuple(Card.parse(c) for c in cards)
        except CardIdError as e:
            raise RecordError(str(e)) from None
        target = d.get("target", "")
        if not isinstance(target, (str, int)) or isinstance(target, bool):
            raise RecordError(f"move 'target' must be a string, got {target!r}")
        return cls(player, action, parsed, str(target))


@dataclass(frozen=True)
class Event:
    """Something that became true, in words for the table.

    ``announce`` marks the announcements the dashboard shows prominently and may speak
    ("Bridge!", "A Deni for the Raja", "Player 2 wins").
    """

    kind: str
    text: str
    player: int | None = None
    cards: tuple[Card, ...] = ()
    announce: bool = False

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "text": self.text}
        if self.player is not None:
            d["player"] = self.player
        if self.cards:
            d["cards"] = [c.id for c in self.cards]
        if self.announce:
            d["announce"] = True
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Event:
        try:
            return cls(str(d["kind"]), str(d["text"]), d.get("player"),
                       tuple(Card.parse(c) for c in d.get("cards", [])),
                       bool(d.get("announce", False)))
        except (KeyError, TypeError, CardIdError) as e:
            raise RecordError(f"bad event {d!r}: {e}") from None


def announcement(kind: str, text: str, player: int | None = None,
                 cards: tuple[Card, ...] = ()) -> Event:
    """An event the dashboard must show prominently."""
    return Event(kind, text, player, cards, announce=True)


@dataclass(frozen=True)
class Result:
    """How a finished game ended. ``scores`` is per seat (cards won, points, stakes...)."""

    winners: tuple[int, ...]
    scores: tuple[float, ...]
    text: str

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "scores": list(self.scores), "text": self.text}


class Verdict(enum.Enum):
    LEGAL = "legal"
    ILLEGAL = "illegal"
    UNVERIFIABLE = "unverifiable"  # the table cannot show it; never counted as legal


@dataclass(frozen=True)
class Ruling:
    """The table referee's judgement of one observed move."""

    move: Move
    verdict: Verdict
    reason: str = ""
    events: tuple[Event, ...] = ()

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"move": self.move.to_json(), "verdict": self.verdict.value}
        if self.reason:
            d["reason"] = self.reason
        d["events"] = [e.to_json() for e in self.events]
        return d


class TableReferee(Protocol):
    def observe(self, move: Move) -> Ruling: ...

    def undo(self) -> None: ...


class GameModule(Protocol):
    """What ``get_game`` returns: a game module (documented in this module's docstring)."""

    NAME: str
    TITLE: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    Options: type

    def new_game(self, players: int, options: Any = None, seed: int | None = None) -> Any: ...
    def current_player(self, state: Any) -> int | None: ...
    def legal_moves(self, state: Any) -> list[Move]: ...
    def apply(self, state: Any, move: Move) -> tuple[Any, list[Event]]: ...
    def is_over(self, state: Any) -> bool: ...
    def result(self, state: Any) -> Result: ...
    def deal_of(self, state: Any) -> dict[str, Any]: ...
    def public_move(self, move: Move) -> Move: ...


def check_turn(to_move: int | None, move: Move) -> int:
    """The first check of every ``apply``: the game goes on and it is the mover's turn."""
    if to_move is None:
        raise GameOverError("the game is over", move)
    if move.player != to_move:
        raise NotYourTurnError(f"it is {seat_name(to_move)}'s turn, not "
                               f"{seat_name(move.player)}'s", move)
    return to_move


def check_players(players: int, lo: int, hi: int, title: str) -> None:
    if not isinstance(players, int) or not lo <= players <= hi:
        span = str(lo) if lo == hi else f"{lo}-{hi}"
        raise OptionsError(f"{title} is for {span} players, not {players!r}")


def make_rng(seed: int | None) -> random.Random:
    return random.Random(seed)


# ---- options <-> JSON -----------------------------------------------------------------

def options_to_json(options: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in dataclasses.fields(options):
        v = getattr(options, f.name)
        out[f.name] = v.value if isinstance(v, enum.Enum) else v
    return out


def options_from_json(cls: type, data: dict[str, Any] | None) -> Any:
    """Build an options dataclass from a dict of JSON or command-line values.

    Strings are converted to the field's type ("true", "3", "straight"), so that
    ``--option key=value`` works; unknown names and bad values raise ``OptionsError``.
    """
    data = dict(data or {})
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise OptionsError(f"unknown option(s) {unknown} for {cls.__module__}; "
                           f"known options: {sorted(names)}")
    kwargs = {k: _coerce(k, hints[k], v) for k, v in data.items()}
    return cls(**kwargs)


def _coerce(name: str, hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None or value == "none":
            return None
        hint = args[0]
    try:
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            return value if isinstance(value, hint) else hint(value)
        if hint is bool:
            if isinstance(value, bool):
                return value
            if str(value).lower() in ("true", "yes", "1", "on"):
                return True
            if str(value).lower() in ("false", "no", "0", "off"):
                return False
            raise ValueError(value)
        if hint is int:
            if isinstance(value, bool):
                raise ValueError(value)
            return int(value)
        if hint is str:
            return str(value)
    except (ValueError, TypeError):
        allowed = ""
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            allowed = f"; allowed: {', '.join(str(m.value) for m in hint)}"
        raise OptionsError(f"option {name}: bad value {value!r}{allowed}") from None
    return value
