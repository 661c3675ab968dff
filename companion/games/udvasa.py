"""Udvasa: the one-player patience of the Mughal deck (seed 003, section UDVASA).

"The play area is divided into 8 build stacks, one for each suit, and 8 working stacks.
Four of the build stacks will build down starting with the Raja and completing at the
number 1 and the remaining four build stacks will build up from the number 1 to complete
with the Raja."

Moves: ``deal`` (``cards`` = the cards dealt, in working-stack order 1..8), ``move`` (one
card from the top of a working stack to ``work1``..``work8``) and ``build`` (one card from
the top of a working stack to ``build-<suit>``). The opening deal of the eight working
cards is the first move, so that a camera sees every card arrive.

Rulings (each named in docs/rulings/udvasa.md with its option):

- *build-direction* (``down_suits``): "strong" (default): Chandra, Phul, Ghulam and Shamsher
  build down from the Raja, Surya, Barat, Kumancha and Cheng build up from the 1, so every
  build meets the number cards from strongest to weakest under the traditional order.
- *printed-numbers*: "1 more or less ... no matter what the suit is" and "the next card in
  sequence" use the printed numbers, vizier 11 and raja 12; a reversed suit's order never
  applies (cards of different suits have no common reversed order).
- *no-wrap* (``wrap``): a Raja and a 1 are not 1 apart unless ``wrap`` is set.
- *stuck-means-no-build* (``deal_when``): "When you have no more moves, you then deal" --
  moves between working stacks never run out, so "no more moves" means no card can go to a
  build stack (``no-build-move``); ``no-move`` is the literal reading, ``any-time`` a house
  rule.
- *fill-first* (``fill_first``): an empty working stack "must be filled by any card at the
  top of another working stack if possible" before any other move; a fill comes from a
  stack of two or more cards (moving a lone card only moves the gap).
- *lost-when-stuck*: with the stock used up and no legal move left, the game is lost.
- *idle-limit* (``idle_limit``): after that many moves in a row between working stacks with
  no card built and no deal, the game ends, lost: the player is going round in circles.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace
from typing import Any

from companion.cards import Card, DeckKind, Rank, deck_cards
from companion.games.base import (
    Event,
    GameOverError,
    IllegalMoveError,
    Move,
    NotYourTurnError,
    OptionsError,
    Result,
    Ruling,
    Verdict,
    announcement,
    check_players,
)
from companion.games.udvasa_stacks import (  # noqa: F401  (re-exported)
    _SUIT_BY_ID,
    _SUIT_INDEX,
    STACKS,
    SUITS,
    _any_build,
    _any_move,
    _fill_pending,
    _moves_but_deal,
    _top_of,
    _work_index,
    adjacent,
    build_target,
    builds_on,
    down_flags,
    work_target,
)

NAME = "udvasa"
TITLE = "Udvasa"
MIN_PLAYERS = 1
MAX_PLAYERS = 1
DECK = DeckKind.MUGHAL

TO_DEAL = 96 - STACKS  # the opening deal of 8 and the stock of 80


class DealWhen(enum.Enum):
    NO_BUILD_MOVE = "no-build-move"
    NO_MOVE = "no-move"
    ANY_TIME = "any-time"

    def __str__(self) -> str:  # `companion games` lists options by value
        return self.value


@dataclass(frozen=True)
class Options:
    down_suits: str = "strong"
    wrap: bool = False
    deal_when: DealWhen = DealWhen.NO_BUILD_MOVE
    fill_first: bool = True
    idle_limit: int = 100

    def __post_init__(self) -> None:
        down_flags(self.down_suits)  # validates
        if not isinstance(self.idle_limit, int) or self.idle_limit < 1:
            raise OptionsError(f"idle_limit must be at least 1, not {self.idle_limit!r}")


@dataclass(frozen=True)
class State:
    options: Options
    order: tuple[Card, ...]  # the 88 cards in dealing order (the referee knows a prefix)
    builds: tuple[int, ...]  # top rank of each suit's build stack, in SUITS order
    work: tuple[tuple[Card, ...], ...]
    dealt: int = 0
    idle: int = 0
    ended: str = ""  # "", "won", "stuck" or "idle"


def start_cards(options: Options) -> tuple[Card, ...]:
    """"4 Rajas and four number 1 cards face-up, one card in each of the 8 build stacks"."""
    down = down_flags(options.down_suits)
    return tuple(Card(s, Rank.RAJA if d else Rank.ONE) for s, d in zip(SUITS, down))


def _start(options: Options, order: tuple[Card, ...]) -> State:
    builds = tuple(int(c.rank) for c in start_cards(options))
    return State(options, order, builds, ((),) * STACKS)


def new_game(players: int = 1, options: Options | None = None,
             seed: int | None = None) -> State:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    options = options or Options()
    start = set(start_cards(options))
    order = [c for c in deck_cards(DeckKind.MUGHAL) if c not in start]
    random.Random(seed).shuffle(order)
    return _start(options, tuple(order))


def stock_left(state: State) -> int:
    return TO_DEAL - state.dealt


def cards_built(state: State) -> int:
    down = down_flags(state.options.down_suits)
    return sum(13 - r if d else r for r, d in zip(state.builds, down))


def is_over(state: State) -> bool:
    return bool(state.ended)


def current_player(state: State) -> int | None:
    return None if state.ended else 0


def _deal_allowed(state: State) -> str:
    """Empty if a deal may be made now, else the reason it may not."""
    if stock_left(state) <= 0:
        return "the stock is used up"
    if state.dealt == 0:
        return ""
    if _fill_pending(state):
        return "an empty working stack must be filled first"
    when = state.options.deal_when
    if when is DealWhen.NO_BUILD_MOVE and _any_build(state):
        return "a card can still go to a build stack; deal only when you have no more moves"
    if when is DealWhen.NO_MOVE and _any_move(state):
        return "there are still moves to make; deal only when you have no more moves"
    return ""


def legal_moves(state: State) -> list[Move]:
    if state.ended:
        return []
    if state.dealt == 0:
        return [Move(0, "deal", state.order[:STACKS])]
    others = _moves_but_deal(state)
    if not _deal_allowed(state):
        others.append(Move(0, "deal", state.order[state.dealt:state.dealt + STACKS]))
    return others


def _source(state: State, card: Card) -> int:
    for i, w in enumerate(state.work):
        if w and w[-1] == card:
            return i
    raise IllegalMoveError(f"the {card.name} is not on top of a working stack")


def _check(state: State, move: Move) -> None:
    if state.ended:
        raise GameOverError("the game is over", move)
    if move.player != 0:
        raise NotYourTurnError("Udvasa has one player, Player 1", move)
    if move.action == "deal":
        why = _deal_allowed(state)
        if why:
            raise IllegalMoveError(f"no deal now: {why}", move)
        expected = state.order[state.dealt:state.dealt + STACKS]
        if move.cards != expected:
            raise IllegalMoveError("those are not the next cards of the stock", move)
        return
    if move.action not in ("move", "build"):
        raise IllegalMoveError(f"unknown action {move.action!r}; Udvasa moves are 'deal', "
                               "'move' (to work1..work8) and 'build' (to build-<suit>)", move)
    if state.dealt == 0:
        raise IllegalMoveError("deal the eight working cards first", move)
    if len(move.cards) != 1:
        raise IllegalMoveError("only one card at a time can be moved", move)
    why = _why_not(state, move)
    if why:
        raise IllegalMoveError(why, move)


def _why_not(state: State, move: Move) -> str:
    """Why a ``move``/``build`` is refused, or '' if it is legal (as ``_moves_but_deal``)."""
    card = move.cards[0]
    src = _source(state, card)  # raises if it is not a working top
    if move.action == "build":
        if _fill_pending(state):
            return "an empty working stack must be filled first"
        if move.target != build_target(card.suit):
            return f"the {card.name} builds only on the {card.suit.title} build stack"
        if not builds_on(state, card):
            return f"the {card.name} is not the next card of the {card.suit.title} build"
        return ""
    j = _work_index(move.target)
    if j is None:
        return f"no working stack {move.target!r}; they are work1..work8"
    dst = state.work[j]
    if not dst:
        if len(state.work[src]) < 2:
            return "a gap is filled only from a stack of two or more cards"
        return ""
    if _fill_pending(state):
        return "an empty working stack must be filled first"
    if j == src:
        return "the card is already there"
    if not adjacent(card.rank, dst[-1].rank, state.options.wrap):
        return f"the {card.name} is not 1 more or less than the {dst[-1].name}"
    return ""


def _step(state: State, move: Move) -> State:
    """The move's effect, unchecked (used by ``apply`` and by the solver)."""
    if move.action == "deal":
        work = list(state.work)
        for i, c in enumerate(move.cards):
            work[i] = work[i] + (c,)
        return replace(state, work=tuple(work), dealt=state.dealt + len(move.cards), idle=0)
    card = move.cards[0]
    src = _source(state, card)
    work = list(state.work)
    work[src] = work[src][:-1]
    if move.action == "build":
        builds = list(state.builds)
        builds[_SUIT_INDEX[card.suit]] = int(card.rank)
        return replace(state, work=tuple(work), builds=tuple(builds), idle=0)
    j = _work_index(move.target)
    work[j] = work[j] + (card,)
    return replace(state, work=tuple(work), idle=state.idle + 1)


