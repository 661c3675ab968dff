"""Udvasa, the patience, at a camera table: every card lies face up, on the eight build
spots, the eight working spots and the stock (``calibration/layouts/udvasa.json``).

Seed 003: "Begin by placing the 4 Rajas and four number 1 cards face-up, one card in each
of the 8 build stacks" ... "Deal 8 cards, face-up, into the 8 working stacks" ... "Cards
can be moved from the top of one working stack to the top of another" ... "When you have
no more moves, you then deal another 8 cards". The moves are ``deal``, ``move`` and
``build`` (``companion.games.udvasa``).

Ruling *a-card-is-judged-where-it-lands*: a card seen newly on a working spot that the
table has not had before is dealt, and a deal is judged once as many new cards lie on
their working spots as the stock deals (eight, or what is left), in working-stack order;
a card the table has on top of a working stack, seen on another working spot, was moved
there, and seen on a build spot, was built (on its suit's build: the spot a player uses
for a suit is theirs to choose). A card seen again where it lay (uncovered when the card on
it went) and the eight starting cards on the build spots are no moves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.cards import Card
from companion.games.base import Move
from companion.referee.handfuls import HandfulJudge
from companion.referee.values import Fact

if TYPE_CHECKING:
    from companion.referee import Referee
    from companion.referee.values import Derivation


class PatienceJudge(HandfulJudge):
    """Judges Udvasa's deals, moves and builds from where each card lands (see the
    module's ruling)."""

    MOVES_CARDS = True  # a card seen on a pile may have left another (``moved_here``)

    @staticmethod
    def problems(ref: Referee, tops: dict[str, Card]) -> list[str]:
        """Where the table and the game disagree (``patience_problems``)."""
        return patience_problems(tops, ref.engine.state)

    def __init__(self, ref: Referee, d: Derivation):
        super().__init__(ref, d)
        self.dealing: dict[int, Fact] = {}  # working stack -> a new card seen there

    def fact(self, f: Fact) -> None:
        if f.kind == "told" and f.move is not None:
            self._judge([f.move], f)
            return
        if f.kind != "laid" or f.card is None or not self.ref._has_zone(f.zone):
            return
        zone = self.ref.layout.zone(f.zone)
        state = self.ref.engine.state
        tops = {w[-1]: i for i, w in enumerate(state.work) if w}
        if f.card in tops and zone.kind in ("work", "build"):
            if zone.kind == "build":
                self._judge([Move(0, "build", (f.card,), f"build-{f.card.suit.value}")], f)
            elif int(f.zone[4:]) != tops[f.card]:
                self._judge([Move(0, "move", (f.card,), f"work{int(f.zone[4:]) + 1}")], f)
            return
        if zone.kind != "work" or f.card in state.order or self._starting(f):
            return  # (seen again where it lay, or a card the table has had)
        self.dealing[int(f.zone[4:])] = f
        want = min(len(state.work), self.ref.module.stock_left(state))
        if len(self.dealing) >= want:
            facts = [self.dealing[i] for i in sorted(self.dealing)]
            self.dealing = {}
            self._judge([Move(0, "deal", tuple(g.card for g in facts))],
                        max(facts, key=lambda g: g.when))

    def _starting(self, f: Fact) -> bool:
        """One of the four Rajas and four 1s the game begins with on the build spots."""
        return f.card in self.ref.module.start_cards(self.ref.engine.state.options)


def patience_problems(tops: dict[str, Card], state) -> list[str]:
    """Udvasa: each working spot's top card (``tops``) against the game's working stack.
    A card the game has elsewhere (a refused move not taken back) or a stack's top card
    gone from it is a mismatch; a card new to the game is one being dealt."""
    problems = []
    for i, stack in enumerate(state.work):
        top, want = tops.get(f"work{i}"), (stack[-1] if stack else None)
        if top is not None and top != want and top in state.order:
            problems.append(f"put {top.name} back from working stack {i + 1}")
        elif want is not None and top is None:
            problems.append(f"{want.name} should lie on working stack {i + 1}")
    return problems


def moved_here(table: dict[str, list[Card]], card: Card, zone: str) -> bool:
    """Whether ``card``, seen on ``zone``, lay last on another pile of ``table`` (the cards
    seen on each zone, bottom first), which loses it: a card back on a pile it lay on
    before was taken for that card seen again, and a patience lost two moves so."""
    was = [z for z, stack in table.items() if z != zone and card in stack]
    for z in was:
        table[z].remove(card)
    if was and card in table.get(zone, ()):
        table[zone].remove(card)
    return bool(was)
