"""Shakti: draw four, discard four, until a hand is a run of 8 or 8 of a rank (seed 003).

"The goal of the game is to use all 8 cards in your hand in a "run" of cards from the same
suit (ie. 2,3,4,5,6,7,8,9 of silver coins) or all 8 cards of the same value such as a Raja
card from each suit. The first player to complete their hand wins."

Seats are numbered counterclockwise; each seat owns one discard pile (``pile1`` is Player
1's). A turn is one ``draw`` of four cards and four ``discard`` moves of one card each (a
camera sees the cards land one at a time). Moves and targets (docs/rulings/shakti.md):

- ``deal`` (the dealer, once): ``cards`` = the four face-up cards that start the piles;
- ``draw``: ``target`` ``deck``, ``tops``, ``bottoms`` (one card from each pile), or
  ``pileN-top`` / ``pileN-bottom`` (four from one pile); ``cards`` = the cards drawn;
- ``discard``: one card, ``target`` ``pileN-top`` / ``pileN-bottom`` / ``deck-bottom``;
- ``show``: a completed hand laid down, which ends the game.

Rulings: *seats*, *deck-draw-discard* (``deck_discard``), *discard-same-end*
(``discard_end``), *run-order* (``run_order``), *complete-after-discard*,
*rebuild-when-short*, *turn-limit* (``max_turns``); see the rulings file.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any

from companion.cards import Card, DeckKind, deck_cards
from companion.games.base import (
    Event,
    IllegalMoveError,
    Move,
    NotYourTurnError,
    OptionsError,
    Result,
    Ruling,
    Verdict,
    announcement,
    check_players,
    check_turn,
    seat_name,
)
from companion.games.shakti_hands import (
    HAND,
    RunOrder,
    _Choice,
    _progress,
    _targets,
    winning,
)

NAME = "shakti"
TITLE = "Shakti"
MIN_PLAYERS = 4
MAX_PLAYERS = 4
DECK = DeckKind.MUGHAL
DRAW = 4
_RANK_OF = {c: i for i, c in enumerate(deck_cards(DeckKind.MUGHAL))}


def _sorted(cards: Any) -> list[Card]:
    """Cards in deck order (suits are not orderable, so ``sorted`` alone cannot)."""
    return sorted(cards, key=_RANK_OF.__getitem__)


class DeckDiscard(_Choice):
    OWN_PILE = "own-pile"
    DECK_BOTTOM = "deck-bottom"


class DiscardEnd(_Choice):
    SAME = "same"  # where the cards were drawn from: top or bottom
    TOP = "top"  # always onto the top


@dataclass(frozen=True)
class Options:
    dealer: int = 3
    run_order: RunOrder = RunOrder.PRINTED
    deck_discard: DeckDiscard = DeckDiscard.OWN_PILE
    discard_end: DiscardEnd = DiscardEnd.SAME
    max_turns: int = 200

    def __post_init__(self) -> None:
        if not isinstance(self.dealer, int) or not 0 <= self.dealer < 4:
            raise OptionsError(f"dealer is a seat 0-3, not {self.dealer!r}")
        if not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise OptionsError(f"max_turns must be at least 1, not {self.max_turns!r}")


@dataclass(frozen=True)
class State:
    options: Options
    deal: tuple[Any, ...]  # (hands, face-up cards, deck, reshuffle seed) as dealt
    hands: tuple[tuple[Card, ...], ...]
    piles: tuple[tuple[Card, ...], ...]  # bottom first, top last
    deck: tuple[Card, ...]  # next card first
    to_move: int
    phase: str = "deal"  # deal, draw, discard, show, over
    pending: tuple[str, ...] = ()  # discard targets still owed this turn
    turns: int = 0
    rebuilds: int = 0
    winner: int | None = None


def new_game(players: int = 4, options: Options | None = None,
             seed: int | None = None) -> State:
    """"Each player is dealt 8 cards one at a time, counterclockwise" from the dealer's
    right, then "a single card face up to start their discard pile"."""
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    options = options or Options()
    rng = random.Random(seed)
    cards = list(deck_cards(DeckKind.MUGHAL))
    rng.shuffle(cards)
    order = [(options.dealer + 1 + i) % 4 for i in range(4)]
    hands: list[list[Card]] = [[] for _ in range(4)]
    for k in range(HAND * 4):
        hands[order[k % 4]].append(cards[k])
    up: list[Any] = [None] * 4
    for k in range(4):
        up[order[k]] = cards[HAND * 4 + k]
    deck = tuple(cards[HAND * 4 + 4:])
    deal = (tuple(map(tuple, hands)), tuple(up), deck, rng.getrandbits(32))
    return State(options, deal, deal[0], ((),) * 4, deck, options.dealer)


def is_over(state: State) -> bool:
    return state.phase == "over"


def current_player(state: State) -> int | None:
    return None if state.phase == "over" else state.to_move


def _pile_index(name: str) -> int | None:
    if name.startswith("pile") and name[4:5].isdigit() and 1 <= int(name[4]) <= 4:
        return int(name[4]) - 1
    return None


def draw_sources(state: State) -> list[tuple[str, tuple[Card, ...]]]:
    """Every way to draw now, with the cards each would take (in drawing order)."""
    piles, out = state.piles, []
    if len(state.deck) >= DRAW:
        out.append(("deck", state.deck[:DRAW]))
    if all(piles):
        out.append(("tops", tuple(p[-1] for p in piles)))
        out.append(("bottoms", tuple(p[0] for p in piles)))
    for i, p in enumerate(piles):
        if len(p) >= DRAW:
            out.append((f"pile{i + 1}-top", tuple(reversed(p[-DRAW:]))))
            out.append((f"pile{i + 1}-bottom", p[:DRAW]))
    return out


def discard_targets(player: int, source: str, options: Options) -> tuple[str, ...]:
    """"discards four cards from their hand to the same location or locations they were
    drawn from" (*deck-draw-discard*, *discard-same-end*)."""
    def end(e: str) -> str:
        return "top" if options.discard_end is DiscardEnd.TOP else e
    if source == "deck":
        if options.deck_discard is DeckDiscard.DECK_BOTTOM:
            return ("deck-bottom",) * DRAW
        return (f"pile{player + 1}-top",) * DRAW
    if source in ("tops", "bottoms"):
        return tuple(f"pile{i + 1}-{end(source[:-1])}" for i in range(4))
    pile, _, e = source.partition("-")
    return (f"{pile}-{end(e)}",) * DRAW


