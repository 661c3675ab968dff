"""Sama (3-6 players): two cards down, one doubled card up, one exchange, highest total wins.

Seed 003: "The dealer deals two cards face down and one card face up to each player, one
at a time and counterclockwise starting with the player to the right of the dealer." "The
player then doubles the value of the face up card." "Each player then has the opportunity,
one at a time and in counterclockwise order, to exchange either the face up card or both
face down cards. This action can be done only once during the round." "the player with the
highest score wins that round." "Face cards are worth 11 for the Vizier and 12 for the Raja
whether face up or down." "Sama can be played as a betting game or by comparing the number
of rounds each player has won."

Pure scoring for the dashboard: ``hand_value(down, up)``, ``round_winners(totals)`` and
``settle(totals, stake)``.

Moves: ``deal`` (the dealer; cards: the face-up cards in dealing order), then per player
from the dealer's right ``stand``, ``exchange`` target ``up`` (cards: the old face-up card,
then its face-up replacement) or ``exchange`` target ``down`` (cards: the two old, then the
two new face-down cards; the table sees none of them), then ``reveal`` (cards: the two
face-down cards, then the face-up card). Rulings in ``docs/rulings/sama.md``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from companion.cards import Card, DeckKind, deck_cards
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
    ledger_result,
    payment_events,
    pot_split,
    resolve_rounds,
)

NAME = "sama"
TITLE = "Sama"
MIN_PLAYERS = 3
MAX_PLAYERS = 6
DECK = DeckKind.MUGHAL
SCORINGS = ("stakes", "rounds")


@dataclass(frozen=True)
class Options:
    rounds: int = 0  # 0: one round per player
    scoring: str = "stakes"  # ruling sama-scoring: "stakes" (pot) or "rounds" (rounds won)
    stake: int = 1
    first_dealer: int = -1  # -1: "The dealer is chosen randomly" (by the seed)

    def __post_init__(self) -> None:
        if not -1 <= self.first_dealer < MAX_PLAYERS:
            raise OptionsError("first_dealer must be -1 (random) or a seat number")
        if self.rounds < 0:
            raise OptionsError("rounds must be 0 (one per player) or more")
        if self.scoring not in SCORINGS:
            raise OptionsError(f"scoring must be one of {', '.join(SCORINGS)}")
        if self.stake < 1:
            raise OptionsError("the stake must be at least 1")


# ---- pure scoring ---------------------------------------------------------------------

def card_value(card: Card) -> int:
    """Pips; "Face cards are worth 11 for the Vizier and 12 for the Raja." """
    return int(card.rank)


def hand_value(down: Sequence[Card], up: Card) -> int:
    """The two face-down cards plus twice the face-up card."""
    if len(down) != 2:
        raise ValueError(f"a Sama hand has two face-down cards, not {len(down)}")
    return card_value(down[0]) + card_value(down[1]) + 2 * card_value(up)


def round_winners(totals: Sequence[int]) -> tuple[int, ...]:
    best = max(totals)
    return tuple(s for s, t in enumerate(totals) if t == best)


def settle(totals: Sequence[int], stake: int = 1) -> tuple[Fraction, ...]:
    """Betting game (ruling *sama-scoring*): every player antes ``stake``, the highest
    total takes the pot, tied totals share it (ruling *sama-tie*). Sums to zero."""
    return pot_split(round_winners(totals), len(totals), stake)


# ---- the game -------------------------------------------------------------------------

@dataclass(frozen=True)
class State:
    players: int
    options: Options
    rounds: int
    first_dealer: int
    decks: tuple[tuple[Card, ...], ...] | None  # per round; None: the table's view
    round: int = 0
    phase: str = "deal"  # deal | exchange | reveal | over
    turn: int = 0
    up: tuple[Card | None, ...] = ()
    down: tuple[tuple[Card, ...], ...] = ()  # unknown to the table: ()
    stock: int = 0  # index of the next stock card in this round's deck
    seen: frozenset[Card] = frozenset()  # cards the table has seen this round
    totals: tuple[int | None, ...] = ()
    ledger: tuple[Fraction, ...] = ()

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.round) % self.players


def _check_options(players: int, options: Options | None) -> Options:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    o = options or Options()
    if not -1 <= o.first_dealer < players:
        raise OptionsError(f"first_dealer must be -1 (random) or a seat 0..{players - 1}")
    return o


def _fresh_round(state: State) -> State:
    n = state.players
    return dataclasses.replace(state, phase="deal", turn=0, up=(None,) * n, down=((),) * n,
                               stock=3 * n, seen=frozenset(), totals=(None,) * n)


def _start(players: int, o: Options, first_dealer: int, decks) -> State:
    s = State(players, o, resolve_rounds(o.rounds, players), first_dealer, decks,
              ledger=(Fraction(0),) * players)
    return _fresh_round(s)


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    o = _check_options(players, options)
    rng = make_rng(seed)
    first = o.first_dealer if o.first_dealer >= 0 else rng.randrange(players)
    decks = []
    for _ in range(resolve_rounds(o.rounds, players)):
        deck = list(deck_cards(DECK))
        rng.shuffle(deck)
        decks.append(tuple(deck))
    return _start(players, o, first, tuple(decks))


def _dealt(state: State) -> tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...]]:
    """(face-down pairs per seat, face-up cards in dealing order): "one at a time"; ruling
    *sama-deal*: the first two passes face down, the third face up."""
    assert state.decks is not None
    deck, n = state.decks[state.round], state.players
    order = after_dealer(state.dealer, n)
    down = [() for _ in range(n)]
    for k in range(2 * n):
        down[order[k % n]] += (deck[k],)
    return tuple(down), deck[2 * n:3 * n]


def current_player(state: State) -> int | None:
    if state.phase == "over":
        return None
    if state.phase == "deal":
        return state.dealer
    return after_dealer(state.dealer, state.players)[state.turn]


def legal_moves(state: State) -> list[Move]:
    p = current_player(state)
    if p is None:
        return []
    if state.phase == "deal":
        return [Move(p, "deal", _dealt(state)[1])]
    if state.phase == "exchange":
        assert state.decks is not None
        deck, k, up = state.decks[state.round], state.stock, state.up[p]
        return [Move(p, "stand"), Move(p, "exchange", (up, deck[k]), "up"),
                Move(p, "exchange", state.down[p] + deck[k:k + 2], "down")]
    return [Move(p, "reveal", state.down[p] + (state.up[p],))]


def _step(state: State, move: Move) -> tuple[State, list[Event]]:
    p = check_turn(current_player(state), move)
    known = state.decks is not None
    if known and move not in legal_moves(state):
        raise IllegalMoveError(f"{seat_name(p)} cannot do that now ({_expected(state)}, "
                               "with the cards dealt)", move)
    n, order = state.players, after_dealer(state.dealer, state.players)
    last = state.turn == n - 1
    if state.phase == "deal":
        if move.action != "deal" or len(move.cards) != n or len(set(move.cards)) != n:
            raise IllegalMoveError(f"the dealer deals one face-up card to each of the {n} "
                                   "players", move)
        up = [None] * n
        for seat, card in zip(order, move.cards):
            up[seat] = card
        down = _dealt(state)[0] if known else state.down
        text = "Face up: " + ", ".join(f"{seat_name(s)} {up[s].name}" for s in order)
        return (dataclasses.replace(state, phase="exchange", up=tuple(up), down=down,
                                    seen=frozenset(move.cards)), [Event("deal", text)])
    if state.phase == "exchange":
        up, down, seen, stock = list(state.up), list(state.down), state.seen, state.stock
        if move.action == "stand" and not move.cards:
            events = [Event("stand", f"{seat_name(p)} keeps the hand", p)]
        elif move.action == "exchange" and move.target == "up":
            if len(move.cards) != 2 or move.cards[0] != up[p] or move.cards[1] in seen:
                raise IllegalMoveError(f"an exchange of the face-up card shows "
                                       f"{up[p].name} going and a new card coming", move)
            up[p], stock, seen = move.cards[1], stock + 1, seen | {move.cards[1]}
            events = [Event("exchange", f"{seat_name(p)} exchanges {move.cards[0].name} for "
                            f"{move.cards[1].name}, face up", p, move.cards)]
        elif move.action == "exchange" and move.target == "down":
            if known:
                down[p] = move.cards[2:]
            stock += 2
            events = [Event("exchange", f"{seat_name(p)} exchanges both face-down cards", p)]
        else:
            raise IllegalMoveError(f"{seat_name(p)} may stand or exchange (up or down), once",
                                   move)
        return (dataclasses.replace(state, up=tuple(up), down=tuple(down), seen=seen,
                                    stock=stock, phase="reveal" if last else "exchange",
                                    turn=0 if last else state.turn + 1), events)
    cards = move.cards
    if move.action != "reveal" or len(cards) != 3 or len(set(cards)) != 3:
        raise IllegalMoveError(f"{seat_name(p)} must reveal two face-down cards and the "
                               "face-up card", move)
    if cards[2] != state.up[p]:
        raise IllegalMoveError(f"{seat_name(p)}'s face-up card is {state.up[p].name}", move)
    shown_before = set(cards[:2]) & state.seen
    if shown_before:
        names = ', '.join(c.name for c in sorted(shown_before, key=str))
        raise IllegalMoveError(f"{names} was "
                               "already seen elsewhere this round", move)
    total = hand_value(cards[:2], cards[2])
    totals = list(state.totals)
    totals[p] = total
    events = [Event("score", f"{seat_name(p)}: {card_value(cards[0])} + "
                    f"{card_value(cards[1])} + 2 x {card_value(cards[2])} = {total}", p, cards)]
    seen = state.seen | set(cards[:2])
    if not last:
        return dataclasses.replace(state, totals=tuple(totals), seen=seen,
                                   turn=state.turn + 1), events
    won = round_winners(totals)
    names = " and ".join(seat_name(s) for s in won)
    events.append(announcement("round-winner", f"{names} win{'s' * (len(won) == 1)} "
                               f"round {state.round + 1} with {totals[won[0]]}"))
    if state.options.scoring == "stakes":
        pay = pot_split(won, n, state.options.stake)
        events += payment_events(pay)
    else:
        pay = tuple(Fraction(int(s in won)) for s in range(n))
    ledger = add(state.ledger, pay)
    done = state.round + 1 == state.rounds
    nxt = dataclasses.replace(state, ledger=ledger, round=state.round + 1,
                              phase="over" if done else "deal")
    if done:
        events.append(announcement("game-over", result(nxt).text))
        return nxt, events
    return _fresh_round(nxt), events


def bot_move(state: State, rng) -> Move:
    """A plain player for ``simulate``: it looks only at its own cards and exchanges
    where the expected gain is positive (an unseen card is worth 6.5 on average)."""
    moves = legal_moves(state)
    if state.phase != "exchange" or rng.random() < 0.1:
        return rng.choice(moves) if state.phase == "exchange" else moves[0]
    p = current_player(state)
    gain_up = 2 * (6.5 - card_value(state.up[p]))
    gain_down = 13 - sum(card_value(c) for c in state.down[p])
    if max(gain_up, gain_down) <= 0:
        return moves[0]
    return moves[1] if gain_up >= gain_down else moves[2]


def _expected(state: State) -> str:
    return {"deal": "the dealer deals first", "exchange": "stand or exchange, once",
            "reveal": "reveal the three cards"}.get(state.phase, "the game is over")


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    return _step(state, move)


def is_over(state: State) -> bool:
    return state.phase == "over"


def result(state: State) -> Result:
    what = "net stakes" if state.options.scoring == "stakes" else "rounds won"
    return ledger_result(state.ledger, what)


def deal_of(state: State) -> dict:
    assert state.decks is not None
    return {"first_dealer": state.first_dealer,
            "decks": [[c.id for c in d] for d in state.decks]}


def public_move(move: Move) -> Move:
    """An exchange of the face-down cards happens unseen."""
    if move.action == "exchange" and move.target == "down":
        return Move(move.player, move.action, (), move.target)
    return move


def _judge(state: State, move: Move) -> Judgement:
    try:
        nxt, events = _step(state, public_move(move))
    except IllegalMoveError as e:
        return Judgement(Verdict.ILLEGAL, e.reason, None)
    return Judgement(Verdict.LEGAL, "", nxt, tuple(events))


class TableReferee(SnapshotReferee):
    """Sees the face-up deal and exchanges, and every hand at the reveal: it checks that
    the revealed face-up card is the one on the table and that no card shows up twice.
    Which cards went under in a face-down exchange it cannot see, and does not need to.
    The first dealer is chosen at the table; the referee takes the first ``deal`` move's
    player as the dealer when the option leaves it random."""

    def __init__(self, players: int, options: Options | None = None):
        o = _check_options(players, options)
        self._players, self._o = players, o
        super().__init__(_start(players, o, max(o.first_dealer, 0), None), self._judge_first)

    def _judge_first(self, state: State, move: Move) -> Judgement:
        if (self._o.first_dealer < 0 and state.round == 0 and state.phase == "deal"
                and move.action == "deal" and 0 <= move.player < self._players):
            state = dataclasses.replace(state, first_dealer=move.player)
        return _judge(state, move)