def _ending(state: State) -> str:
    if cards_built(state) == 96:
        return "won"
    if state.idle >= state.options.idle_limit:
        return "idle"
    if _any_move(state) or not _deal_allowed(state):
        return ""
    return "stuck"


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    _check(state, move)
    new = _step(state, move)
    new = replace(new, ended=_ending(new))
    return new, _events(state, new, move)


def _events(old: State, new: State, move: Move) -> list[Event]:
    if move.action == "deal":
        n = len(move.cards)
        evs = [Event("deal", f"{n} cards dealt to the working stacks, "
                             f"{stock_left(new)} left in the stock", 0, move.cards)]
    else:
        card = move.cards[0]
        src = work_target(_source(old, card)).replace("work", "working stack ")
        if move.action == "build":
            evs = [Event("build", f"{card.name} from {src} to the {card.suit.title} build", 0,
                         (card,))]
            if int(card.rank) in (1, 12):
                evs.append(announcement("build-complete",
                                        f"The {card.suit.title} build is complete!", 0, (card,)))
        else:
            dst = move.target.replace("work", "working stack ")
            evs = [Event("move", f"{card.name} from {src} to {dst}", 0, (card,))]
    if new.ended:
        evs.append(announcement("game-over", result(new).text, 0))
    return evs


def result(state: State) -> Result:
    n = cards_built(state)
    if state.ended == "won":
        return Result((0,), (float(n),), "Udvasa is won: all 96 cards are built")
    why = {"idle": f"{state.options.idle_limit} moves without building or dealing "
                   "(ruling idle-limit)",
           "stuck": "no more moves and the stock is used up"}.get(state.ended, "unfinished")
    return Result((), (float(n),), f"Udvasa is lost: {why}; {n} of 96 cards built")