def legal_moves(state: State) -> list[Move]:
    p = state.to_move
    if state.phase == "deal":
        return [Move(p, "deal", state.deal[1])]
    if state.phase == "draw":
        return [Move(p, "draw", cards, target) for target, cards in draw_sources(state)]
    if state.phase == "discard":
        targets = sorted(set(state.pending))
        return [Move(p, "discard", (c,), t) for c in _sorted(state.hands[p]) for t in targets]
    if state.phase == "show":
        return [Move(p, "show", tuple(_sorted(state.hands[p])))]
    return []


def _check(state: State, move: Move) -> None:
    check_turn(None if state.phase == "over" else state.to_move, move)
    want = {"deal": "deal", "draw": "draw", "discard": "discard", "show": "show"}[state.phase]
    if move.action != want:
        raise IllegalMoveError(f"{seat_name(move.player)} must {want} now, "
                               f"not {move.action!r}", move)
    if move.action == "deal" and move.cards != state.deal[1]:
        raise IllegalMoveError("those are not the dealt face-up cards", move)
    if move.action == "draw":
        sources = dict(draw_sources(state))
        if move.target not in sources:
            raise IllegalMoveError(_why_no_draw(state, move.target), move)
        if move.cards != sources[move.target]:
            raise IllegalMoveError(f"those are not the cards at {move.target}", move)
    if move.action == "discard":
        if len(move.cards) != 1 or move.cards[0] not in state.hands[move.player]:
            raise IllegalMoveError("discard one card from your hand at a time", move)
        if move.target not in state.pending:
            raise IllegalMoveError(f"discard to where you drew from: "
                                   f"{', '.join(sorted(set(state.pending)))}", move)
    if move.action == "show" and (len(move.cards) != HAND or
                                  set(move.cards) != set(state.hands[move.player])):
        raise IllegalMoveError("show the whole hand", move)


