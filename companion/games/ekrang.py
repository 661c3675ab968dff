"""Ekrang (2-4 players): a trick game of two-phase rounds, opened by the day's Raja.

Seed 003's setup paragraph is scrambled: step "3." stands after its own continuation, and
the line "3. Before play begins, the first player places their Raja of Surya or" is cut
from the sentence it starts. Put back in order, the setup reads (ruling *ekrang-setup*):

  1. Shuffle the cards and deal an equal number of cards to each player.
  2. If you are playing during the day, the first player is the one that has the Raja of
     Surya (green). If playing at night, it is the Raja of Chandra (black).
  3. Before play begins, the first player places their Raja of Surya or Chandra as
     appropriate along with another card of 8 or higher on the table. Each other player
     places a card of lower value and any suit on top of the two faceup cards and the
     player who played the Raja of Surya or Chandra takes these cards as the first trick.
     Then the first round begins.

Rounds: "PHASE 1 The player who took the most recent trick plays the highest card they have
of any suit face up ... All other players then play a card of the same suit ... A different
suit may be played if a player has no cards of the original suit." "Phase 2 The player who
won the trick in Phase 1 now plays the lowest card of the same suit used in phase 1. All
other players then play a card ... of any suit but only a higher card of the original suit
will win the trick. If the winner of phase 1 does not have a card of the same suit ...
phase 2 is skipped." "the player who took the most tricks wins the game."

Moves: ``setup`` (the first player; cards: the Raja and the other card) and ``play`` (one
card). Rulings: ``docs/rulings/ekrang.md``.
"""

from __future__ import annotations

import dataclasses
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
    face_value,
    highest,
    judge_claims,
    lowest,
    next_seat_with_cards,
    open_claims,
    trick_winner,
    tricks_result,
    void,
)

NAME = "ekrang"
TITLE = "Ekrang"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
DECK = DeckKind.MUGHAL
SETUP_MIN = 8  # "another card of 8 or higher"
LEADS = ("highest", "suit-highest")


@dataclass(frozen=True)
class Options:
    time_of_day: str = "day"  # day: the Raja of Surya opens; night: the Raja of Chandra
    lead: str = "highest"  # ruling ekrang-phase1-lead
    rank_order: RankOrder = RankOrder.STRAIGHT  # ruling rank-order

    def __post_init__(self) -> None:
        if self.time_of_day not in ("day", "night"):
            raise OptionsError("time_of_day is day (Raja of Surya) or night (Raja of Chandra)")
        if self.lead not in LEADS:
            raise OptionsError(f"lead must be one of {', '.join(LEADS)}")


def leading_raja(options: Options) -> Card:
    return trick_common.leading_raja(options.time_of_day)


@dataclass(frozen=True)
class State:
    players: int
    options: Options
    hands: tuple[tuple[Card, ...], ...] | None  # None: the table's view
    counts: tuple[int, ...]
    first: int  # the Raja's holder (-1 until the table sees the setup)
    kind: str = "setup"  # setup | setup-follow | lead | p1 | p2 | over
    leader: int = -1
    p1_suit: Suit | None = None  # at a lead: the suit phase 2 is due in
    trick: tuple[tuple[int, Card], ...] = ()
    to_play: tuple[int, ...] = ()
    bar: int = 0  # value the setup trick's other cards must stay under
    tricks: tuple[int, ...] = ()
    won: tuple[int, ...] = ()  # cards in each seat's face-down pile
    seen: frozenset[Card] = frozenset()
    claims: tuple[Claim, ...] = ()
    step: int = 0
    dealt: tuple[tuple[Card, ...], ...] | None = None  # the deal, for the record


def _check_options(players: int, options: Options | None) -> Options:
    check_players(players, MIN_PLAYERS, MAX_PLAYERS, TITLE)
    return options or Options()


def _blank(players: int, o: Options, hands, first: int) -> State:
    per = len(deck_cards(DECK)) // players  # 48, 32 or 24: 96 divides by 2, 3 and 4
    return State(players, o, hands, (per,) * players, first, leader=first,
                 tricks=(0,) * players, won=(0,) * players, dealt=hands)


def new_game(players: int, options: Options | None = None, seed: int | None = None) -> State:
    o = _check_options(players, options)
    deck = list(deck_cards(DECK))
    make_rng(seed).shuffle(deck)
    hands = tuple(tuple(sorted(deck[s::players], key=str)) for s in range(players))
    first = next(s for s, h in enumerate(hands) if leading_raja(o) in h)
    return _blank(players, o, hands, first)


def current_player(state: State) -> int | None:
    if state.kind == "over":
        return None
    if state.kind in ("setup", "lead"):
        return state.leader if state.leader >= 0 else None
    return state.to_play[0]


def _hand(state: State, p: int) -> tuple[Card, ...]:
    assert state.hands is not None
    return state.hands[p]


