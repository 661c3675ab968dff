"""What the two Mughal trick games (Ekrang, Hamrang) share: trick winners, seat order,
and the referee's *claims*.

The table sees every card played but no hand. A play that the rules allow only when the
player lacks something ("A different suit may be played if a player has no cards of the
original suit", "plays the lowest card", "the highest card they have") is a claim about
a hidden hand. Hands only shrink in these games (no draws after the deal), so the hand
at the time of the claim contains every card the player shows later: a later card that
the claim says the player did not have proves the earlier play illegal. Until then the
play is *unverifiable*, never legal; it is legal at once when every card that could
contradict it has already been seen on the table.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.cards import Card, RankOrder, Suit, strength
from companion.games.base import seat_name


def face_value(card: Card) -> int:
    """The printed value: pips, vizier 11, raja 12 (the order "8 or higher" speaks in)."""
    return int(card.rank)


@dataclass(frozen=True)
class Claim:
    """"At ``step`` ``player`` held no card of ``suit`` (None: of any suit) measuring below
    ``lo`` or above ``hi``", the measure being ``strength`` or the printed ``value``."""

    player: int
    step: int
    text: str
    suit: Suit | None
    lo: int
    hi: int
    measure: str = "strength"

    def disproved_by(self, card: Card, order: RankOrder) -> bool:
        if self.suit is not None and card.suit is not self.suit:
            return False
        m = face_value(card) if self.measure == "value" else strength(card, order)
        return m < self.lo or m > self.hi

    def could_be_false(self, unseen: Iterable[Card], order: RankOrder) -> bool:
        """Whether some card not yet seen on the table would disprove the claim."""
        return any(self.disproved_by(c, order) for c in unseen)


def void(player: int, step: int, suit: Suit, why: str) -> Claim:
    return Claim(player, step, f"{seat_name(player)} {why} (no {suit.title} in hand)",
                 suit, 13, 0)


def judge_claims(claims: Sequence[Claim], player: int, cards: Sequence[Card],
                 order: RankOrder) -> tuple[tuple[Claim, ...], list[str]]:
    """(claims still open, the proofs this play gives against earlier claims)."""
    keep, proofs = [], []
    for c in claims:
        hit = next((k for k in cards if c.player == player and c.disproved_by(k, order)), None)
        if hit is None:
            keep.append(c)
        else:
            proofs.append(f"{hit.name} proves that at move {c.step} {c.text} was false")
    return tuple(keep), proofs


def open_claims(new: Sequence[Claim], unseen: Iterable[Card],
                order: RankOrder) -> tuple[Claim, ...]:
    """The new claims the table cannot settle yet (those some unseen card could disprove)."""
    pool = tuple(unseen)
    return tuple(c for c in new if c.could_be_false(pool, order))


def trick_winner(plays: Sequence[tuple[int, Card]], led: Suit, order: RankOrder) -> int:
    """The seat that played the highest card of the led suit."""
    return max((p for p in plays if p[1].suit is led),
               key=lambda p: strength(p[1], order))[0]


def next_seat_with_cards(start: int, counts: Sequence[int], include_start: bool = True) -> int:
    """The first seat counterclockwise from ``start`` that still holds cards (-1: none)."""
    n = len(counts)
    for i in range(0 if include_start else 1, n + 1):
        s = (start + i) % n
        if counts[s] > 0:
            return s
    return -1


def highest(cards: Iterable[Card], order: RankOrder) -> Card:
    return max(cards, key=lambda c: strength(c, order))


def lowest(cards: Iterable[Card], order: RankOrder) -> Card:
    return min(cards, key=lambda c: strength(c, order))