def deal_of(state: State) -> dict[str, Any]:
    return {"builds": [c.id for c in start_cards(state.options)],
            "deal": [c.id for c in state.order]}


def public_move(move: Move) -> Move:
    return move  # every card of Udvasa is face up


def render(state: State) -> str:
    """The table in text for ``companion demo``: each build's top, each working stack."""
    down = down_flags(state.options.down_suits)
    builds = " | ".join(f"{s.title} {'down' if d else 'up'} {Rank(r).token}"
                        for s, r, d in zip(SUITS, state.builds, down))
    stacks = [f"  work{i + 1}: " + " ".join(c.id for c in w) for i, w in enumerate(state.work)]
    return "\n".join([f"  builds ({cards_built(state)}/96): {builds}",
                       *stacks, f"  stock: {stock_left(state)} cards"])


# ---- hints and the bot -----------------------------------------------------------------

def _uncovers_build(state: State, move: Move) -> bool:
    if move.action != "move":
        return False
    src = state.work[_source(state, move.cards[0])]
    return len(src) >= 2 and builds_on(state, src[-2])


def ranked_moves(state: State) -> list[Move]:
    """Legal moves, the most useful first: builds, moves that free a build, fills, deal."""
    def rank(m: Move) -> int:
        if m.action == "build":
            return 0
        if _uncovers_build(state, m):
            return 1
        if m.action == "move" and not _top_of(state, m.target):
            return 2
        return 3 if m.action == "deal" else 4
    return sorted(legal_moves(state), key=rank)


