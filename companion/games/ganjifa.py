"""Ganjifa with Denis: the trick game of the Dashavatara (or Mughal) deck, 3-4 players.

Rule book: seed ``dashavatara-ganjifa-deni.txt`` (Adrian Morgan's rules for the Guru
Ganjifa deck). Each rule is quoted where it is enforced; rulings are named in italics and
listed with their options in ``docs/rulings/ganjifa.md``.

Moves (one per thing a player puts down; the camera sees each card land):

- ``show``      the face-up first and last batches (option ``face_up_deal``)
- ``lead``      the leading Raja, or an unbeatable card
- ``deni``      cards (low, high): the low card led and the high card exposed at once
- ``sacrifice`` the leader's highest card of a suit, when they have no unbeatable card
- ``pass``      the lead passes to the right (no card)
- ``follow``    one card added to the trick
- ``double``    cards (called, one-below): the called-for card and the card that doubles

The state is immutable: undo is keeping the previous state.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from companion.cards import Card, DeckKind, Suit, deck_cards
from companion.games.base import (
    IllegalMoveError,
    Move,
    OptionsError,
    Result,
    check_turn,
    make_rng,
    seat_name,
)
from companion.games.ganjifa_referee import TableReferee, Tracker, track
from companion.games.ganjifa_table import (
    Kind,
    Options,
    Phase,
    Rules,
    Table,
    advance,
    new_table,
    result_of,
    rules_for,
)

__all__ = [
    "DECK",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NAME",
    "TITLE",
    "Options",
    "State",
    "TableReferee",
    "Tracker",
    "apply",
    "bot_move",
    "current_player",
    "deal_of",
    "deni_cards",
    "is_over",
    "legal_moves",
    "new_game",
    "position",
    "public_move",
    "result",
    "track",
    "unbeatable",
]

NAME = "ganjifa"
TITLE = "Ganjifa with Denis"
MIN_PLAYERS = 3
MAX_PLAYERS = 4
DECK = DeckKind.DASHAVATARA


@dataclass(frozen=True)
class State:
    table: Table
    hands: tuple[frozenset[Card], ...]
    dealt: tuple[tuple[Card, ...], ...]  # each hand in the order it was dealt
    face_up: tuple[tuple[Card, ...], ...]

    @property
    def rules(self) -> Rules:
        return self.table.rules


def _rules(players: int, options: Options | None) -> Rules:
    if options is None:
        options = Options()
    if not isinstance(options, Options):
        raise OptionsError(f"options must be ganjifa.Options, not {type(options).__name__}")
    return rules_for(options, players)


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    """Shuffle with ``random.Random(seed)`` and deal.

    "The cards are dealt to the players in batches of 4 until all cards are dealt. In a
    4-player game, the last 8 cards are dealt in batches of 2." Ruling *dealer*: seat n-1
    deals, so seat 0, on the dealer's right, receives the first batch.
    """
    rules = _rules(players, options)
    cards = list(deck_cards(rules.options.deck))
    make_rng(seed).shuffle(cards)
    batches = [4] * (len(cards) // 4 // players) * players
    if players == 4:
        batches = [4] * 28 + [2] * 4
    hands: list[list[Card]] = [[] for _ in range(players)]
    first: list[tuple[Card, ...]] = [() for _ in range(players)]
    last: list[tuple[Card, ...]] = [() for _ in range(players)]
    pos = 0
    for i, size in enumerate(batches):
        seat = i % players
        batch = tuple(cards[pos:pos + size])
        pos += size
        hands[seat].extend(batch)
        if not first[seat]:
            first[seat] = batch
        last[seat] = batch
    assert pos == len(cards)
    face_up = tuple(first[s] + last[s] for s in range(players)) \
        if rules.options.face_up_deal else ()
    return State(new_table(rules), tuple(frozenset(h) for h in hands),
                 tuple(tuple(h) for h in hands), face_up)


def position(hands: list[list[Card]] | tuple, leader: int, options: Options | None = None,
             won: tuple[int, ...] | None = None) -> State:
    """A mid-game position (like a chess FEN) for examples and tests: ``leader`` to lead,
    every card not in a hand already played and counted in ``won`` (default: seat 0)."""
    players = len(hands)
    rules = _rules(players, options)
    held = [frozenset(h) for h in hands]
    if sum(map(len, held)) != len(frozenset().union(*held)):
        raise ValueError("a card is in two hands")
    if len({len(h) for h in held}) != 1:
        raise ValueError("every hand holds the same number of cards in this game")
    played = rules.cards - frozenset().union(*held)
    won = won or (len(played),) + (0,) * (players - 1)
    if sum(won) != len(played):
        raise ValueError("won cards must add up to the cards played")
    table = replace(new_table(rules), phase=Phase.LEAD, leader=leader, played=played, won=won,
                    hand_sizes=tuple(len(h) for h in held))
    return State(table, tuple(held), tuple(tuple(rules.sort(h)) for h in held), ())


def current_player(state: State) -> int | None:
    t = state.table
    if t.phase is Phase.OPENING:
        return next(s for s, h in enumerate(state.hands) if t.rules.leading in h)
    return t.current


def is_over(state: State) -> bool:
    return state.table.phase is Phase.OVER


def unbeatable(rules: Rules, played: frozenset[Card], hand: frozenset[Card]) -> list[Card]:
    """ "A card is "unbeatable" if all higher cards in the suit have already been played, or
    if the player who holds that card also holds all remaining higher cards in the suit."

    Per suit, the holder's cards above the first unplayed card held by someone else;
    highest first."""
    out = []
    for suit in rules.suits:
        for c in rules.order[suit]:
            if c in played:
                continue
            if c not in hand:
                break
            out.append(c)
    return out


def deni_cards(rules: Rules, played: frozenset[Card], hand: frozenset[Card]
               ) -> list[tuple[Card, Card]]:
    """(high, called) pairs the holder may give a Deni on, if they hold a lower card.

    "the player must have a card that can only be beaten by the next unplayed card up in
    rank, any still higher cards in the suit either having already been played or being
    held by the same player." Option ``deni="traditional"``: "the card must be the
    second-highest unplayed card" of its suit.
    """
    traditional = rules.options.deni == "traditional"
    out = []
    for suit in rules.suits:
        called = None
        own_above = False
        for c in rules.order[suit]:
            if c in played:
                continue
            if called is None:
                if c in hand:
                    own_above = True
                    continue
                called = c
                continue
            if c in hand and not (traditional and own_above):
                out.append((c, called))
            break
    return out


def legal_moves(state: State) -> list[Move]:
    t, hands = state.table, state.hands
    p = current_player(state)
    if p is None:
        return []
    hand = hands[p]
    if t.phase is Phase.SHOW:
        return [Move(p, "show", state.face_up[p])]
    if t.phase is Phase.OPENING:
        return [Move(p, "lead", (t.rules.leading,))]
    if t.phase is Phase.FOLLOW:
        return [Move(p, "follow" if len(c) == 1 else "double", c)
                for c in _follow_options(t, p, hand)]
    return _lead_options(t, p, hand)


def _follow_options(t: Table, p: int, hand: frozenset[Card]) -> list[tuple[Card, ...]]:
    d = t.deni
    if t.kind is Kind.DENI and d is not None:
        if p == d.giver:
            # "the player who originally led must play another card of the same suit"
            return [(c,) for c in t.rules.sort(hand) if c.suit is d.high.suit]
        if d.called in hand:
            # "The player with the called-for card must play it (and take the lead) ...
            # If [they] also happen to have the card in the same suit that is one rank
            # lower than the leading player's revealed high card, they may play that card
            # as well"
            opts = [(d.called,)]
            if d.doubled_by is None and d.double_card in hand:
                opts.append((d.called, d.double_card))
            return opts
    if t.kind is Kind.SACRIFICE and t.target in hand:
        # "The player with the highest card in that suit must play it and take the lead"
        return [(t.target,)]
    # "It is not necessary to follow suit"
    return [(c,) for c in t.rules.sort(hand)]


def _lead_options(t: Table, p: int, hand: frozenset[Card]) -> list[Move]:
    rules = t.rules
    unb = unbeatable(rules, t.played, hand)
    moves = [Move(p, "lead", (c,)) for c in unb]
    per_suit: dict[Suit, int] = {}
    for c in unb:
        per_suit[c.suit] = per_suit.get(c.suit, 0) + 1
    # "The player currently leading must play all of their unbeatable cards except for the
    # lowest unbeatable card in each suit." Ruling *lead-order*: in any order.
    if any(k > 1 for k in per_suit.values()):
        return moves
    # "After playing as above ... the player may then perform a move known as giving a Deni"
    # and "must also have a lower-ranked card in the same suit".
    for high, _called in deni_cards(rules, t.played, hand):
        o = rules.order[high.suit]
        for low in o[o.index(high) + 1:]:
            if low in hand:
                moves.append(Move(p, "deni", (low, high)))
    if unb:
        # "A player who is unable to give a Deni must now lead all of their remaining
        # unbeatable cards." Ruling *deni-optional*: declining is the same as being unable.
        return moves
    if t.led_this_turn:
        # "After they have won these tricks, the lead automatically passes to the player on
        # the right." Ruling *turn*: once the leader has led unbeatable cards this turn.
        moves.append(Move(p, "pass"))
    else:
        # "If the player has no unbeatable cards, they must play their highest card in a
        # suit of their choice."
        for suit in rules.suits:
            top = next((c for c in rules.order[suit] if c in hand), None)
            if top is not None:
                moves.append(Move(p, "sacrifice", (top,)))
    return moves


def apply(state: State, move: Move) -> tuple[State, list]:
    p = check_turn(None if is_over(state) else current_player(state), move)
    if not _is_legal(state, move):
        raise IllegalMoveError(_why(state, move), move)
    table, events = advance(state.table, move)
    gone = frozenset(move.cards[:1]) if move.action == "deni" else frozenset(move.cards)
    if move.action == "show":
        gone = frozenset()
    hands = state.hands[:p] + (state.hands[p] - gone,) + state.hands[p + 1:]
    return replace(state, table=table, hands=hands), events


def _is_legal(state: State, move: Move) -> bool:
    t = state.table
    if t.phase is Phase.FOLLOW and move.action == "follow" and len(move.cards) == 1:
        # Fast path for the commonest move: an unconstrained card to the trick.
        hand = state.hands[move.player]
        d = t.deni
        free = not (t.kind is Kind.DENI and d is not None
                    and (move.player == d.giver or d.called in hand)) \
            and not (t.kind is Kind.SACRIFICE and t.target in hand)
        if free:
            return move.cards[0] in hand and not move.target
    return move in legal_moves(state)


def _why(state: State, move: Move) -> str:
    """The reason, in a player's words, that ``move`` is not among the legal moves."""
    t, hand = state.table, state.hands[move.player]
    missing = [c for c in move.cards if c not in hand]
    if missing:
        return f"{seat_name(move.player)} does not hold the {missing[0].name}"
    a = move.action
    if t.phase is Phase.OPENING:
        return f"the game opens with the leading Raja, the {t.rules.leading.name}"
    if t.phase is Phase.FOLLOW:
        if a in ("lead", "deni", "sacrifice", "pass"):
            return "the trick is not complete: each player plays one card for each card led"
        d = t.deni
        if d is not None and move.player == d.giver:
            return f"the Deni-giver must play another {d.high.suit.title} card"
        if d is not None and d.called in hand:
            return f"the {d.called.name} is called for by the Deni and must be played"
        if t.target is not None and t.target in hand:
            return f"the {t.target.name}, the highest of its suit, must be played"
        return "that is not a card that can be played here"
    unb = unbeatable(t.rules, t.played, hand)
    if a == "lead":
        return f"the {move.cards[0].name} is not unbeatable"
    if a in ("deni", "sacrifice", "pass") and any(
            sum(1 for u in unb if u.suit is c.suit) > 1 for c in unb):
        return "all unbeatable cards except the lowest in each suit must be led first"
    if a == "deni":
        return "no Deni: the high card must be beatable only by the next unplayed card up, " \
               "with a lower card of the suit led"
    if unb:
        return "a leader who gives no Deni must lead all their remaining unbeatable cards"
    if a == "pass":
        return "with no unbeatable card led this turn, the leader must give up their " \
               "highest card in a suit"
    if a == "sacrifice":
        if t.led_this_turn:
            return "after leading unbeatable cards the lead passes to the right"
        return "the leader must give up their highest card in the chosen suit"
    return f"unknown action {a!r}"


