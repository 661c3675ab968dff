"""Nakash (2-6 players): two cards each, automatic losses and a ladder of victories.

Seed 003: "The value of each card equals the number of symbols on it. The raja is 12 and
the vizier is 11." "A sum of 18, 19, 21, or 23 is an automatic losing hand." "Victory
conditions are listed in order of preference: 1. A pair of 1s 2. A pair of rajas 3. A pair
of viziers 4. A pair of 10s 5. The highest sum of cards that is 17 or less." "Losers pay
their stake to the winner ... In the event of a tie, the stake is paid out equally to each
winner."

Pure scoring for the dashboard: ``hand_sum``, ``victory(cards)`` (the ladder step or None),
``winners(hands)`` and ``settle(hands, stake)`` (exact, in ``Fraction`` when a tie splits).

Moves: ``reveal`` (cards: the player's two cards), from the dealer's right, dealer last.
Rulings in ``docs/rulings/nakash.md``: *seat-order*, *nakash-dealer*, *nakash-pot*,
*nakash-no-victory*, *nakash-no-winner*, *nakash-rounds*.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from companion.cards import Card, DeckKind, Rank
from companion.games.base import (
    Event,
    IllegalMoveError,
    Move,
    OptionsError,
    Result,
    Verdict,
    announcement,
    check_players,
    check_turn,
    make_rng,
    seat_name,
)
from companion.games.showdown import (
    Judgement,
    SnapshotReferee,
    add,
    after_dealer,
    check_reveal,
    deal_rounds,
    ledger_result,
    money,
    payment_events,
    pot_split,
    resolve_rounds,
)

NAME = "nakash"
TITLE = "Nakash"
MIN_PLAYERS = 2
MAX_PLAYERS = 6
DECK = DeckKind.MUGHAL
HAND = 2
AUTOMATIC_LOSSES = frozenset({18, 19, 21, 23})
# The ladder, best first; each entry is (name, the pair's rank or None for the sum rule).
LADDER = (("a pair of 1s", Rank.ONE), ("a pair of rajas", Rank.RAJA),
          ("a pair of viziers", Rank.VIZIER), ("a pair of 10s", Rank.TEN),
          ("the highest sum of 17 or less", None))


@dataclass(frozen=True)
class Options:
    rounds: int = 0  # 0: one round per player
    stake: int = 1  # the ante every player pays each round
    first_dealer: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.first_dealer < MAX_PLAYERS:
            raise OptionsError("first_dealer must be a seat number (0 is Player 1)")
        if self.rounds < 0:
            raise OptionsError("rounds must be 0 (one per player) or more")
        if self.stake < 1:
            raise OptionsError("the stake must be at least 1")


# ---- pure scoring ---------------------------------------------------------------------

def card_value(card: Card) -> int:
    """Pips for a number card; "The raja is 12 and the vizier is 11." """
    return int(card.rank)


def hand_sum(cards: Sequence[Card]) -> int:
    return sum(card_value(c) for c in cards)


def is_automatic_loss(cards: Sequence[Card]) -> bool:
    return hand_sum(cards) in AUTOMATIC_LOSSES


def victory(cards: Sequence[Card]) -> tuple[int, int] | None:
    """The hand's place on the ladder as a key (higher is better), or None when the hand
    cannot win: an automatic loss, or (ruling *nakash-no-victory*) a hand that meets no
    victory condition, such as raja + 8 (20) or raja + 10 (22)."""
    if len(cards) != HAND:
        raise ValueError(f"a Nakash hand has {HAND} cards, not {len(cards)}")
    if is_automatic_loss(cards):
        return None
    a, b = cards
    for step, (_, rank) in enumerate(LADDER):
        if rank is not None and a.rank is rank and b.rank is rank:
            return (len(LADDER) - step, 0)
    total = hand_sum(cards)
    return (1, total) if total <= 17 else None


def victory_name(cards: Sequence[Card]) -> str:
    key = victory(cards)
    if key is None:
        return "an automatic loss" if is_automatic_loss(cards) else "no victory condition"
    if key[0] == 1:
        return f"a sum of {key[1]}, 17 or less"
    return LADDER[len(LADDER) - key[0]][0]


def winners(hands: Sequence[Sequence[Card]]) -> tuple[int, ...]:
    """Seats holding the best hand on the ladder (several on a tie; none if nobody can win)."""
    keys = [victory(h) for h in hands]
    valid = [k for k in keys if k is not None]
    if not valid:
        return ()
    best = max(valid)
    return tuple(s for s, k in enumerate(keys) if k == best)


def settle(hands: Sequence[Sequence[Card]], stake: int = 1) -> tuple[Fraction, ...]:
    """Net payments per seat: each loser pays ``stake``, the winners share what the losers
    paid equally (ruling *nakash-pot*); they sum to zero."""
    return pot_split(winners(hands), len(hands), stake)


# ---- the game -------------------------------------------------------------------------

@dataclass(frozen=True)
class State:
    players: int
    options: Options
    rounds: int
    hands: tuple[tuple[tuple[Card, ...], ...], ...] | None
    round: int = 0
    turn: int = 0
    over: bool = False
    shown: tuple[tuple[Card, ...], ...] = ()
    ledger: tuple[Fraction, ...] = ()

    @property
    def dealer(self) -> int:
        return (self.options.first_dealer + self.round) % self.players


def _check_options(players: int, options: Options | None) -> Options:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    o = options or Options()
    if not 0 <= o.first_dealer < players:
        raise OptionsError(f"first_dealer must be a seat 0..{players - 1}")
    return o


def _start(players: int, o: Options, hands) -> State:
    return State(players, o, resolve_rounds(o.rounds, players), hands,
                 shown=((),) * players, ledger=(Fraction(0),) * players)


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    """ "Cards are shuffled and two cards are dealt to each player face down." """
    o = _check_options(players, options)
    rng = make_rng(seed)
    hands = deal_rounds(rng, DECK, players, o.first_dealer, resolve_rounds(o.rounds, players),
                        HAND)
    return _start(players, o, hands)


def current_player(state: State) -> int | None:
    return None if state.over else after_dealer(state.dealer, state.players)[state.turn]


def legal_moves(state: State) -> list[Move]:
    p = current_player(state)
    if p is None:
        return []
    assert state.hands is not None
    return [Move(p, "reveal", state.hands[state.round][p])]


def _step(state: State, move: Move) -> tuple[State, list[Event]]:
    p = check_turn(current_player(state), move)
    if move.action != "reveal":
        raise IllegalMoveError(f"{seat_name(p)} must reveal their two cards", move)
    cards = move.cards
    if len(cards) != HAND or len(set(cards)) != HAND or any(c.deck is not DECK for c in cards):
        raise IllegalMoveError("a Nakash hand is two different cards of the Mughal deck", move)
    check_reveal(state.shown, None if state.hands is None else state.hands[state.round][p], p,
                 cards, move)
    shown = list(state.shown)
    shown[p] = cards
    events: list[Event] = []
    if state.turn == 0:
        events.append(Event("ante", f"Everyone antes {state.options.stake}"))
    what = victory_name(cards)
    text = f"{seat_name(p)} shows {hand_sum(cards)}: {what}"
    events.append(announcement("automatic-loss", text, p, cards) if is_automatic_loss(cards)
                  else Event("score", text, p, cards))
    if state.turn < state.players - 1:
        return dataclasses.replace(state, shown=tuple(shown), turn=state.turn + 1), events
    won = winners(shown)
    pay = pot_split(won, state.players, state.options.stake)
    if won:
        names = " and ".join(seat_name(s) for s in won)
        events.append(announcement("round-winner", f"{names} win{'s' * (len(won) == 1)} "
                                   f"the round with {victory_name(shown[won[0]])}"))
    else:
        events.append(announcement("no-winner", "Nobody wins: every ante goes back"))
    events += payment_events(pay)
    ledger = add(state.ledger, pay)
    done = state.round + 1 == state.rounds
    nxt = dataclasses.replace(state, ledger=ledger, round=state.round + 1, turn=0, over=done,
                              shown=((),) * state.players)
    events.append(announcement("round", f"Round {state.round + 1} settled; ledger: "
                               + ", ".join(money(v) for v in ledger)))
    if done:
        events.append(announcement("game-over", ledger_result(ledger).text))
    return nxt, events


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    return _step(state, move)


def is_over(state: State) -> bool:
    return state.over


def result(state: State) -> Result:
    return ledger_result(state.ledger)


def deal_of(state: State) -> dict:
    assert state.hands is not None
    return {"first_dealer": state.options.first_dealer,
            "hands": [[[c.id for c in h] for h in rnd] for rnd in state.hands]}


def public_move(move: Move) -> Move:
    return move  # every hand is revealed face up


def _judge(state: State, move: Move) -> Judgement:
    try:
        nxt, events = _step(state, move)
    except IllegalMoveError as e:
        return Judgement(Verdict.ILLEGAL, e.reason, None)
    return Judgement(Verdict.LEGAL, "", nxt, tuple(events))


class TableReferee(SnapshotReferee):
    """Nakash is all face up at the showdown: every reveal is judged and scored."""

    def __init__(self, players: int, options: Options | None = None):
        super().__init__(_start(players, _check_options(players, options), None), _judge)
