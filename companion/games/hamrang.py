"""Hamrang (4 players): tricks of two cards each, led from a suit with a face card.

Seed 003: "each player draws the top card from deck, the player with the highest card goes
first." "The starting player then deals the cards, four at a time and counter-clockwise,
until each player has 24 cards." "If you are playing during the day, the first player is
the one that has the Raja of Surya (green). If playing at night, it is the Raja of Chandra."
"Round 1: The first player begins by playing ... the Raja of Surya or Chandra. She then
plays the lowest card in her hand from the same suit. If she has other cards from the same
suit the lowest card from any other suit may be substituted." "The other three players then
play their highest and lowest cards from the Surya ... If no Surya (or Chandra) cards are
available the player may substitute the highest or lowest card from a different suit."
"ROUND 2 AND BEYOND: The lead player must pick a suit in which she has a face card and play
her highest and lowest card of that suit substituting the lowest from another suit if
needed." "The player who played the highest card of the leading suit wins the trick."
"If a player has no face cards left she is out of the game." "At the end, the player who
took the most tricks wins the game."

Moves: ``play`` (two cards; a lead names the high card of the lead suit first) and ``out``
(a player without face cards drops out). Rulings: ``docs/rulings/hamrang.md``.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

from companion.cards import Card, DeckKind, RankOrder, Suit, deck_cards, strength
from companion.games import trick_common
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
from companion.games.showdown import Judgement, SnapshotReferee
from companion.games.trick_common import (
    Claim,
    highest,
    judge_claims,
    lowest,
    open_claims,
    trick_winner,
    tricks_result,
    void,
)

NAME = "hamrang"
TITLE = "Hamrang"
MIN_PLAYERS = 4
MAX_PLAYERS = 4
DECK = DeckKind.MUGHAL
HAND = 24
LONE = ("play-out", "stop")


@dataclass(frozen=True)
class Options:
    time_of_day: str = "day"  # day: the Raja of Surya leads; night: the Raja of Chandra
    rank_order: RankOrder = RankOrder.STRAIGHT  # ruling rank-order
    lone_player: str = "play-out"  # ruling hamrang-last-player

    def __post_init__(self) -> None:
        if self.time_of_day not in ("day", "night"):
            raise OptionsError("time_of_day is day (Raja of Surya) or night (Raja of Chandra)")
        if self.lone_player not in LONE:
            raise OptionsError(f"lone_player must be one of {', '.join(LONE)}")


def leading_raja(options: Options) -> Card:
    return trick_common.leading_raja(options.time_of_day)


@dataclass(frozen=True)
class State:
    options: Options
    hands: tuple[tuple[Card, ...], ...] | None  # None: the table's view
    counts: tuple[int, ...]
    leader: int  # -1 until the table sees the Raja led
    out: tuple[bool, ...] = (False,) * 4
    first_trick: bool = True
    trick: tuple[tuple[int, Card], ...] = ()
    to_play: tuple[int, ...] = ()
    tricks: tuple[int, ...] = (0,) * 4
    won: tuple[int, ...] = (0,) * 4
    over: bool = False
    seen: frozenset[Card] = frozenset()
    claims: tuple[Claim, ...] = ()
    step: int = 0
    deal: dict | None = None  # the seeded draw and deal, for the record

    @property
    def lead_suit(self) -> Suit | None:
        return self.trick[0][1].suit if self.trick else None


def _check_options(players: int, options: Options | None) -> Options:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    return options or Options()


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    """The seeded random step: who shuffles, the draw for the deal, the reshuffle, the deal
    "four at a time and counter-clockwise" from the dealer's right (ruling *hamrang-deal*)."""
    o = _check_options(players, options)
    rng = make_rng(seed)
    deck = list(deck_cards(DECK))
    rng.shuffle(deck)
    shuffler = rng.randrange(4)
    draws, contenders = [], [(shuffler + i) % 4 for i in range(4)]
    while len(contenders) > 1:  # ruling hamrang-draw-ties: the tied players draw again
        drawn = [(s, deck.pop()) for s in contenders]
        draws += drawn
        top = max(strength(c, o.rank_order) for _, c in drawn)
        contenders = [s for s, c in drawn if strength(c, o.rank_order) == top]
    dealer = contenders[0]
    deck = list(deck_cards(DECK))
    rng.shuffle(deck)
    hands = [[] for _ in range(4)]
    for packet in range(len(deck) // 4):
        hands[(dealer + 1 + packet) % 4] += deck[4 * packet:4 * packet + 4]
    hands_t = tuple(tuple(sorted(h, key=str)) for h in hands)
    leader = next(s for s, h in enumerate(hands_t) if leading_raja(o) in h)
    deal = {"shuffler": shuffler, "draws": [[s, c.id] for s, c in draws], "dealer": dealer,
            "hands": [[c.id for c in h] for h in hands_t]}
    return State(o, hands_t, (HAND,) * 4, leader, deal=deal)


def current_player(state: State) -> int | None:
    if state.over or state.leader < 0:
        return None
    return state.to_play[0] if state.trick else state.leader


def _extremes(cards: list[Card], order: RankOrder) -> list[Card]:
    return list(dict.fromkeys([highest(cards, order), lowest(cards, order)]))


def _by_suit(hand: tuple[Card, ...]) -> dict[Suit, list[Card]]:
    out: dict[Suit, list[Card]] = {}
    for c in hand:
        out.setdefault(c.suit, []).append(c)
    return out


def _pairs(state: State, p: int) -> list[tuple[Card, ...]]:
    """The two-card plays the rules allow ``p`` now (a lead's high card first)."""
    assert state.hands is not None
    o, hand = state.options.rank_order, state.hands[p]
    suits = _by_suit(hand)
    if not state.trick:  # a lead
        if state.first_trick:
            raja = leading_raja(state.options)
            choices = [raja.suit] if raja in hand else []
        else:
            choices = [s for s, cs in suits.items() if any(c.rank.is_face for c in cs)]
        out = []
        for s in choices:
            hi, rest = highest(suits[s], o), [c for c in suits[s] if c != highest(suits[s], o)]
            lows = [lowest(rest, o)] if rest else [lowest(cs, o) for t, cs in suits.items()
                                                   if t is not s]
            out += [(hi, lo) for lo in lows]
        return out
    led = suits.get(state.lead_suit, [])
    if len(led) >= 2:
        return [(highest(led, o), lowest(led, o))]
    ext = {t: _extremes(cs, o) for t, cs in suits.items() if t is not state.lead_suit}
    if led:
        return [(led[0], x) for xs in ext.values() for x in xs]
    out = [tuple(xs) for xs in ext.values() if len(xs) == 2]
    for t1, t2 in itertools.combinations(ext, 2):
        out += [(a, b) for a in ext[t1] for b in ext[t2]]
    return out


def legal_moves(state: State) -> list[Move]:
    p = current_player(state)
    if p is None:
        return []
    assert state.hands is not None
    if not any(c.rank.is_face for c in state.hands[p]):
        return [Move(p, "out")]
    return [Move(p, "play", pair) for pair in _pairs(state, p)]


def _next_in(state: State, after: int, out: tuple[bool, ...]) -> int:
    for i in range(1, 5):
        if not out[(after + i) % 4]:
            return (after + i) % 4
    return -1


def _finish_if_done(s: State, events: list[Event]) -> State:
    active = [p for p in range(4) if not s.out[p]]
    if not active or (len(active) == 1 and s.options.lone_player == "stop" and not s.trick):
        s = dataclasses.replace(s, over=True, to_play=())
        events.append(announcement("game-over", result(s).text))
    return s


def _advance(state: State, move: Move) -> tuple[State, list[Event]]:
    """The public transition (the move's shape is already checked)."""
    p = move.player
    s = dataclasses.replace(state, step=state.step + 1)
    if move.action == "out":
        out = tuple(True if q == p else o for q, o in enumerate(s.out))
        events = [announcement("out", f"{seat_name(p)} has no face cards left and is out", p)]
        if s.trick:
            s = dataclasses.replace(s, out=out, to_play=s.to_play[1:])
            if not s.to_play:
                return _take(s, events)
        else:
            s = dataclasses.replace(s, out=out, leader=_next_in(s, p, out))
        return _finish_if_done(s, events), events
    counts = tuple(c - 2 if q == p else c for q, c in enumerate(s.counts))
    hands = s.hands and tuple(tuple(c for c in h if c not in move.cards) if q == p else h
                              for q, h in enumerate(s.hands))
    events = [Event("play", f"{seat_name(p)} plays {move.cards[0].name} and "
                    f"{move.cards[1].name}", p, move.cards)]
    to_play = (tuple(q for q in ((p + i) % 4 for i in range(1, 4)) if not s.out[q])
               if not s.trick else s.to_play[1:])
    s = dataclasses.replace(s, counts=counts, hands=hands, to_play=to_play,
                            trick=s.trick + tuple((p, c) for c in move.cards),
                            seen=s.seen | set(move.cards))
    return (s, events) if to_play else _take(s, events)


def _take(s: State, events: list[Event]) -> tuple[State, list[Event]]:
    w = trick_winner(s.trick, s.lead_suit, s.options.rank_order)
    tricks = tuple(t + (q == w) for q, t in enumerate(s.tricks))
    won = tuple(n + len(s.trick) * (q == w) for q, n in enumerate(s.won))
    events.append(Event("trick", f"{seat_name(w)} takes the trick ({tricks[w]} trick{'s' * (tricks[w] != 1)})", w,
                        tuple(c for _, c in s.trick)))
    s = dataclasses.replace(s, tricks=tricks, won=won, trick=(), to_play=(), leader=w,
                            first_trick=False)
    return _finish_if_done(s, events), events


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    check_turn(current_player(state), move)
    legal = legal_moves(state)
    if move.action == "play" and state.trick:  # a follower's two cards in either order
        move = next((m for m in legal if set(m.cards) == set(move.cards)), move)
    if move not in legal:
        raise IllegalMoveError(_why_not(state, legal[0]), move)
    return _advance(state, move)


def _why_not(state: State, example: Move) -> str:
    p = example.player
    if example.action == "out":
        return f"{seat_name(p)} has no face cards left and is out"
    if not state.trick and state.first_trick:
        return (f"{seat_name(p)} leads the {leading_raja(state.options).name} and her "
                "lowest card of its suit")
    if not state.trick:
        return (f"{seat_name(p)} leads the highest and lowest cards of a suit in which she "
                "has a face card (high card first)")
    return (f"{seat_name(p)} plays the highest and lowest {state.lead_suit.title}, or "
            "substitutes the highest or lowest card of another suit when short")


def is_over(state: State) -> bool:
    return state.over


def result(state: State) -> Result:
    return tricks_result(state.tricks)


def deal_of(state: State) -> dict:
    assert state.deal is not None
    return state.deal


def public_move(move: Move) -> Move:
    return move  # both cards of a play land face up; dropping out is seen


# ---- the table referee ----------------------------------------------------------------

def _lead_claims(state: State, p: int, hi: Card, lo: Card, k: int) -> tuple[list[Claim], str]:
    """(claims, an immediate fault or "") for a lead of ``hi`` then ``lo``."""
    o, s = state.options.rank_order, hi.suit
    if state.first_trick and hi != leading_raja(state.options):
        return [], f"the first trick is led with the {leading_raja(state.options).name}"
    if not hi.rank.is_face:
        return [], "a lead needs a suit with a face card, whose highest card is a face card"
    out = [Claim(p, k, f"{seat_name(p)} led {hi.name} as her highest {s.title}", s, 0,
                 strength(hi, o))]
    if lo.suit is s:
        if strength(lo, o) >= strength(hi, o):
            return [], "the high card of a lead comes first"
        out.append(Claim(p, k, f"{seat_name(p)} led {lo.name} as her lowest {s.title}", s,
                         strength(lo, o), 99))
    else:
        out += [void(p, k, s, f"substituted {lo.name} for a second {s.title}"),
                Claim(p, k, f"{seat_name(p)} substituted {lo.name} as her lowest "
                      f"{lo.suit.title}", lo.suit, strength(lo, o), 99)]
    return out, ""


def _follow_claims(state: State, p: int, a: Card, b: Card, k: int) -> list[Claim]:
    o, led = state.options.rank_order, state.lead_suit
    name = seat_name(p)

    def extreme(c: Card) -> Claim:
        m = strength(c, o)
        return Claim(p, k, f"{name} substituted {c.name} as her highest or lowest "
                     f"{c.suit.title}", c.suit, m, m, extreme=True)

    if a.suit is b.suit:
        hi, lo = (a, b) if strength(a, o) > strength(b, o) else (b, a)
        claims = [] if a.suit is led else [void(p, k, led, "substituted two cards")]
        return claims + [Claim(p, k, f"{name} played {hi.name} and {lo.name} as her highest "
                               f"and lowest {a.suit.title}", a.suit, strength(lo, o),
                               strength(hi, o))]
    if led in (a.suit, b.suit):
        x = b if a.suit is led else a
        return [void(p, k, led, f"substituted {x.name} for a second {led.title}"), extreme(x)]
    return [void(p, k, led, "substituted two cards"), extreme(a), extreme(b)]


def _judge(state: State, move: Move) -> Judgement:
    o = state.options
    if state.over:
        return Judgement(Verdict.ILLEGAL, "the game is over", None)
    p = current_player(state)
    k = state.step + 1
    if p is None:  # the table learns who leads from the Raja itself
        if move.action == "play" and move.cards and move.cards[0] == leading_raja(o) \
                and 0 <= move.player < 4:
            state, p = dataclasses.replace(state, leader=move.player), move.player
        else:
            return Judgement(Verdict.ILLEGAL, f"Hamrang opens with the "
                             f"{leading_raja(o).name}, led first", None)
    if move.player != p:
        return Judgement(Verdict.ILLEGAL, f"it is {seat_name(p)}'s turn", None)
    if move.action == "out" and not move.cards:
        faces = [c for c in deck_cards(DECK) if c.rank.is_face and c not in state.seen]
        claim = Claim(p, k, f"{seat_name(p)} dropped out (no face cards)", None, 0, 10)
        nxt, events = _advance(state, move)
        if faces:
            return Judgement(Verdict.UNVERIFIABLE, f"{claim.text}: the table cannot see "
                             "her hand", nxt, tuple(events))
        return Judgement(Verdict.LEGAL, "", nxt, tuple(events))
    cards = move.cards
    if move.action != "play" or len(cards) != 2 or cards[0] == cards[1]:
        return Judgement(Verdict.ILLEGAL, f"{seat_name(p)} plays two cards", None)
    if state.counts[p] < 2:
        return Judgement(Verdict.ILLEGAL, f"{seat_name(p)} has no cards left", None)
    again = [c for c in cards if c in state.seen]
    if again:
        return Judgement(Verdict.ILLEGAL, f"{again[0].name} was already played", None)
    if state.trick:
        new = _follow_claims(state, p, cards[0], cards[1], k)
    else:
        new, fault = _lead_claims(state, p, cards[0], cards[1], k)
        if fault:
            return Judgement(Verdict.ILLEGAL, fault, None)
    kept, proofs = judge_claims(state.claims, p, cards, o.rank_order)
    nxt, events = _advance(state, move)
    opened = open_claims(new, (c for c in deck_cards(DECK) if c not in nxt.seen),
                         o.rank_order)
    nxt = dataclasses.replace(nxt, claims=kept + opened)
    if proofs:
        return Judgement(Verdict.ILLEGAL, "; ".join(proofs), nxt, tuple(events))
    if opened:
        return Judgement(Verdict.UNVERIFIABLE, "; ".join(c.text for c in opened) +
                         ": the table cannot see the hand", nxt, tuple(events))
    return Judgement(Verdict.LEGAL, "", nxt, tuple(events))


class TableReferee(SnapshotReferee):
    """Judges two-card plays and drop-outs from the table, with claims about hidden hands
    (``trick_common``) proven false by later cards."""

    def __init__(self, players: int, options: Options | None = None):
        o = _check_options(players, options)
        super().__init__(State(o, None, (HAND,) * 4, -1), _judge)
