"""Ganjifa with Denis: what the table shows, shared by the engine and the table referee.

Everything in this module is public information: the cards played, the exposed Deni
cards, the won piles, whose turn it is and how many cards each hand still holds. The
engine (``ganjifa.py``) adds the hands; the referee (``ganjifa_referee.py``) adds the
claims it has not yet been able to check. Because both drive the same ``advance``, the
referee announces exactly what the engine announces.

Seat order (ruling *seat-order*): "the play goes anticlockwise around the table". Seats are
numbered anticlockwise as seen from above (calibration/layouts/ganjifa.json), so the next
player, and "the player on the right" who receives a passed lead, is seat ``(s + 1) % n``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from functools import cache

from companion.cards import Card, DeckKind, Rank, RankOrder, Suit, deck_cards, strength, suits_of
from companion.games.base import Event, Move, OptionsError, announcement, seat_name

DENI_RULES = ("expanded", "traditional")


@dataclass(frozen=True)
class Options:
    """Rule variants and rulings; the defaults are the rule book's."""

    deck: DeckKind = DeckKind.DASHAVATARA
    ranking: RankOrder = RankOrder.TRADITIONAL
    # "day", "night", or a suit of the deck (ruling *leading-raja*).
    leading_raja: str = "day"
    # "Traditionally, the first and last batch given to each player is dealt face up."
    face_up_deal: bool = False
    # Three players: each other player plays two cards to the opening trick and the
    # leader one more (True, the book); False gives every player one card, as the book
    # suggests for players who dislike honours.
    opening_double: bool = True
    # "expanded" (the book) or "traditional" (the card must be the second-highest unplayed).
    deni: str = "expanded"

    def __post_init__(self) -> None:
        # Checked when built, so that `--option` mistakes are reported before any deal.
        if self.deni not in DENI_RULES:
            raise OptionsError(f"option deni: {self.deni!r}; allowed: {', '.join(DENI_RULES)}")
        key = self.leading_raja.strip().lower()
        if key not in ("day", "night") and key not in {s.value for s in suits_of(self.deck)}:
            raise OptionsError(f"option leading_raja: {self.leading_raja!r} is not day, night "
                               f"or a suit of the {self.deck.value} deck")


class Phase(enum.Enum):
    SHOW = "show"  # face-up batches are displayed before the opening
    OPENING = "opening"  # waiting for the leading Raja
    LEAD = "lead"  # the leader leads, gives a Deni, gives up a high card or passes
    FOLLOW = "follow"  # the others (and after a double, the giver) add cards to the trick
    OVER = "over"


class Kind(enum.Enum):
    OPENING = "opening"
    PLAIN = "plain"  # an unbeatable card led
    DENI = "deni"
    SACRIFICE = "sacrifice"  # the leader's highest card of a suit, with no unbeatable card


@dataclass(frozen=True, eq=False)
class Rules:
    """Per (options, players) precomputation: card order and strength lookups."""

    options: Options
    players: int
    suits: tuple[Suit, ...]
    cards: frozenset[Card]
    order: dict[Suit, tuple[Card, ...]]  # high to low
    power: dict[Card, int]
    seq: dict[Card, int]  # deck order, for stable sorting (Card's suits are unordered)
    leading: Card
    hand_size: int
    face_up_count: int  # cards each player shows when the first and last batches are face up

    def sort(self, cards) -> list[Card]:
        return sorted(cards, key=self.seq.__getitem__)

    def below(self, card: Card) -> Card | None:
        """The card one rank lower in the suit (the card that doubles a Deni on ``card``)."""
        o = self.order[card.suit]
        i = o.index(card)
        return o[i + 1] if i + 1 < len(o) else None


LEADING_RAJA = {
    # Ruling *leading-raja*: day and night Rajas. Mughal tradition: the sun by day, the
    # moon by night. Dashavatara tradition: Rama by day, Krishna by night; this deck's
    # eighth suit, Balarama, stands in Krishna's place.
    (DeckKind.DASHAVATARA, "day"): Suit.RAMA,
    (DeckKind.DASHAVATARA, "night"): Suit.BALARAMA,
    (DeckKind.MUGHAL, "day"): Suit.SURYA,
    (DeckKind.MUGHAL, "night"): Suit.CHANDRA,
}