def _why_no_draw(state: State, target: str) -> str:
    if target == "deck":
        return "the deck has fewer than four cards"
    i = _pile_index(target)
    if target in ("tops", "bottoms"):
        return "a discard pile is empty"
    if i is not None and target[5:] in ("-top", "-bottom"):
        return f"{seat_name(i)}'s pile has fewer than four cards"
    return (f"cannot draw from {target!r}: draw from deck, tops, bottoms, "
            "pileN-top or pileN-bottom")


def _take(state: State, source: str) -> State:
    piles = list(state.piles)
    if source == "deck":
        return replace(state, deck=state.deck[DRAW:])
    if source == "tops":
        piles = [p[:-1] for p in piles]
    elif source == "bottoms":
        piles = [p[1:] for p in piles]
    else:
        i = _pile_index(source)
        piles[i] = piles[i][:-DRAW] if source.endswith("top") else piles[i][DRAW:]
    return replace(state, piles=tuple(piles))


def _put(state: State, card: Card, target: str) -> State:
    if target == "deck-bottom":
        return replace(state, deck=state.deck + (card,))
    i = _pile_index(target)
    piles = list(state.piles)
    piles[i] = piles[i] + (card,) if target.endswith("top") else (card,) + piles[i]
    return replace(state, piles=tuple(piles))


def _rebuild(state: State) -> State:
    """"leave the top card in each discard pile and then all four discard piles are
    shuffled together to form a new deck" (with any cards the short deck still held)."""
    cards = list(state.deck) + [c for p in state.piles for c in p[:-1]]
    random.Random(f"{state.deal[3]}:{state.rebuilds}").shuffle(cards)
    return replace(state, deck=tuple(cards), piles=tuple(p[-1:] for p in state.piles),
                   rebuilds=state.rebuilds + 1)


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    _check(state, move)
    p, events = move.player, []
    if move.action == "deal":
        new = replace(state, piles=tuple((c,) for c in move.cards), phase="draw",
                      to_move=(state.options.dealer + 1) % 4)
        events.append(Event("deal", "8 cards to each player and one face up on each pile",
                            p, move.cards))
        return new, events
    if move.action == "show":
        new = replace(state, phase="over", winner=p)
        return new, [announcement("win", f"{seat_name(p)} wins with "
                                         f"{winning(move.cards, state.options.run_order)}!",
                                  p, move.cards)]
    hands = list(state.hands)
    if move.action == "draw":
        hands[p] = hands[p] + move.cards
        new = replace(_take(state, move.target), hands=tuple(hands), phase="discard",
                      pending=discard_targets(p, move.target, state.options))
        where = "the deck" if move.target == "deck" else move.target
        shown = () if move.target == "deck" else move.cards
        events.append(Event("draw", f"{seat_name(p)} draws four cards from {where}", p, shown))
        return new, events
    card = move.cards[0]
    hands[p] = tuple(c for c in hands[p] if c != card)
    pending = list(state.pending)
    pending.remove(move.target)
    new = replace(_put(state, card, move.target), hands=tuple(hands), pending=tuple(pending))
    events.append(Event("discard", f"{seat_name(p)} discards the {card.name} to "
                                   f"{move.target}", p, (card,)))
    if pending:
        return new, events
    if len(new.deck) < DRAW:
        new = _rebuild(new)
        events.append(announcement("rebuild", "The deck ran out: the discard piles, less "
                                              f"their top cards, form a new deck of "
                                              f"{len(new.deck)}"))
    if winning(new.hands[p], state.options.run_order):
        return replace(new, phase="show"), events
    new = replace(new, phase="draw", turns=new.turns + 1, to_move=(p + 1) % 4)
    if new.turns >= state.options.max_turns:
        new = replace(new, phase="over")
        events.append(announcement("game-over", result(new).text))
    return new, events


