"""Komi (2-6 players): a banking game of three cards against the dealer.

Seed 003: "Numbered cards are worth their indicated value and face cards are each worth
zero. Suits do not matter ... If the hand's value is in the double digits, the first digit
is ignored ... If a player receives a hand consisting entirely of face cards, this hand is
called 'Komi.' A Komi beats all other hands except for other Komis, which it ties."
"All players who have a lower score than the dealer pay her their bet. The dealer pays
players with a higher score an amount equal to their bet. ... all players that scored the
same as the dealer keep their bet."

Pure scoring for the dashboard: ``score_hand(cards)`` and ``settle(dealer, hands, bets)``.
A game is ``rounds`` rounds (default one per player, "in order that every player may be the
dealer an equal number of times"); the result's scores are the stake ledger.

Moves: ``bet`` (target: the amount; each player but the dealer, from the dealer's right)
then ``reveal`` (cards: the player's three cards; the dealer reveals last). Rulings in
``docs/rulings/komi.md``: *seat-order*, *oldest-is-first-dealer*, *komi-bets*,
*komi-rounds*, *komi-reveal-order*.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from companion.cards import Card, DeckKind
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
    resolve_rounds,
)

NAME = "komi"
TITLE = "Komi"
MIN_PLAYERS = 2
MAX_PLAYERS = 6
DECK = DeckKind.MUGHAL
HAND = 3
KOMI = "komi"


@dataclass(frozen=True)
class Options:
    rounds: int = 0  # 0: one round per player (each deals once)
    first_dealer: int = 0  # ruling oldest-is-first-dealer: seat of the oldest player
    min_bet: int = 1  # ruling komi-bets: whole stakes from min_bet to max_bet
    max_bet: int = 10

    def __post_init__(self) -> None:
        if not 0 <= self.first_dealer < MAX_PLAYERS:
            raise OptionsError("first_dealer must be a seat number (0 is Player 1)")
        if self.rounds < 0:
            raise OptionsError("rounds must be 0 (one per player) or more")
        if not 1 <= self.min_bet <= self.max_bet:
            raise OptionsError("bets need 1 <= min_bet <= max_bet")


# ---- pure scoring ---------------------------------------------------------------------

def card_points(card: Card) -> int:
    """ "Numbered cards are worth their indicated value and face cards are each worth zero." """
    return 0 if card.rank.is_face else int(card.rank)


def score_hand(cards: Sequence[Card]) -> int | str:
    """0-9 (the last digit of the sum), or ``"komi"`` for three face cards."""
    if len(cards) != HAND:
        raise ValueError(f"a Komi hand has {HAND} cards, not {len(cards)}")
    if all(c.rank.is_face for c in cards):
        return KOMI
    return sum(card_points(c) for c in cards) % 10


def beats_key(score: int | str) -> int:
    """Orders scores: a Komi (10) above every digit."""
    return 10 if score == KOMI else int(score)


def settle_scores(dealer: int, scores: Sequence[int | str],
                  bets: Sequence[int]) -> tuple[int, ...]:
    """Net payments per seat for one round; the dealer's own bet entry is ignored."""
    pay = [0] * len(scores)
    d = beats_key(scores[dealer])
    for seat, score in enumerate(scores):
        if seat == dealer:
            continue
        s = beats_key(score)
        if s < d:  # "pay her their bet"
            pay[seat] -= bets[seat]
            pay[dealer] += bets[seat]
        elif s > d:  # "The dealer pays players with a higher score an amount equal to their bet"
            pay[seat] += bets[seat]
            pay[dealer] -= bets[seat]
    return tuple(pay)


def settle(dealer: int, hands: Sequence[Sequence[Card]], bets: Sequence[int]) -> tuple[int, ...]:
    """Net payments per seat (they sum to zero) from the revealed hands and the bets."""
    return settle_scores(dealer, [score_hand(h) for h in hands], bets)


# ---- the game -------------------------------------------------------------------------

@dataclass(frozen=True)
class State:
    players: int
    options: Options
    rounds: int
    hands: tuple[tuple[tuple[Card, ...], ...], ...] | None  # [round][seat]; None: unseen
    round: int = 0
    phase: str = "bet"  # bet | reveal | over
    turn: int = 0  # index into the phase's order
    bets: tuple[int, ...] = ()
    shown: tuple[tuple[Card, ...], ...] = ()
    ledger: tuple[Fraction, ...] = ()

    @property
    def dealer(self) -> int:
        return (self.options.first_dealer + self.round) % self.players

    def order(self) -> tuple[int, ...]:
        o = after_dealer(self.dealer, self.players)
        return o[:-1] if self.phase == "bet" else o


def _check_options(players: int, options: Options | None) -> Options:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    o = options or Options()
    if not 0 <= o.first_dealer < players:
        raise OptionsError(f"first_dealer must be a seat 0..{players - 1}")
    return o