@cache
def rules_for(options: Options, players: int) -> Rules:
    if not isinstance(players, int) or not 3 <= players <= 4:
        raise OptionsError(f"Ganjifa with Denis is for 3-4 players, not {players!r}")
    deck = options.deck
    if deck is DeckKind.MUGHAL and players != 3:
        # Ruling *mughal-three-players*: the book tests the Mughal deck with three only.
        raise OptionsError("the Mughal deck is for a 3-player game; use the Dashavatara deck")
    key = options.leading_raja.strip().lower()
    suits = suits_of(deck)
    if (deck, key) in LEADING_RAJA:
        lead_suit = LEADING_RAJA[deck, key]
    elif key in {s.value for s in suits}:
        lead_suit = Suit(key)
    else:
        raise OptionsError(f"option leading_raja: {options.leading_raja!r} is not day, night "
                           f"or a suit of the {deck.value} deck")
    if options.deni not in DENI_RULES:
        raise OptionsError(f"option deni: {options.deni!r}; allowed: {', '.join(DENI_RULES)}")
    cards = deck_cards(deck)
    order = {s: tuple(sorted((c for c in cards if c.suit is s),
                             key=lambda c: strength(c, options.ranking), reverse=True))
             for s in suits}
    hand = len(cards) // players
    return Rules(options, players, suits, frozenset(cards), order,
                 {c: strength(c, options.ranking) for c in cards},
                 {c: i for i, c in enumerate(cards)},
                 Card(lead_suit, Rank.RAJA), hand, 4 + (2 if players == 4 else 4))


@dataclass(frozen=True)
class Deni:
    giver: int
    high: Card  # the exposed card
    called: Card  # the next unplayed card up: the only card that can beat ``high``
    double_card: Card | None  # one rank below ``high``
    doubled_by: int | None = None


@dataclass(frozen=True)
class Table:
    rules: Rules
    phase: Phase
    leader: int | None
    queue: tuple[int, ...] = ()  # seats still to act, in order (SHOW and FOLLOW)
    trick: tuple[tuple[int, Card], ...] = ()
    kind: Kind | None = None
    deni: Deni | None = None
    target: Card | None = None  # the card a sacrifice calls for
    played: frozenset[Card] = frozenset()
    exposed: tuple[frozenset[Card], ...] = ()
    won: tuple[int, ...] = ()
    hand_sizes: tuple[int, ...] = ()
    led_this_turn: bool = False

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def current(self) -> int | None:
        """Who acts next, where the table shows it (the opening leader is not shown)."""
        if self.phase in (Phase.SHOW, Phase.FOLLOW):
            return self.queue[0]
        if self.phase is Phase.LEAD:
            return self.leader
        return None

    def called_of(self, seat: int) -> Card | None:
        """The card the trick in play calls for, while ``seat`` has still to follow and may
        hold it: a Deni's called card ("The player with the called-for card must play it")
        or a sacrifice's ("The player with the highest card in that suit must play it").
        None once it is played or lies exposed before another seat, and for the Deni-giver,
        who "must play another card of the same suit"."""
        if self.phase is not Phase.FOLLOW or seat not in self.queue:
            return None
        if self.kind is Kind.DENI and self.deni is not None and seat != self.deni.giver:
            card = self.deni.called
        elif self.kind is Kind.SACRIFICE:
            card = self.target
        else:
            return None
        if card is None or card in self.played or any(c == card for _, c in self.trick) \
                or any(card in e for q, e in enumerate(self.exposed) if q != seat):
            return None
        return card

    def unplayed_above(self, card: Card) -> list[Card]:
        """Unplayed cards of the suit that beat ``card``, lowest first."""
        o = self.rules.order[card.suit]
        return [c for c in reversed(o[:o.index(card)]) if c not in self.played]


def new_table(rules: Rules) -> Table:
    n = rules.players
    return Table(rules, Phase.SHOW if rules.options.face_up_deal else Phase.OPENING, None,
                 queue=tuple(range(n)) if rules.options.face_up_deal else (),
                 exposed=(frozenset(),) * n, won=(0,) * n, hand_sizes=(rules.hand_size,) * n)


def others(leader: int, n: int) -> tuple[int, ...]:
    return tuple((leader + i) % n for i in range(1, n))


def opening_queue(rules: Rules, leader: int) -> tuple[int, ...]:
    rest = others(leader, rules.players)
    if rules.players == 3 and rules.options.opening_double:
        return tuple(s for s in rest for _ in (0, 1)) + (leader,)
    return rest


def cards_text(cards: tuple[Card, ...]) -> str:
    return " and ".join(f"the {c.name}" for c in cards)


def result_of(won: tuple[int, ...]) -> tuple[tuple[int, ...], str]:
    best = max(won)
    winners = tuple(s for s, w in enumerate(won) if w == best)
    if len(winners) == 1:
        return winners, f"{seat_name(winners[0])} wins with {best} cards"
    names = ", ".join(seat_name(s) for s in winners)
    return winners, f"{names} tie with {best} cards"