def describe(state: State, move: Move) -> str:
    if move.action == "deal":
        return f"deal {len(move.cards)} more cards onto the working stacks"
    card = move.cards[0]
    src = _source(state, card) + 1
    if move.action == "build":
        return f"{card.name} from working stack {src} to the {card.suit.title} build stack"
    return f"{card.name} from working stack {src} to working stack {move.target[4:]}"


def hint(state: State, budget: int = 0) -> Move | None:
    """A legal move worth making; with a node ``budget`` the solver looks for a winning one."""
    if state.ended:
        return None
    if budget > 0:
        from companion.games.udvasa_solver import solve
        found = solve(state, budget)
        if found.moves:
            return found.moves[0]
    moves = ranked_moves(state)
    return moves[0] if moves else None


def hint_text(state: State, budget: int = 0) -> str:
    """"a legal move exists: X to Y", in words for the dashboard."""
    move = hint(state, budget)
    if move is None:
        return "no legal move: the game is over" if state.ended else "no legal move"
    return f"a legal move exists: {describe(state, move)}"


_PLANS: dict[tuple, Move] = {}  # a memo of solved lines: position -> winning move
PLAN_BUDGET = 2_000


def _plan_key(state: State) -> tuple:
    return state.options, state.order[:1], state.dealt, state.builds, state.work


def bot_move(state: State, rng: random.Random) -> Move:
    """After the opening deal the bot asks the solver for a winning line (``PLAN_BUDGET``
    positions) and follows it; without one it plays ``greedy_move``."""
    if state.dealt == STACKS and state.idle == 0 and cards_built(state) == STACKS:
        from companion.games.udvasa_solver import solve
        if len(_PLANS) > 200_000:
            _PLANS.clear()
        cur = state
        for m in solve(state, PLAN_BUDGET).moves:
            _PLANS[_plan_key(cur)] = m
            cur = _step(cur, m)
    planned = _PLANS.get(_plan_key(state))
    return planned if planned is not None else greedy_move(state, rng)


def greedy_move(state: State, rng: random.Random) -> Move:
    """Builds first, then moves that free a build, then the deal, else a random move."""
    moves = ranked_moves(state)
    best = [m for m in moves if m.action == "build"] or \
        [m for m in moves if _uncovers_build(state, m)] or \
        [m for m in moves if m.action == "deal"]
    return rng.choice(best or moves)


class TableReferee:
    """Every card is face up: the referee checks every move against the table it has seen.

    It cannot know the stock's order, so a deal is checked for being allowed now and for
    dealing the right number of cards that have not been seen on the table before.
    """

    def __init__(self, players: int = 1, options: Options | None = None):
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
        self._states = [_start(options or Options(), ())]

    @property
    def state(self) -> State:
        """The table as the referee has seen it: the working stacks and the builds."""
        return self._states[-1]

    def observe(self, move: Move) -> Ruling:
        """Judge ``move``; a refused one leaves the table as it was, and ``undo`` takes
        back the last move observed either way (as a snapshot referee's does)."""
        state = self._states[-1]
        try:
            if move.action == "deal" and not state.ended:
                want = min(STACKS, stock_left(state))
                seen = set(state.order) | set(start_cards(state.options))
                if len(move.cards) != want:
                    raise IllegalMoveError(f"a deal is {want} cards, one per stack", move)
                if len(set(move.cards)) != want or seen & set(move.cards):
                    raise IllegalMoveError("a dealt card is already on the table", move)
                state = replace(state, order=state.order + move.cards)
            new, events = apply(state, move)
        except IllegalMoveError as e:
            self._states.append(self._states[-1])
            return Ruling(move, Verdict.ILLEGAL, e.reason)
        self._states.append(new)
        return Ruling(move, Verdict.LEGAL, "", tuple(events))

    def undo(self) -> None:
        if len(self._states) > 1:
            self._states.pop()