def _start(players: int, o: Options, hands) -> State:
    return State(players, o, resolve_rounds(o.rounds, players), hands,
                 bets=(0,) * players, shown=((),) * players,
                 ledger=(Fraction(0),) * players)


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    """ "The dealer deals three cards to each player including herself in a counterclockwise
    motion": one at a time from the dealer's right, from a fresh shuffle each round."""
    o = _check_options(players, options)
    rng = make_rng(seed)
    hands = deal_rounds(rng, DECK, players, o.first_dealer, resolve_rounds(o.rounds, players),
                        HAND)
    return _start(players, o, hands)


def current_player(state: State) -> int | None:
    return None if state.phase == "over" else state.order()[state.turn]


def legal_moves(state: State) -> list[Move]:
    p = current_player(state)
    if p is None:
        return []
    if state.phase == "bet":
        o = state.options
        return [Move(p, "bet", (), str(b)) for b in range(o.min_bet, o.max_bet + 1)]
    assert state.hands is not None
    return [Move(p, "reveal", state.hands[state.round][p])]


def _step(state: State, move: Move) -> tuple[State, list[Event]]:
    """The transition; checks the deal only when the state knows it (the engine)."""
    p = check_turn(current_player(state), move)
    order = state.order()
    last = state.turn == len(order) - 1
    if state.phase == "bet":
        o = state.options
        if move.action != "bet" or move.cards:
            raise IllegalMoveError(f"{seat_name(p)} must bet against the dealer first", move)
        if not move.target.isdigit() or not o.min_bet <= int(move.target) <= o.max_bet:
            raise IllegalMoveError(f"a bet is a whole stake from {o.min_bet} to {o.max_bet}",
                                   move)
        bets = list(state.bets)
        bets[p] = int(move.target)
        nxt = dataclasses.replace(state, bets=tuple(bets), turn=0 if last else state.turn + 1,
                                  phase="reveal" if last else "bet")
        return nxt, [Event("bet", f"{seat_name(p)} bets {move.target} against the dealer", p)]
    if move.action != "reveal":
        raise IllegalMoveError(f"{seat_name(p)} must reveal their three cards", move)
    cards = move.cards
    if len(cards) != HAND or len(set(cards)) != HAND or any(c.deck is not DECK for c in cards):
        raise IllegalMoveError("a Komi hand is three different cards of the Mughal deck", move)
    check_reveal(state.shown, None if state.hands is None else state.hands[state.round][p], p,
                 cards, move)
    shown = list(state.shown)
    shown[p] = cards
    score = score_hand(cards)
    events = [announcement("komi", f"Komi! {seat_name(p)} holds three face cards", p, cards)
              if score == KOMI else
              Event("score", f"{seat_name(p)} scores {score}", p, cards)]
    if not last:
        return dataclasses.replace(state, shown=tuple(shown), turn=state.turn + 1), events
    pay = settle_scores(state.dealer, [score_hand(h) for h in shown], state.bets)
    events += payment_events(pay)
    ledger = add(state.ledger, pay)
    events.append(announcement("round", f"Round {state.round + 1} settled; ledger: "
                               + ", ".join(money(v) for v in ledger)))
    done = state.round + 1 == state.rounds
    nxt = dataclasses.replace(state, ledger=ledger, round=state.round + 1, turn=0,
                              phase="over" if done else "bet", bets=(0,) * state.players,
                              shown=((),) * state.players)
    if done:
        events.append(announcement("game-over", ledger_result(ledger).text))
    return nxt, events


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    return _step(state, move)


def is_over(state: State) -> bool:
    return state.phase == "over"


def result(state: State) -> Result:
    return ledger_result(state.ledger)


def deal_of(state: State) -> dict:
    assert state.hands is not None
    return {"first_dealer": state.options.first_dealer,
            "hands": [[[c.id for c in h] for h in rnd] for rnd in state.hands]}


def public_move(move: Move) -> Move:
    return move  # bets are spoken and hands are revealed face up


def bot_move(state: State, rng) -> Move:
    return rng.choice(legal_moves(state))


def _judge(state: State, move: Move) -> Judgement:
    try:
        nxt, events = _step(state, move)
    except IllegalMoveError as e:
        return Judgement(Verdict.ILLEGAL, e.reason, None)
    return Judgement(Verdict.LEGAL, "", nxt, tuple(events))


class TableReferee(SnapshotReferee):
    """Everything in Komi happens face up (bets are said aloud, all hands are revealed),
    so every move can be judged: only that the revealed cards are really the ones dealt
    is beyond the table, which it approximates by refusing a card seen twice in a round."""

    def __init__(self, players: int, options: Options | None = None):
        super().__init__(_start(players, _check_options(players, options), None), _judge)