def _lead_cards(state: State, hand: tuple[Card, ...]) -> list[Card]:
    order = state.options.rank_order
    if state.p1_suit is not None:
        due = [c for c in hand if c.suit is state.p1_suit]
        if due:
            return [lowest(due, order)]
    if state.options.lead == "highest":
        top = strength(highest(hand, order), order)
        return [c for c in hand if strength(c, order) == top]
    suits = {c.suit for c in hand}
    return [highest([c for c in hand if c.suit is s], order) for s in suits]


def _allowed(state: State, p: int) -> list[Card]:
    hand = _hand(state, p)
    if state.kind == "lead":
        return _lead_cards(state, hand)
    if state.kind == "setup-follow":
        lower = [c for c in hand if face_value(c) < state.bar]
        return lower or list(hand)
    if state.kind == "p1":
        led = state.trick[0][1].suit
        return [c for c in hand if c.suit is led] or list(hand)
    return list(hand)


def legal_moves(state: State) -> list[Move]:
    p = current_player(state)
    if p is None:
        return []
    hand = _hand(state, p)
    if state.kind == "setup":
        raja = leading_raja(state.options)
        rest = [c for c in hand if c != raja]
        high = [c for c in rest if face_value(c) >= SETUP_MIN] or rest
        return [Move(p, "setup", (raja, c)) for c in high]
    return [Move(p, "play", (c,)) for c in _allowed(state, p)]


def _play(state: State, p: int, cards: tuple[Card, ...]) -> tuple[State, list[Event]]:
    """The public transition: the cards leave ``p``'s hand; a full trick is taken."""
    counts = list(state.counts)
    counts[p] -= len(cards)
    hands = state.hands
    if hands is not None:
        hands = tuple(tuple(c for c in h if c not in cards) if s == p else h
                      for s, h in enumerate(hands))
    trick = state.trick + tuple((p, c) for c in cards)
    events = [Event("play", f"{seat_name(p)} plays {' and '.join(c.name for c in cards)}",
                    p, cards)]
    s = dataclasses.replace(state, counts=tuple(counts), hands=hands, trick=trick,
                            seen=state.seen | set(cards), step=state.step + 1)
    n = state.players
    if state.kind == "setup":
        others = tuple((p + i) % n for i in range(1, n))
        return dataclasses.replace(s, kind="setup-follow", first=p, leader=p, to_play=others,
                                   bar=face_value(cards[1])), events
    if state.kind == "lead":
        kind = "p2" if state.p1_suit is not None and cards[0].suit is state.p1_suit else "p1"
        if state.p1_suit is not None and kind == "p1":
            events.append(Event("phase", f"Phase 2 skipped: {seat_name(p)} has no "
                                f"{state.p1_suit.title}", p))
        others = tuple(q for q in ((p + i) % n for i in range(1, n)) if counts[q] > 0)
        s = dataclasses.replace(s, kind=kind, to_play=others, p1_suit=None)
    else:
        s = dataclasses.replace(s, to_play=s.to_play[1:])
    if s.to_play:
        return s, events
    return _take(s, events)


def _take(s: State, events: list[Event]) -> tuple[State, list[Event]]:
    led = s.trick[0][1].suit
    if s.kind == "setup-follow":
        w, p1 = s.first, None
    else:
        w = trick_winner(s.trick, led, s.options.rank_order)
        p1 = led if s.kind == "p1" else None
    tricks, won = list(s.tricks), list(s.won)
    tricks[w] += 1
    won[w] += len(s.trick)
    label = {"setup-follow": "the first trick", "p1": "the phase 1 trick",
             "p2": "the phase 2 trick"}[s.kind]
    events.append(Event("trick", f"{seat_name(w)} takes {label} ({tricks[w]} trick{'s' * (tricks[w] != 1)})", w,
                        tuple(c for _, c in s.trick)))
    leader = next_seat_with_cards(w, s.counts)
    if leader != w:
        p1 = None  # ruling ekrang-empty-hand: the lead passes on, phase 2 is skipped
    s = dataclasses.replace(s, tricks=tuple(tricks), won=tuple(won), trick=(), to_play=(),
                            leader=leader, p1_suit=p1, kind="lead" if leader >= 0 else "over")
    if s.kind == "over":
        events.append(announcement("game-over", result(s).text))
    return s, events


def apply(state: State, move: Move) -> tuple[State, list[Event]]:
    p = check_turn(current_player(state), move)
    if move not in legal_moves(state):
        raise IllegalMoveError(_why_not(state, move), move)
    return _play(state, p, move.cards)


def _why_not(state: State, move: Move) -> str:
    p, o = move.player, state.options
    if state.kind == "setup":
        return (f"{seat_name(p)} opens with the {leading_raja(o).name} and another card of "
                f"{SETUP_MIN} or higher, if they have one")
    if move.action != "play" or len(move.cards) != 1:
        return "play one card"
    if move.cards[0] not in _hand(state, p):
        return f"{seat_name(p)} does not hold {move.cards[0].name}"
    want = {"setup-follow": f"a card lower than {state.bar}, if they have one",
            "p1": f"a card of {state.trick[0][1].suit.title if state.trick else ''} "
                  "(follow suit)",
            "lead": "the lowest card of the phase 1 suit" if state.p1_suit is not None and any(
                c.suit is state.p1_suit for c in _hand(state, p)) else
            f"their highest card ({o.lead})"}.get(state.kind, "a card")
    return f"{seat_name(p)} must play {want}"