def advance(t: Table, m: Move) -> tuple[Table, list[Event]]:
    """Apply a move the table has accepted; it does no checking of its own."""
    p, a, cards = m.player, m.action, m.cards
    n = t.players
    who = seat_name(p)
    if a == "show":
        return (replace(t, queue=t.queue[1:], phase=Phase.SHOW if t.queue[1:] else Phase.OPENING),
                [Event("show", f"{who} shows {len(cards)} face-up cards", p, cards)])
    if a == "pass":
        nxt = (p + 1) % n
        return (replace(t, leader=nxt, led_this_turn=False),
                [announcement("lead", f"The lead passes to the right: {seat_name(nxt)} "
                              "takes the lead", nxt)])
    ev: list[Event] = []
    if a == "lead" and t.phase is Phase.OPENING:
        t = replace(t, leader=p, kind=Kind.OPENING, queue=opening_queue(t.rules, p))
        ev.append(announcement("leading-raja", f"{who} leads the {cards[0].name}, "
                               "the leading Raja", p, cards))
    elif a == "lead":
        t = replace(t, kind=Kind.PLAIN, queue=others(p, n))
        ev.append(Event("lead", f"{who} leads the {cards[0].name}", p, cards))
    elif a == "sacrifice":
        above = t.unplayed_above(cards[0])
        t = replace(t, kind=Kind.SACRIFICE, queue=others(p, n), target=above[-1] if above else None)
        ev.append(Event("sacrifice", f"{who} gives up the {cards[0].name}, their highest "
                        f"{cards[0].suit.title}; the highest {cards[0].suit.title} must be "
                        "played", p, cards))
    elif a == "deni":
        low, high = cards
        called = t.unplayed_above(high)[0]
        t = replace(t, kind=Kind.DENI, queue=others(p, n),
                    deni=Deni(p, high, called, t.rules.below(high)),
                    exposed=_with(t.exposed, p, t.exposed[p] | {high}))
        ev.append(announcement("deni", f"A Deni for the {called.rank.indian_name}", p, (high,)))
        ev.append(Event("lead", f"{who} leads the {low.name} and exposes the {high.name}",
                        p, cards))
        cards = (low,)
    elif a == "double":
        assert t.deni is not None
        extras = tuple(s for s in others(t.deni.giver, n) if s != p) + (t.deni.giver,)
        t = replace(t, deni=replace(t.deni, doubled_by=p), queue=t.queue + extras)
        ev.append(announcement("double", "Deni doubled", p, cards))
        ev.append(Event("follow", f"{who} plays {cards_text(cards)}", p, cards))
    else:  # follow
        ev.append(Event("follow", f"{who} plays the {cards[0].name}", p, cards))
    queue = t.queue[1:] if a in ("follow", "double") else t.queue
    gone = frozenset(cards)
    t = replace(t, phase=Phase.FOLLOW, queue=queue, trick=t.trick + tuple((p, c) for c in cards),
                played=t.played | gone, exposed=_with(t.exposed, p, t.exposed[p] - gone),
                hand_sizes=_with(t.hand_sizes, p, t.hand_sizes[p] - len(cards)))
    if a in ("lead", "deni", "sacrifice"):
        t = replace(t, leader=p)
    if not t.queue:
        t, more = _close(t)
        ev.extend(more)
    return t, ev


def _close(t: Table) -> tuple[Table, list[Event]]:
    """The trick is complete: the highest card of the suit led wins it."""
    suit = t.trick[0][1].suit
    power = t.rules.power
    winner = max((s for s, c in t.trick if c.suit is suit),
                 key=lambda s: max(power[c] for x, c in t.trick if x == s and c.suit is suit))
    won = _with(t.won, winner, t.won[winner] + len(t.trick))
    ev = [announcement("trick", f"{seat_name(winner)} wins the trick "
                       f"({len(t.trick)} cards)", winner)]
    keep_turn = t.kind is Kind.PLAIN and winner == t.leader
    t = replace(t, phase=Phase.LEAD, leader=winner, trick=(), kind=None, deni=None, target=None,
                queue=(), won=won, led_this_turn=keep_turn)
    if not keep_turn:
        ev.append(announcement("lead", f"{seat_name(winner)} takes the lead", winner))
    if not any(t.hand_sizes):
        winners, text = result_of(won)
        t = replace(t, phase=Phase.OVER, leader=None)
        ev.append(announcement("result", text, winners[0] if len(winners) == 1 else None))
    return t, ev


def _with(tup: tuple, i: int, value) -> tuple:
    return tup[:i] + (value,) + tup[i + 1:]
