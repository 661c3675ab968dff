"""What completes a Shakti hand, and how near a hand is to one: the run order (option
``run_order``, with the base class of Shakti's option enums), the winning test, and the
bot's measure of progress. They look only at cards, never at the table, so they live apart
from the engine and referee in ``shakti``, which imports and re-exports them.
"""

from __future__ import annotations

import enum
from typing import Any

from companion.cards import Card, RankOrder, strength

HAND = 8


class _Choice(enum.Enum):
    def __str__(self) -> str:  # `companion games` lists options by value
        return str(self.value)


class RunOrder(_Choice):
    PRINTED = "printed"  # 1..10, vizier, raja in every suit
    TRADITIONAL = "traditional"  # by strength(): reversed suits run 10..1, vizier, raja


def _key(card: Card, order: RunOrder) -> int:
    if order is RunOrder.TRADITIONAL:
        return strength(card, RankOrder.TRADITIONAL)
    return int(card.rank)


def winning(hand: tuple[Card, ...] | list[Card], order: RunOrder = RunOrder.PRINTED) -> str:
    """"a run of cards from the same suit" or "all 8 cards of the same value"; '' if not."""
    if len(hand) != HAND or len(set(hand)) != HAND:
        return ""
    if len({c.rank for c in hand}) == 1:
        return f"eight {hand[0].rank.english}s"
    if len({c.suit for c in hand}) == 1:
        keys = sorted(_key(c, order) for c in hand)
        if keys[-1] - keys[0] == HAND - 1:
            return f"a run of 8 in {hand[0].suit.title}"
    return ""


def _targets(hand: tuple[Card, ...], order: RunOrder) -> list[frozenset[Card]]:
    """Each possible winning hand's cards already held, the fullest first."""
    groups: dict[Any, set[Card]] = {}
    for c in hand:
        groups.setdefault(("rank", c.rank), set()).add(c)
        k = _key(c, order)
        for lo in range(max(1, k - 7), min(k, 5) + 1):
            groups.setdefault(("run", c.suit, lo), set()).add(c)
    return sorted((frozenset(g) for g in groups.values()), key=len, reverse=True)


def _progress(hand: tuple[Card, ...], order: RunOrder) -> int:
    t = _targets(hand, order)
    return len(t[0]) if t else 0