def is_over(state: State) -> bool:
    return state.kind == "over"


def result(state: State) -> Result:
    return tricks_result(state.tricks)


def deal_of(state: State) -> dict:
    assert state.dealt is not None
    return {"hands": [[c.id for c in h] for h in state.dealt]}


def public_move(move: Move) -> Move:
    return move  # every card is played face up


# ---- the table referee ----------------------------------------------------------------

def _claims_for(state: State, p: int, card: Card) -> list[Claim]:
    """What playing ``card`` now says about ``p``'s hidden hand."""
    o, k = state.options.rank_order, state.step + 1
    s = strength(card, o)
    if state.kind == "setup-follow" and face_value(card) >= state.bar:
        return [Claim(p, k, f"{seat_name(p)} had no card lower than {state.bar}", None,
                      state.bar, 99, "value")]
    if state.kind == "p1":
        led = state.trick[0][1].suit
        return [void(p, k, led, f"did not follow {led.title}")] if card.suit is not led else []
    if state.kind != "lead":
        return []
    if state.p1_suit is not None and card.suit is state.p1_suit:
        return [Claim(p, k, f"{seat_name(p)} led {card.name} as the lowest "
                      f"{card.suit.title}", card.suit, s, 99)]
    out = [void(p, k, state.p1_suit, "skipped phase 2")] if state.p1_suit else []
    scope = None if state.options.lead == "highest" else card.suit
    where = "in hand" if scope is None else f"of {card.suit.title}"
    return out + [Claim(p, k, f"{seat_name(p)} led {card.name} as the highest card {where}",
                        scope, 0, s)]


def _judge(state: State, move: Move) -> Judgement:
    o = state.options
    if state.kind == "over":
        return Judgement(Verdict.ILLEGAL, "the game is over", None)
    new: list[Claim] = []
    if state.kind == "setup":
        raja = leading_raja(o)
        if move.action != "setup" or len(move.cards) != 2 or raja not in move.cards \
                or move.cards[0] == move.cards[1]:
            return Judgement(Verdict.ILLEGAL, f"Ekrang opens with the {raja.name} and "
                             f"another card of {SETUP_MIN} or higher", None)
        other = next(c for c in move.cards if c != raja)
        move = Move(move.player, "setup", (raja, other))
        state = dataclasses.replace(state, leader=move.player)
        if face_value(other) < SETUP_MIN:
            new.append(Claim(move.player, 1, f"{seat_name(move.player)} had no other card "
                             f"of {SETUP_MIN} or higher", None, 0, SETUP_MIN - 1, "value"))
    else:
        p = current_player(state)
        if move.player != p:
            return Judgement(Verdict.ILLEGAL, f"it is {seat_name(p)}'s turn", None)
        if move.action != "play" or len(move.cards) != 1:
            return Judgement(Verdict.ILLEGAL, f"{seat_name(p)} plays one card", None)
        new = _claims_for(state, p, move.cards[0])
    again = [c for c in move.cards if c in state.seen]
    if again:
        return Judgement(Verdict.ILLEGAL, f"{again[0].name} was already played", None)
    kept, proofs = judge_claims(state.claims, move.player, move.cards, o.rank_order)
    nxt, events = _play(state, move.player, move.cards)
    opened = open_claims(new, (c for c in deck_cards(DECK) if c not in nxt.seen),
                         o.rank_order)
    nxt = dataclasses.replace(nxt, claims=kept + opened)
    if nxt.kind == "over" and nxt.claims:
        # every card has now been played, so each hand at each claim is fully known: a
        # claim no later card disproved was true (ruling ekrang-claims-settle)
        events.append(Event("claims-confirmed", f"All cards are played: the {len(nxt.claims)} "
                            "plays the table could not check were within the rules"))
        nxt = dataclasses.replace(nxt, claims=())
    if proofs:
        return Judgement(Verdict.ILLEGAL, "; ".join(proofs), nxt, tuple(events))
    if opened:
        return Judgement(Verdict.UNVERIFIABLE, "; ".join(c.text for c in opened) +
                         ": the table cannot see the hand", nxt, tuple(events))
    return Judgement(Verdict.LEGAL, "", nxt, tuple(events))


class TableReferee(SnapshotReferee):
    """Judges plays from the table: turn order, cards seen twice, and the hand claims that
    following suit, leading highest or lowest and the setup make (``trick_common``)."""

    def __init__(self, players: int, options: Options | None = None):
        super().__init__(_blank(players, _check_options(players, options), None, -1), _judge)
