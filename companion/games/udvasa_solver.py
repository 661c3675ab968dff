"""Is an Udvasa deal winnable? A depth-first search over the engine's own moves.

The solver knows the whole deal (the stock's order too), as a "thoughtful" patience solver
does: it answers "could this deal be won", not "what should I play without peeking".
Positions are remembered with the fewest idle moves they were reached with, so cycles of
moves between working stacks end the search and the *idle-limit* ruling is respected; a
line it returns replays through ``udvasa.apply`` to a win (the tests check that).

``solve(state, budget)`` expands at most ``budget`` positions and says ``winnable`` (with the
moves), ``unwinnable`` (the whole tree was searched) or ``unknown`` (the budget ran out).
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.games import udvasa as u
from companion.games.base import Move


@dataclass(frozen=True)
class Solution:
    status: str  # "winnable", "unwinnable" or "unknown"
    nodes: int  # positions expanded
    moves: tuple[Move, ...] = ()  # a winning line when winnable

    @property
    def winnable(self) -> bool | None:
        return {"winnable": True, "unwinnable": False}.get(self.status)


def _keyer(state: u.State):
    """A position's key as bytes: hashing Cards (dataclasses of enums) is slow, and the
    search reuses the same Card objects, so their ids map to small codes."""
    cards = list(state.order) + [c for w in state.work for c in w]
    code = {id(c): i for i, c in enumerate(cards)}

    def key(s: u.State) -> tuple:
        return (s.dealt, s.builds,
                b"|".join(bytes([code[id(c)] for c in w]) for w in s.work))
    return key


def _ordered(state: u.State) -> list[Move]:
    """Builds first, then moves that free a build, then the deal, then the rest.

    A build is never undone, so a position where one is possible tries it before anything
    else; the deal comes before aimless shuffling because shuffling rarely helps later.
    """
    return u.ranked_moves(state)


def solve(state: u.State, budget: int = 20_000) -> Solution:
    if state.ended:
        status = "winnable" if state.ended == "won" else "unwinnable"
        return Solution(status, 0)
    limit = state.options.idle_limit
    _key = _keyer(state)
    best_idle: dict[tuple, int] = {_key(state): state.idle}
    # each frame: (state, its untried moves, the move that led here)
    stack: list[tuple[u.State, list[Move], Move | None]] = [(state, _ordered(state)[::-1], None)]
    nodes = 1
    while stack:
        cur, todo, _ = stack[-1]
        if not todo:
            stack.pop()
            continue
        move = todo.pop()
        nxt = u._step(cur, move)
        if u.cards_built(nxt) == 96:
            line = tuple(m for _, _, m in stack[1:] if m is not None) + (move,)
            return Solution("winnable", nodes, line)
        if nxt.idle >= limit:
            continue
        k = _key(nxt)
        seen = best_idle.get(k)
        if seen is not None and seen <= nxt.idle:
            continue
        best_idle[k] = nxt.idle
        if nodes >= budget:
            return Solution("unknown", nodes)
        nodes += 1
        stack.append((nxt, _ordered(nxt)[::-1], move))
    return Solution("unwinnable", nodes)


def solve_seed(seed: int, budget: int = 20_000, options: u.Options | None = None) -> Solution:
    """Solve the deal ``new_game(1, options, seed)`` from its opening deal."""
    state = u.new_game(1, options, seed)
    return solve(state, budget)