def result(state: State) -> Result:
    if state.winner is not None:
        scores = tuple(1.0 if i == state.winner else 0.0 for i in range(4))
        return Result((state.winner,), scores, f"{seat_name(state.winner)} wins")
    return Result((), (0.0,) * 4, f"A draw: no hand completed in {state.turns} turns "
                                  "(ruling turn-limit)")


def deal_of(state: State) -> dict[str, Any]:
    hands, up, deck, reshuffle = state.deal
    return {"hands": [[c.id for c in h] for h in hands], "face_up": [c.id for c in up],
            "deck": [c.id for c in deck], "reshuffle_seed": reshuffle}


def public_move(move: Move) -> Move:
    """Cards drawn from the deck go unseen into a hand; everything else is in view."""
    if move.action == "draw" and move.target == "deck":
        return replace(move, cards=())
    return move


# ---- the bot ---------------------------------------------------------------------------

def bot_move(state: State, rng: random.Random) -> Move:
    """Greedy: draw what helps the fullest target most, keep that target, discard the rest.

    Deck cards and pile bottoms are unknown to a player, so they count as no gain.
    """
    moves = legal_moves(state)
    p, order = state.to_move, state.options.run_order
    if state.phase == "draw":
        hand = state.hands[p]
        now = _progress(hand, order)

        def gain(m: Move) -> float:
            if m.target == "deck" or "bottom" in m.target:
                return 0.5 + rng.random() * 0.1
            return _progress(hand + m.cards, order) - now + rng.random() * 0.1
        return max(moves, key=gain)
    if state.phase == "discard":
        hand = state.hands[p]
        keep: set[Card] = set()
        for t in _targets(hand, order):
            if len(keep) + len(t - keep) <= HAND:
                keep |= t
        spare = [m for m in moves if m.cards[0] not in keep]
        return rng.choice(spare or moves)
    return moves[0]



# ---- the table referee -----------------------------------------------------------------

@dataclass(frozen=True)
class _View:
    """What the table shows: the piles, the deck's size, the cards seen going into hands."""

    piles: tuple[tuple[Card, ...], ...] = ((),) * 4
    deck: int = 96 - 4 * HAND - 4
    known: tuple[frozenset[Card], ...] = (frozenset(),) * 4
    to_move: int = 0
    phase: str = "deal"  # deal, draw, discard, over
    pending: tuple[str, ...] = ()
    turns: int = 0
    may_show: int | None = None  # who just finished a turn and may lay down a hand


