"""Kendra Kari rules as data and pure checks, shared by the engine (``kendra_kari``) and
the table referee (``kendra_kari_referee``): options, cards as small integers with
precomputed matches, the ring's geometry, the checks that give a player's reasons, and
the words of the events. Rule quotes are from the 2015 book unless marked 2011."""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import Event, Move, announcement, seat_name

NAME = "kendra-kari"
TITLE = "Kendra Kari"
MIN_PLAYERS = 3
MAX_PLAYERS = 6
DECK = DeckKind.MUGHAL
HAND_SIZE = 6
NINE = 9


class Direction(enum.Enum):
    CLOCKWISE = "clockwise"
    ANTICLOCKWISE = "anticlockwise"

    def __str__(self) -> str:
        return self.value


class StockExhausted(enum.Enum):
    FEWEST_CARDS = "fewest-cards"
    RESHUFFLE = "reshuffle"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Options:
    """Defaults are the 2015 book. The 2011 book: ``first_play_2011=true``,
    ``play_drawn_card=false``, ``hand_limit_nine=true``."""

    direction: Direction = Direction.CLOCKWISE
    stock_exhausted: StockExhausted = StockExhausted.FEWEST_CARDS
    first_play_2011: bool = False
    play_drawn_card: bool = True
    hand_limit_nine: bool = False


# ---- cards as small integers: the hot path works on bitmasks ------------------------------

CARDS: tuple[Card, ...] = deck_cards(DECK)
INDEX: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
FULL = (1 << len(CARDS)) - 1
# MATCH[i]: mask of the other cards sharing suit or rank with card i; MATCH[-1] is empty
# so that an empty position (-1) matches nothing.
MATCH: tuple[int, ...] = tuple(
    sum(1 << j for j, d in enumerate(CARDS) if j != i and c.same_suit_or_rank(d))
    for i, c in enumerate(CARDS)) + (0,)
NAMES: tuple[str, ...] = tuple(c.name for c in CARDS)
NEXT = (1, 2, 3, 4, 5, 6, 1)  # NEXT[p]: the position after p (Position 7 is index 0)
OPP = (-1, 4, 5, 6, 1, 2, 3)  # OPP[p]: the ring position directly opposite p
EMPTY_TOPS = (-1,) * 7  # tops[0] is Position 7 (the centre), tops[1..6] the ring


def bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def matches(a: int, b: int) -> bool:
    """ "either the same suit or the same rank" """
    return b >= 0 and (MATCH[a] >> b) & 1 == 1


def dealer(state: Any) -> int:
    """Ruling *dealer-before-first*: the books do not name a dealer; the seat before
    Player 1 in the direction of play deals, and the game's first move is the dealer's
    ``deal``: the face-up card laid on Position 7, which the table sees."""
    step = 1 if state.options.direction is Direction.CLOCKWISE else -1
    return -step % state.players


def next_seat(state: Any, seat: int) -> int:
    """ "I will assume that play proceeds clockwise. (... if that is the custom of your
    group, replace 'clockwise' with 'anticlockwise' throughout.)" Ruling
    *seats-clockwise*: seats are numbered clockwise."""
    step = 1 if state.options.direction is Direction.CLOCKWISE else -1
    return (seat + step) % state.players


# ---- the rules as checks shared by the engine and the table referee ----------------------

def play_problem(tops: tuple[int, ...], last: int, card: int, target: int) -> str | None:
    """ "each player who can plays a card with either the same suit or the same rank as the
    most recently played card, and does so by placing it on the next position around from
    that previous card ... Position 7 is not ordinarily played to, so if the previous card
    was played on Position 6, you play on Position 1, and round it goes." The first play
    of a phase goes to Position 1 off the card on Position 7."""
    q = NEXT[last]
    if target != q:
        return f"Wrong position: the next position is {q}, not {target or 7}"
    if not matches(card, tops[last]):
        return (f"Wrong match: {NAMES[card]} shares neither suit nor rank with "
                f"{NAMES[tops[last]]}, the last card played")
    return None


