"""The Kendra Kari engine's state: the stage of a turn, the immutable ``State``, the deal
that makes it, and what can be read off it (whose turn, the hands, the stock, the result).

Apart from the move handlers in ``kendra_kari`` so that each file stays small; it builds on
``kendra_kari_rules`` only, and ``kendra_kari`` imports and re-exports all of it.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple

from companion.cards import Card
from companion.games.base import Result, check_players, make_rng
from companion.games.kendra_kari_rules import (
    CARDS,
    EMPTY_TOPS,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NINE,
    TITLE,
    Options,
    StockExhausted,
    bits,
    dealer,
    restock,
)


class Stage(enum.IntEnum):
    DEAL = 0  # the dealer lays the face-up card on Position 7
    NORMAL = 1  # the player to act plays, bridges, draws or passes
    DRAWN = 2  # the drawn card is playable and must be played at once
    START = 3  # the bridge builder begins the new phase
    TURNUP = 4  # 2011 footnote: turning up cards from the stock
    OVER = 5


class State(NamedTuple):
    """Immutable game state; undo is keeping the previous one."""

    options: Options
    players: int
    hands: tuple[int, ...]  # per seat, a mask of cards
    stock: tuple[int, ...]  # stock[pos] is the top card
    pos: int
    tops: tuple[int, ...]  # top card per position, index 0 = Position 7; -1 empty
    last: int  # position of the most recently played card (0 = Position 7); -1 none yet
    table: int  # every card on the table in this phase (covered ones too)
    captured: int  # gathered up after bridges
    dead: int  # turned up and unsuitable: "take no further part in the game"
    turn: int
    stage: Stage
    drawn: int  # the card that must be played (stage DRAWN), else -1
    passes: int  # consecutive passes (nine-card limit)
    last_ninth: int  # seat that most recently acquired a ninth card, else -1
    reshuffles: int
    shuffle_seed: int
    winners: tuple[int, ...]
    ending: str
    deal: tuple[tuple[tuple[int, ...], ...], int, tuple[int, ...]]


# ---- deal, turn order --------------------------------------------------------------------

def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    """ "Six cards are dealt to each player, and another card is dealt face-up to Position
    7. The remaining cards form the stock." """
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    options = options or Options()
    rng = make_rng(seed)
    deck = list(range(len(CARDS)))
    rng.shuffle(deck)
    hands = tuple(tuple(deck[s * HAND_SIZE:(s + 1) * HAND_SIZE]) for s in range(players))
    centre = deck[players * HAND_SIZE]
    stock = tuple(deck[players * HAND_SIZE + 1:])
    masks = tuple(sum(1 << c for c in h) for h in hands)
    state = State(options, players, masks, stock, 0, (centre,) + EMPTY_TOPS[1:], 0,
                  1 << centre, 0, 0, 0, Stage.DEAL, -1, 0, -1, 0, rng.getrandbits(32), (), "",
                  (hands, centre, stock))
    return state._replace(turn=dealer(state))


def current_player(state: State) -> int | None:
    return None if state.stage is Stage.OVER else state.turn


def is_over(state: State) -> bool:
    return state.stage is Stage.OVER


def hand_of(state: State, seat: int) -> tuple[Card, ...]:
    return tuple(CARDS[i] for i in bits(state.hands[seat]))


def stock_left(state: State) -> int:
    return len(state.stock) - state.pos


def deal_of(state: State) -> dict[str, Any]:
    hands, centre, stock = state.deal
    return {"hands": [[CARDS[i].id for i in h] for h in hands], "centre": CARDS[centre].id,
            "stock": [CARDS[i].id for i in stock]}  # stock listed from the top


def result(state: State) -> Result:
    counts = tuple(float(h.bit_count()) for h in state.hands)
    return Result(state.winners, counts, state.ending)


def _stock_top(state: State) -> int:
    """The card a draw or turn-up takes (after a reshuffle if the stock is empty); -1 when
    the game ends on the fewest cards instead."""
    if state.pos < len(state.stock):
        return state.stock[state.pos]
    if state.options.stock_exhausted is StockExhausted.RESHUFFLE and state.captured:
        return restock(state.captured, state.shuffle_seed, state.reshuffles)[0]
    return -1


def must_pass(state: State, hand: int) -> bool:
    """2011: "if a player already has nine cards in their hand, they don't pick up, but
    simply pass." """
    return state.options.hand_limit_nine and hand.bit_count() >= NINE
