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
from dataclasses import dataclass, replace

from companion.cards import Card, Rank, RankOrder, Suit, strength
from companion.games.base import Result, seat_name


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
    # "the highest or the lowest" (lo == hi == the card played): false only once the
    # player has shown a card above it and a card below it
    extreme: bool = False
    above: bool = False
    below: bool = False

    def _m(self, card: Card, order: RankOrder) -> int:
        return face_value(card) if self.measure == "value" else strength(card, order)

    def disproved_by(self, card: Card, order: RankOrder) -> bool:
        if self.suit is not None and card.suit is not self.suit:
            return False
        m = self._m(card, order)
        if self.extreme:
            return (self.above or m > self.hi) and (self.below or m < self.lo)
        return m < self.lo or m > self.hi

    def noting(self, card: Card, order: RankOrder) -> Claim:
        """An extreme claim after the player showed ``card`` (half of a disproof)."""
        if not self.extreme or (self.suit is not None and card.suit is not self.suit):
            return self
        m = self._m(card, order)
        return replace(self, above=self.above or m > self.hi, below=self.below or m < self.lo)

    def could_be_false(self, unseen: Iterable[Card], order: RankOrder) -> bool:
        """Whether cards not yet seen on the table could disprove the claim."""
        pool = [c for c in unseen if self.suit is None or c.suit is self.suit]
        if self.extreme:
            return (self.above or any(self._m(c, order) > self.hi for c in pool)) and \
                (self.below or any(self._m(c, order) < self.lo for c in pool))
        return any(self.disproved_by(c, order) for c in pool)


def void(player: int, step: int, suit: Suit, why: str) -> Claim:
    return Claim(player, step, f"{seat_name(player)} {why} (no {suit.title} in hand)",
                 suit, 13, 0)


def judge_claims(claims: Sequence[Claim], player: int, cards: Sequence[Card],
                 order: RankOrder) -> tuple[tuple[Claim, ...], list[str]]:
    """(claims still open, the proofs this play gives against earlier claims)."""
    keep, proofs = [], []
    for c in claims:
        hit = None
        if c.player == player:
            for k in cards:
                if c.disproved_by(k, order):
                    hit = k
                    break
                c = c.noting(k, order)
        if hit is None:
            keep.append(c)
        else:
            proofs.append(f"{hit.name} proves that {seat_name(player)}'s play at move "
                          f"{c.step} broke the rules ({c.text})")
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


def leading_raja(time_of_day: str) -> Card:
    """ "If you are playing during the day, the first player is the one that has the Raja of
    Surya (green). If playing at night, it is the Raja of Chandra (black)." """
    return Card(Suit.SURYA if time_of_day == "day" else Suit.CHANDRA, Rank.RAJA)


def tricks_result(tricks: Sequence[int]) -> Result:
    """ "The player who took the most tricks wins the game"; equal most tricks tie."""
    best = max(tricks)
    winners = tuple(s for s, t in enumerate(tricks) if t == best)
    names = " and ".join(seat_name(s) for s in winners)
    text = (f"{names} {'wins' if len(winners) == 1 else 'tie'} with {best} tricks "
            f"(tricks: {', '.join(map(str, tricks))})")
    return Result(winners, tuple(float(t) for t in tricks), text)