def bridge_problem(tops: tuple[int, ...], last: int, card: int) -> str | None:
    """ "A player may play a card to Position 7 if that card not only shares its suit or its
    rank with the most recently played card, but also shares its suit or its rank with the
    card directly opposite the most recently played card." "The card currently sitting on
    top of Position 1 is directly opposite the card on Position 4 ... Position 2 ...
    Position 5 ... Position 3 ... Position 6." Ruling *no-opposite-no-bridge*."""
    if last <= 0:
        return "Bridge not valid: the last card is on Position 7, which has no opposite"
    o = OPP[last]
    if tops[o] < 0:
        return f"Bridge not valid: no card lies on Position {o}, opposite Position {last}"
    if not matches(card, tops[last]):
        return (f"Bridge not valid: {NAMES[card]} shares neither suit nor rank with "
                f"{NAMES[tops[last]]} on Position {last}")
    if not matches(card, tops[o]):
        return (f"Bridge not valid: {NAMES[card]} shares neither suit nor rank with "
                f"{NAMES[tops[o]]} on Position {o}, opposite Position {last}")
    return None


def start_problem(first: int, second: int | None) -> str | None:
    """ "The player who built the bridge begins a new phase by playing any card to Position
    7, and may, if able, play a second card with the same suit or rank to Position 1." """
    if second is not None and not matches(second, first):
        return (f"Wrong match: the second card of a new phase, {NAMES[second]}, shares neither "
                f"suit nor rank with {NAMES[first]} on Position 7")
    return None


def parse_targets(move: Move, count: int) -> tuple[int, ...] | None:
    parts = move.target.split(",") if move.target else []
    if len(parts) != count or not all(p.strip().isdigit() for p in parts):
        return None
    out = tuple(int(p) % 7 for p in parts)  # "7" is index 0
    return out if all(1 <= int(p) <= 7 for p in parts) else None


def can_play(hand: int, tops: tuple[int, ...], last: int) -> bool:
    """ "A player must play if they have a playable card." """
    return last >= 0 and hand & MATCH[tops[last]] != 0


# ---- event texts, shared with the table referee -----------------------------------------

def ev_play(seat: int, card: int, pos: int, how: str = "") -> Event:
    return Event("play", f"{seat_name(seat)} plays {how}{NAMES[card]} to Position {pos}",
                 seat, (CARDS[card],))


def ev_bridge(seat: int, card: int, last: int) -> list[Event]:
    return [announcement("bridge", f"Bridge! {seat_name(seat)} links Positions "
                         f"{min(last, OPP[last])} and {max(last, OPP[last])} with "
                         f"{NAMES[card]}", seat, (CARDS[card],)),
            Event("gather", "The cards on the table are gathered up and taken out of the game",
                  seat)]


def ev_start(seat: int, first: int, second: int | None) -> list[Event]:
    text = f"New phase: {seat_name(seat)} lays {NAMES[first]} on Position 7"
    cards = (CARDS[first],)
    if second is not None:
        text += f" and {NAMES[second]} on Position 1"
        cards += (CARDS[second],)
    return [announcement("phase", text, seat, cards)]


def ev_turn_ups(turner: int) -> Event:
    """2011 footnote: "The player who most recently acquired their ninth card takes another
    card from the stock and places it face-up on the table" (where: ruling
    *turned-up-onto-the-gathered-pile*)."""
    return announcement("turnup", "Every player holds nine cards and none can play: "
                        f"{seat_name(turner)} turns up cards from the stock, laying each "
                        "that cannot be played face up on the Gathered pile")


def ev_win(seat: int) -> Event:
    return announcement("win", f"{seat_name(seat)} wins", seat)


def ev_fewest(winners: tuple[int, ...], counts: tuple[int, ...]) -> tuple[Event, str]:
    names = " and ".join(seat_name(s) for s in winners)
    n = counts[winners[0]]
    text = (f"The stock is exhausted: {names} {'wins' if len(winners) == 1 else 'win'} "
            f"with the fewest cards ({n})")
    return announcement("win", text), text


EV_RESHUFFLE = "The stock is empty: the captured cards are shuffled into a new stock"


def restock(captured: int, seed: int, count: int) -> tuple[int, ...]:
    """ "create a new stock by shuffling all the cards that have been captured by building
    bridges" (deterministic from the deal's seed, so records replay)."""
    cards = bits(captured)
    random.Random(seed * 1009 + count).shuffle(cards)
    return tuple(cards)


