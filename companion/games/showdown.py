"""What the three showdown/banking games (Komi, Nakash, Sama) share: seat order, the
dealer's rotation, the stake ledger and a table referee that keeps snapshots for undo.

Ruling *seat-order* (all five Mughal games here): seats are numbered counterclockwise
round the table, so "the next player, counterclockwise" (the book's direction for dealing,
play and the dealer's rotation) is seat + 1, and "the player to the right of the dealer"
is the dealer + 1 (players face the table, so counterclockwise moves to one's right).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import (
    Event,
    IllegalMoveError,
    Move,
    Result,
    Ruling,
    Verdict,
    seat_name,
)


def order_from(first: int, n: int) -> tuple[int, ...]:
    """Every seat once, counterclockwise, starting with ``first``."""
    return tuple((first + i) % n for i in range(n))


def after_dealer(dealer: int, n: int) -> tuple[int, ...]:
    """Dealing/acting order: the dealer's right-hand neighbour first, the dealer last."""
    return order_from((dealer + 1) % n, n)


def resolve_rounds(rounds: int, players: int) -> int:
    """``rounds=0`` means one round per player, so that each deals once."""
    return players if rounds == 0 else rounds


def deal_rounds(rng: random.Random, deck: DeckKind, players: int, first_dealer: int,
                rounds: int, hand: int) -> tuple[tuple[tuple[Card, ...], ...], ...]:
    """Every round's hands: a fresh shuffle, dealt one card at a time from the dealer's
    right, the deal passing to the next seat each round."""
    hands = []
    for r in range(rounds):
        cards = list(deck_cards(deck))
        rng.shuffle(cards)
        order = after_dealer((first_dealer + r) % players, players)
        per: list[list[Card]] = [[] for _ in range(players)]
        for k in range(hand * players):
            per[order[k % players]].append(cards[k])
        hands.append(tuple(tuple(h) for h in per))
    return tuple(hands)


def check_reveal(shown: Sequence[Sequence[Card]], dealt: Sequence[Card] | None, player: int,
                 cards: Sequence[Card], move: Move) -> None:
    """A revealed hand shares no card with the hands already shown this round, and is the
    hand dealt to ``player`` when the deal is known (the engine; the table does not know)."""
    seen = {c for h in shown for c in h} & set(cards)
    if seen:
        names = ', '.join(c.name for c in sorted(seen, key=str))
        raise IllegalMoveError(f"{names} is already shown in another hand this round", move)
    if dealt is not None and set(cards) != set(dealt):
        raise IllegalMoveError(f"those are not the cards dealt to {seat_name(player)}", move)


def add(ledger: Sequence[Fraction], payments: Sequence[Fraction]) -> tuple[Fraction, ...]:
    return tuple(Fraction(a) + Fraction(b) for a, b in zip(ledger, payments, strict=True))


def money(x: Fraction | int) -> str:
    """A stake amount in words: whole numbers plainly, shares as fractions."""
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g} ({x})"


def payment_events(payments: Sequence[Fraction]) -> list[Event]:
    out = []
    for seat, p in enumerate(payments):
        if p:
            verb = "receives" if p > 0 else "pays"
            out.append(Event("payment", f"{seat_name(seat)} {verb} {money(abs(p))}", seat))
    return out


def pot_split(winners: Sequence[int], players: int, stake: int) -> tuple[Fraction, ...]:
    """Everyone antes ``stake``; the winners share the pot equally (a loser's net is
    -stake). No winner: every ante goes back (all zero)."""
    if not winners:
        return tuple(Fraction(0) for _ in range(players))
    share = Fraction(stake * players, len(winners))
    return tuple(share - stake if s in winners else Fraction(-stake) for s in range(players))


def ledger_result(ledger: Sequence[Fraction], what: str = "net stakes") -> Result:
    """The game's result: the ledger as scores, the best net (or nets) as winners."""
    best = max(ledger)
    winners = tuple(s for s, v in enumerate(ledger) if v == best)
    names = " and ".join(seat_name(s) for s in winners)
    verb = "wins" if len(winners) == 1 else "tie"
    text = f"{names} {verb} ({what}: " + ", ".join(money(v) for v in ledger) + ")"
    return Result(winners, tuple(float(v) for v in ledger), text)


@dataclass(frozen=True)
class Judgement:
    """What a referee step decided; ``state`` is the referee's next public state (None:
    unchanged, as after an illegal move, which the table must take back)."""

    verdict: Verdict
    reason: str
    state: Any
    events: tuple[Event, ...] = ()


class SnapshotReferee:
    """A table referee over an immutable public state: ``judge(state, move)`` decides,
    ``undo`` steps back by keeping every earlier state (python-chess's cheap undo)."""

    def __init__(self, start: Any, judge: Callable[[Any, Move], Judgement]):
        self._states = [start]
        self._judge = judge

    @property
    def state(self) -> Any:
        return self._states[-1]

    def observe(self, move: Move) -> Ruling:
        j = self._judge(self.state, move)
        self._states.append(self.state if j.state is None else j.state)
        return Ruling(move, j.verdict, j.reason, j.events)

    def undo(self) -> None:
        if len(self._states) > 1:
            self._states.pop()
