"""Udvasa's stacks: the suits and which way each build runs, which cards are 1 apart, the
names of the stacks, and the moves between stacks that the table allows now.

Nothing here changes a state: the deal, the checks that give a refusal's reason and the
effect of a move stay in the engine (``udvasa``), which imports and re-exports all of this.
The solver and the referee reach it through the engine.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from companion.cards import Card, DeckKind, Rank, Suit, suits_of
from companion.games.base import Move, OptionsError

if TYPE_CHECKING:  # for annotations only: the engine imports this module
    from companion.games.udvasa import State

SUITS = suits_of(DeckKind.MUGHAL)
STACKS = 8
_SUIT_INDEX = {s: i for i, s in enumerate(SUITS)}
_SUIT_BY_ID = {s.value: i for i, s in enumerate(SUITS)}


@cache
def down_flags(down_suits: str) -> tuple[bool, ...]:
    """Per suit (in ``SUITS`` order): True if its build stack goes down from the Raja."""
    text = str(down_suits).strip().lower()
    if text in ("strong", "weak"):
        return tuple(s.info.weak == (text == "weak") for s in SUITS)
    try:
        named = {Suit.parse(t) for t in text.split(",")}
    except ValueError:
        named = set()
    if len(named) != 4 or not named <= set(SUITS):
        raise OptionsError("down_suits is 'strong', 'weak' or four Mughal suits such as "
                           f"'surya,chandra,barat,phul', not {down_suits!r}")
    return tuple(s in named for s in SUITS)


def adjacent(a: Rank | int, b: Rank | int, wrap: bool = False) -> bool:
    """"either 1 more or less than the current card no matter what the suit is"."""
    d = abs(int(a) - int(b))
    return d == 1 or (wrap and d == 11)


def builds_on(state: State, card: Card) -> bool:
    """"the next card in sequence" for the card's own build stack."""
    i = _SUIT_BY_ID.get(card.suit._value_)  # a str key: hashing the enum is slower
    if i is None:
        return False
    top = state.builds[i]
    if down_flags(state.options.down_suits)[i]:
        return int(card.rank) == top - 1
    return int(card.rank) == top + 1


def work_target(i: int) -> str:
    return f"work{i + 1}"


def build_target(suit: Suit) -> str:
    return f"build-{suit.value}"


def _moves_but_deal(state: State) -> list[Move]:
    work, opts = state.work, state.options
    empties = [i for i, w in enumerate(work) if not w]
    fills = [Move(0, "move", (w[-1],), work_target(j))
             for w in work if len(w) >= 2 for j in empties]
    if fills and opts.fill_first:
        return fills  # *fill-first*: "must be filled ... if possible"
    out = [Move(0, "build", (w[-1],), build_target(w[-1].suit))
           for w in work if w and builds_on(state, w[-1])]
    ranks = [int(w[-1].rank) if w else -99 for w in work]
    wrap = opts.wrap
    for i, r in enumerate(ranks):
        if r < 0:
            continue
        for j, q in enumerate(ranks):
            d = r - q if r > q else q - r
            if (d == 1 or (wrap and d == 11)) and q > 0:
                out.append(Move(0, "move", (work[i][-1],), work_target(j)))
    return out + ([] if opts.fill_first else fills)


def _any_build(state: State) -> bool:
    return any(w and builds_on(state, w[-1]) for w in state.work)


def _any_move(state: State) -> bool:
    """Whether ``_moves_but_deal`` would list anything (cheaply: no Move objects)."""
    if _fill_pending(state) or _any_build(state):
        return True
    work = state.work
    ranks = {int(w[-1].rank) for w in work if w}
    if any(r + 1 in ranks for r in ranks) or (state.options.wrap and {1, 12} <= ranks):
        return True
    return not state.options.fill_first and any(not w for w in work) and any(
        len(w) >= 2 for w in work)


def _fill_pending(state: State) -> bool:
    work = state.work
    return state.options.fill_first and any(not w for w in work) and any(
        len(w) >= 2 for w in work)


def _top_of(state: State, target: str) -> Card | None:
    i = _work_index(target)
    w = state.work[i] if i is not None else ()
    return w[-1] if w else None


def _work_index(target: str) -> int | None:
    if target.startswith("work") and target[4:].isdigit() and 1 <= int(target[4:]) <= STACKS:
        return int(target[4:]) - 1
    return None
