"""Kanji-guti: a two-row mancala from Orissa with two neutral holes (seed 004).

"Kánji-guti is played on a mancala board, which has two rows, each one with seven holes.
A player controls the six contiguous holes at one end of the board (three in each row).
The two central holes are neutral."

The 14 holes are numbered counter-clockwise as seen from above, Player 1 sitting at the
bottom edge: the bottom row left to right is holes 0..6, the top row right to left is holes
7..13. Player 1 owns the three left columns (holes 11, 12, 13, 0, 1, 2), Player 2 the three
right columns (holes 4..9); holes 3 and 10 are the neutral centre. Sowing goes up the hole
numbers (counter-clockwise) through all 14 holes.

Moves: ``sow`` with ``target`` = the hole index ("0".."13"); ``pass`` when the player has
no seeds in any owned hole. No cards: ``DECK`` is None and ``Move.cards`` is always empty.

Rulings (each an option; defaults are the seed's rule set, the alternatives are the
reading of Ludii's ``Kanji Guti.lud``; see docs/rulings/kanji-guti.md):

- *neutral-start* (``neutral_seeds``): "The neutral holes have one stone" -> "1,1";
  Ludii puts 1 in the bottom centre hole and 0 in the top one -> "1,0".
- *opening-skip* (``opening_skips_neutral``): "In the opening move (the first half-move)
  the neutral holes are skipped": for the whole first move, relay laps and the capture
  look-ahead included, the neutral holes are treated as absent. Ludii skips nothing.
- *no-relay-from-neutral* (``relay_from_neutral``): "A move may never ... be continued
  from such a hole": a last seed followed by a filled neutral hole ends the move. Ludii
  relays from any occupied hole.
- *capture-target* (``capture``): "followed by an empty one that is followed by an occupied
  hole, the contents of the latter hole are captured" -> ``next``; Ludii captures the hole
  *opposite* the empty one -> ``opposite``. An empty neutral hole counts as empty.
- *ending* (``ending``): the seed splits the neutral holes' seeds at the end, an odd seed
  discarded -> ``split-neutral``; Ludii scores only captures -> ``captures-only``.
- *origin-hole* (``skip_origin``): the book does not skip the emptied starting hole on a
  lap of 14 or more seeds, so by default it is sown like any other.
- *endless-sowing* (``max_laps``): relay sowing can cycle for ever (with Ludii's relays a
  random game found a cycle that first repeated after 5.5 million laps), so a move that has
  not ended after ``max_laps`` laps ends there, with no capture.
- *move-limit* (``max_moves``): a game still running after this many half-moves ends;
  each player keeps the seeds in their own holes and the neutral holes are split as usual.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Any

from companion.games.base import (
    Event,
    IllegalMoveError,
    Move,
    OptionsError,
    Result,
    Ruling,
    Verdict,
    announcement,
    check_players,
    check_turn,
    seat_name,
)

NAME = "kanji-guti"
TITLE = "Kanji-guti"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
DECK = None

HOLES = 14
NEUTRAL = (3, 10)
OWNED = ((11, 12, 13, 0, 1, 2), (4, 5, 6, 7, 8, 9))
_OWNER = {h: p for p, hs in enumerate(OWNED) for h in hs}


class _Choice(enum.Enum):
    def __str__(self) -> str:  # `companion games` lists options by value
        return str(self.value)


class Capture(_Choice):
    NEXT = "next"  # the seed: the hole after the empty one
    OPPOSITE = "opposite"  # Ludii: the hole across the board from the empty one


class Ending(_Choice):
    SPLIT_NEUTRAL = "split-neutral"  # the seed: neutral seeds shared, odd one discarded
    CAPTURES_ONLY = "captures-only"  # Ludii: only captured seeds score


@dataclass(frozen=True)
class Options:
    seeds_per_hole: int = 12
    neutral_seeds: str = "1,1"
    opening_skips_neutral: bool = True
    relay_from_neutral: bool = False
    capture: Capture = Capture.NEXT
    ending: Ending = Ending.SPLIT_NEUTRAL
    skip_origin: bool = False
    max_moves: int = 1000
    max_laps: int = 1000

    def __post_init__(self) -> None:
        if not isinstance(self.seeds_per_hole, int) or self.seeds_per_hole < 1:
            raise OptionsError(f"seeds_per_hole must be at least 1, not {self.seeds_per_hole!r}")
        self.neutral_counts()  # validates
        if not isinstance(self.max_moves, int) or self.max_moves < 1:
            raise OptionsError(f"max_moves must be at least 1, not {self.max_moves!r}")
        if not isinstance(self.max_laps, int) or self.max_laps < 1:
            raise OptionsError(f"max_laps must be at least 1, not {self.max_laps!r}")

    def neutral_counts(self) -> tuple[int, int]:
        """Seeds in hole 3 (bottom centre) and hole 10 (top centre) at the start."""
        parts = str(self.neutral_seeds).replace(" ", "").split(",")
        try:
            a, b = (int(p) for p in parts)
        except ValueError:
            raise OptionsError("neutral_seeds takes two counts 'BOTTOM,TOP' such as '1,1' "
                               f"(the seed) or '1,0' (Ludii), not {self.neutral_seeds!r}") from None
        if a < 0 or b < 0:
            raise OptionsError(f"neutral_seeds cannot be negative: {self.neutral_seeds!r}")
        return a, b


@dataclass(frozen=True)
class State:
    options: Options
    board: tuple[int, ...]
    captured: tuple[int, int] = (0, 0)
    to_move: int = 0
    ply: int = 0  # half-moves made, passes included


def initial_board(options: Options) -> tuple[int, ...]:
    board = [options.seeds_per_hole] * HOLES
    board[NEUTRAL[0]], board[NEUTRAL[1]] = options.neutral_counts()
    return tuple(board)


def new_game(players: int = 2, options: Options | None = None,
             seed: int | None = None) -> State:
    """The board is set, not dealt: ``seed`` changes nothing (Kanji-guti has no chance)."""
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    options = options or Options()
    return State(options, initial_board(options))


def _can_move(board: tuple[int, ...], player: int) -> bool:
    return any(board[h] for h in OWNED[player])


def is_over(state: State) -> bool:
    """"The game ends when no one can play" (or at the *move-limit*)."""
    b = state.board
    return state.ply >= state.options.max_moves or not (_can_move(b, 0) or _can_move(b, 1))


def current_player(state: State) -> int | None:
    return None if is_over(state) else state.to_move


def legal_moves(state: State) -> list[Move]:
    if is_over(state):
        return []
    p = state.to_move
    holes = sorted(h for h in OWNED[p] if state.board[h])
    if not holes:
        return [Move(p, "pass")]  # "If a player can't move, he must pass"
    return [Move(p, "sow", (), str(h)) for h in holes]


@dataclass(frozen=True)
class Sowing:
    """What one move did: where it ended, how many laps, what it captured and why it ended."""

    board: tuple[int, ...]
    last: int
    laps: int
    captured_from: int | None
    captured: int
    endless: bool


def sow(board: tuple[int, ...], start: int, options: Options, opening: bool) -> Sowing:
    """Sow hole ``start`` with relays and the capture, as one move (no I/O, no turn)."""
    b = list(board)
    skip_neutral = opening and options.opening_skips_neutral

    def nxt(h: int, origin: int) -> int:
        h = (h + 1) % HOLES
        while (skip_neutral and h in NEUTRAL) or (options.skip_origin and h == origin):
            h = (h + 1) % HOLES
        return h

    origin, laps = start, 0
    while True:
        seeds, b[origin] = b[origin], 0
        laps += 1
        pos = origin
        while seeds:
            pos = nxt(pos, origin)
            b[pos] += 1
            seeds -= 1
        n = nxt(pos, -1)
        if b[n]:
            if n in NEUTRAL and not options.relay_from_neutral:
                return Sowing(tuple(b), pos, laps, None, 0, False)
            if laps >= options.max_laps:  # *endless-sowing*
                return Sowing(tuple(b), pos, laps, None, 0, True)
            origin = n  # "the contents of the next hole following are picked up"
            continue
        victim = nxt(n, -1) if options.capture is Capture.NEXT else HOLES - 1 - n
        got = b[victim]
        if got:
            b[victim] = 0
            return Sowing(tuple(b), pos, laps, victim, got, False)
        return Sowing(tuple(b), pos, laps, None, 0, False)


def _check(state: State, move: Move) -> int:
    check_turn(None if is_over(state) else state.to_move, move)
    if move.cards:
        raise IllegalMoveError("Kanji-guti is played with seeds, not cards", move)
    p = move.player
    if move.action == "pass":
        if _can_move(state.board, p):
            raise IllegalMoveError(f"{seat_name(p)} has seeds to sow and may not pass", move)
        return -1
    if move.action != "sow":
        raise IllegalMoveError(f"unknown action {move.action!r}; Kanji-guti moves are "
                               "'sow' (target: a hole 0-13) and 'pass'", move)
    try:
        hole = int(move.target)
    except ValueError:
        raise IllegalMoveError(f"sow needs a hole number 0-13, not {move.target!r}",
                               move) from None
    if not 0 <= hole < HOLES:
        raise IllegalMoveError(f"there is no hole {hole}; holes are 0-13", move)
    if hole in NEUTRAL:
        raise IllegalMoveError("a move may never start from a neutral hole", move)
    if _OWNER[hole] != p:
        raise IllegalMoveError(f"hole {hole} belongs to {seat_name(_OWNER[hole])}", move)
    if not state.board[hole]:
        raise IllegalMoveError(f"hole {hole} is empty", move)
    return hole


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    hole = _check(state, move)
    p = move.player
    events: list[Event] = []
    if hole < 0:
        events.append(Event("pass", f"{seat_name(p)} has no seeds to sow and passes", p))
        new = replace(state, to_move=1 - p, ply=state.ply + 1)
    else:
        s = sow(state.board, hole, state.options, opening=state.ply == 0)
        laps = f" in {s.laps} laps" if s.laps > 1 else ""
        events.append(Event("sow", f"{seat_name(p)} sows hole {hole} ({state.board[hole]} "
                                   f"seeds){laps}, ending in hole {s.last}", p))
        if s.endless:
            events.append(Event("endless", f"the relay is still going after {s.laps} laps, "
                                           "so the move ends here (ruling endless-sowing)", p))
        captured = state.captured
        if s.captured:
            captured = (captured[0] + s.captured, captured[1]) if p == 0 else (
                captured[0], captured[1] + s.captured)
            events.append(announcement("capture", f"{seat_name(p)} captures {s.captured} "
                                                  f"seeds from hole {s.captured_from}", p))
        new = State(state.options, s.board, captured, 1 - p, state.ply + 1)
    if is_over(new):
        events.append(announcement("game-over", result(new).text))
    return new, events


def final_scores(state: State) -> tuple[tuple[int, int], int]:
    """(scores, discarded seeds) as the book counts them at the end."""
    b, opts = state.board, state.options
    own = [sum(b[h] for h in OWNED[p]) for p in (0, 1)]  # non-zero only at the move-limit
    if opts.ending is Ending.SPLIT_NEUTRAL:
        neutral = b[NEUTRAL[0]] + b[NEUTRAL[1]]
        half, odd = divmod(neutral, 2)
    else:
        half, odd = 0, b[NEUTRAL[0]] + b[NEUTRAL[1]]
    scores = (state.captured[0] + own[0] + half, state.captured[1] + own[1] + half)
    return scores, odd


def result(state: State) -> Result:
    (a, b), _ = final_scores(state)
    limit = " at the move limit" if state.ply >= state.options.max_moves else ""
    if a == b:
        return Result((), (float(a), float(b)), f"A draw, {a} seeds each{limit}")
    w = 0 if a > b else 1
    return Result((w,), (float(a), float(b)),
                  f"{seat_name(w)} wins, {max(a, b)} seeds to {min(a, b)}{limit}")


def deal_of(state: State) -> dict[str, Any]:
    return {"board": list(initial_board(state.options))}


def public_move(move: Move) -> Move:
    return move  # the board is in full view


def bot_move(state: State, rng: Any) -> Move:
    return rng.choice(legal_moves(state))


def render(state: State) -> str:
    """The board in ASCII, Player 1 at the bottom: ``[n]`` owned holes, ``(n)`` neutral."""
    def cell(h: int) -> str:
        n = state.board[h]
        return f"({n:>3})" if h in NEUTRAL else f"[{n:>3}]"
    top = " ".join(cell(h) for h in range(13, 6, -1))
    bottom = " ".join(cell(h) for h in range(7))
    nums_top = " ".join(f"{h:^5}" for h in range(13, 6, -1))
    nums_bottom = " ".join(f"{h:^5}" for h in range(7))
    c = state.captured
    return "\n".join([
        f"  holes {nums_top}",
        f"  top   {top}   Player 2 owns the right 3 columns",
        f"  bot   {bottom}   Player 1 owns the left 3 columns",
        f"  holes {nums_bottom}",
        f"  captured: Player 1 {c[0]}, Player 2 {c[1]}; sowing runs 0->6 then 7->13",
    ])


render_board = render


class TableReferee:
    """The board is in full view, so the referee runs the engine itself."""

    def __init__(self, players: int = 2, options: Options | None = None):
        self._states = [new_game(players, options)]

    def observe(self, move: Move) -> Ruling:
        try:
            state, events = apply(self._states[-1], move)
        except IllegalMoveError as e:
            return Ruling(move, Verdict.ILLEGAL, e.reason)
        self._states.append(state)
        return Ruling(move, Verdict.LEGAL, "", tuple(events))

    def undo(self) -> None:
        if len(self._states) > 1:
            self._states.pop()