def result(state: State) -> Result:
    """ "The game is won by the player who wins the most cards in tricks." """
    won = state.table.won
    winners, text = result_of(won)
    return Result(winners, tuple(float(w) for w in won), text)


def deal_of(state: State) -> dict[str, Any]:
    d: dict[str, Any] = {"hands": [[c.id for c in h] for h in state.dealt]}
    if state.face_up:
        d["face_up"] = [[c.id for c in h] for h in state.face_up]
    return d


def public_move(move: Move) -> Move:
    """Every card in this game is put down face up (the Deni card is exposed on purpose),
    so the table sees every move whole."""
    return move


def bot_move(state: State, rng: random.Random) -> Move:
    """A bot that gives and doubles Denis whenever it can, so that simulated games use
    every rule; otherwise it keeps its high cards and discards low ones."""
    moves = legal_moves(state)
    if len(moves) == 1:
        return moves[0]
    t = state.table
    if t.phase is Phase.FOLLOW:
        doubles = [m for m in moves if m.action == "double"]
        if doubles:
            return doubles[0]
        power = t.rules.power
        # Discard the lowest card of some suit; now and then a random one.
        if rng.random() < 0.2:
            return rng.choice(moves)
        lowest: dict[Suit, Move] = {}
        for m in moves:
            c = m.cards[0]
            if c.suit not in lowest or power[c] < power[lowest[c.suit].cards[0]]:
                lowest[c.suit] = m
        return rng.choice([lowest[s] for s in t.rules.suits if s in lowest])
    leads = [m for m in moves if m.action == "lead"]
    denis = [m for m in moves if m.action == "deni"]
    if denis and (not leads or rng.random() < 0.8):
        return rng.choice(denis)
    if leads:
        return rng.choice(leads)
    return rng.choice(moves)