class TableReferee:
    """Judges public moves: hands are hidden, so a deck draw's cards are unknown; pile
    draws, discards and a shown hand are checked against every card the table has shown."""

    def __init__(self, players: int = 4, options: Options | None = None):
        check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
        self.options = options or Options()
        self._views = [_View(to_move=self.options.dealer)]

    def undo(self) -> None:
        if len(self._views) > 1:
            self._views.pop()

    def observe(self, move: Move) -> Ruling:
        try:
            view, events = self._judge(self._views[-1], move)
        except IllegalMoveError as e:
            return Ruling(move, Verdict.ILLEGAL, e.reason)
        self._views.append(view)
        return Ruling(move, Verdict.LEGAL, "", tuple(events))

    def _judge(self, v: _View, move: Move) -> tuple[_View, list[Event]]:
        p, opts = move.player, self.options
        if move.action == "show" and p == v.may_show:
            return self._show(v, move)
        if v.phase == "over":
            raise IllegalMoveError("the game is over", move)
        if p != v.to_move:
            raise NotYourTurnError(f"it is {seat_name(v.to_move)}'s turn, "
                                   f"not {seat_name(p)}'s", move)
        if v.phase == "deal":
            if move.action != "deal" or len(set(move.cards)) != 4:
                raise IllegalMoveError("the dealer first lays four cards face up", move)
            return replace(v, piles=tuple((c,) for c in move.cards), phase="draw",
                           to_move=(opts.dealer + 1) % 4), []
        if v.phase == "draw":
            return self._draw(v, move)
        if move.action != "discard" or len(move.cards) != 1:
            raise IllegalMoveError("discard one card at a time", move)
        card = move.cards[0]
        if move.target not in v.pending:
            raise IllegalMoveError(f"discard to where you drew from: "
                                   f"{', '.join(sorted(set(v.pending)))}", move)
        self._unseen(v, p, move.cards, move)
        pending = list(v.pending)
        pending.remove(move.target)
        piles, deck = list(v.piles), v.deck
        i = _pile_index(move.target)
        if i is None:
            deck += 1
        else:
            piles[i] = piles[i] + (card,) if move.target.endswith("top") else (
                (card,) + piles[i])
        known = tuple(k - {card} for k in v.known)
        v = replace(v, piles=tuple(piles), deck=deck, known=known, pending=tuple(pending))
        if pending:
            return v, []
        if deck < DRAW:  # *rebuild-when-short*, as the engine does
            deck += sum(len(pl) - 1 for pl in piles)
            v = replace(v, piles=tuple(pl[-1:] for pl in piles), deck=deck)
        turns = v.turns + 1
        phase = "over" if turns >= opts.max_turns else "draw"
        return replace(v, phase=phase, turns=turns, to_move=(p + 1) % 4, may_show=p), []

    def _draw(self, v: _View, move: Move) -> tuple[_View, list[Event]]:
        p = move.player
        if move.action != "draw":
            raise IllegalMoveError(f"{seat_name(p)} must draw now", move)
        probe = State(self.options, (), (), v.piles, (None,) * v.deck, p)  # type: ignore
        sources = dict(draw_sources(probe))
        if move.target not in sources:
            raise IllegalMoveError(_why_no_draw(probe, move.target), move)
        known = list(v.known)
        if move.target != "deck":
            if move.cards != sources[move.target]:
                raise IllegalMoveError(f"those are not the cards at {move.target}", move)
            known[p] = known[p] | set(move.cards)
        elif move.cards and len(move.cards) != DRAW:
            raise IllegalMoveError("a draw is four cards", move)
        taken = _take(probe, move.target)
        return replace(v, piles=taken.piles, deck=len(taken.deck), known=tuple(known),
                       phase="discard", may_show=None,
                       pending=discard_targets(p, move.target, self.options)), []

    def _show(self, v: _View, move: Move) -> tuple[_View, list[Event]]:
        p = move.player
        what = winning(move.cards, self.options.run_order)
        if not what:
            raise IllegalMoveError("that hand is not a run of 8 in one suit or 8 of a rank",
                                   move)
        self._unseen(v, p, move.cards, move)
        missing = v.known[p] - set(move.cards)
        if missing:
            raise IllegalMoveError(f"{seat_name(p)} was seen taking the "
                                   f"{_sorted(missing)[0].name}, which is not shown", move)
        win = announcement("win", f"{seat_name(p)} wins with {what}!", p, move.cards)
        return replace(v, phase="over", may_show=None), [win]

    @staticmethod
    def _unseen(v: _View, p: int, cards: tuple[Card, ...], move: Move) -> None:
        on_piles = {c for pl in v.piles for c in pl}
        for c in cards:
            if c in on_piles:
                raise IllegalMoveError(f"the {c.name} is on a discard pile", move)
            for q, k in enumerate(v.known):
                if q != p and c in k:
                    raise IllegalMoveError(f"the {c.name} is in {seat_name(q)}'s hand", move)
