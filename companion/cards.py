"""The two round Ganjifa decks as data: suits, ranks, cards, names and rank orders.

Seed 003 (``mughal-deck-and-games.txt``): "The ganjifa deck consists of 96 different
cards: 8 suits ... Each suit consists of twelve cards: ten numbered 1 through 10, as well
as two face cards: the vizier ... and the raja ... The raja is the most valuable card in
each suit, followed by the vizier, and then the number cards 10 to 1."

"Variation: In the original Mughal ganjifa the value of the number cards depends on the
suit. For some suits 10 is considered high and 1 is low, while in other suits the 1 is
considered high and the 10 is considered low. In all cases the face cards -- the vizier
and the raja -- are higher than the numbered cards."

Ruling *weak-suits*: the reversed ("weak") suits are Mughal surya, barat, kumancha, cheng
and the first five Dashavatara avatars (matsya, kurma, varaha, narasimha, vamana), as the
foundation issue fixes them.

This module is pure data and is the only project module that ``companion.games`` imports.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache


class CardIdError(ValueError):
    """A card id that is not ``<suit>-<rank>`` with a known suit and rank."""


class DeckKind(enum.Enum):
    MUGHAL = "mughal"
    DASHAVATARA = "dashavatara"

    @classmethod
    def parse(cls, text: str) -> DeckKind:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise CardIdError(
                f"unknown deck {text!r}; known decks: {', '.join(d.value for d in cls)}"
            ) from None


class RankOrder(enum.Enum):
    """How number cards rank inside a suit (face cards are always on top)."""

    TRADITIONAL = "traditional"  # numbers reversed (1 high, 10 low) in the weak suits
    STRAIGHT = "straight"  # 10 high in every suit

    @classmethod
    def parse(cls, text: str) -> RankOrder:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise CardIdError(
                f"unknown rank order {text!r}; known: traditional, straight"
            ) from None


class Rank(enum.IntEnum):
    ONE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    VIZIER = 11
    RAJA = 12

    @property
    def token(self) -> str:
        """The rank's part of a card id: ``1``..``10``, ``vizier``, ``raja``."""
        return {Rank.VIZIER: "vizier", Rank.RAJA: "raja"}.get(self, str(self.value))

    @property
    def is_face(self) -> bool:
        return self >= Rank.VIZIER

    @property
    def english(self) -> str:
        return {Rank.VIZIER: "Vizier", Rank.RAJA: "Raja"}.get(self, str(self.value))

    @property
    def indian_name(self) -> str:
        """Transliterated Indian name; the vizier is also called Mantri or Pradhan."""
        return {Rank.VIZIER: "Mantri", Rank.RAJA: "Raja"}.get(self, str(self.value))

    @classmethod
    def parse(cls, token: str) -> Rank:
        t = token.strip().lower()
        aliases = {"vizier": cls.VIZIER, "mantri": cls.VIZIER, "raja": cls.RAJA, "king": cls.RAJA}
        if t in aliases:
            return aliases[t]
        if t.isdigit() and 1 <= int(t) <= 10:
            return cls(int(t))
        raise CardIdError(f"unknown rank {token!r}; valid ranks: 1..10, vizier, raja")


@dataclass(frozen=True)
class SuitInfo:
    deck: DeckKind
    english: str  # an English name for the suit
    symbol: str  # the emblem drawn on every card of the suit
    colour: str  # the typical colour name
    rgb: tuple[int, int, int]  # a typical colour, for drawing
    weak: bool  # numbers rank reversed under the traditional order


class Suit(enum.Enum):
    """The 18 suits of both decks; the value is the canonical id used in card ids."""

    # Mughal, colours and symbols from seed 003's table.
    SURYA = "surya"
    CHANDRA = "chandra"
    BARAT = "barat"
    PHUL = "phul"
    KUMANCHA = "kumancha"
    GHULAM = "ghulam"
    CHENG = "cheng"
    SHAMSHER = "shamsher"
    # Dashavatara: the ten avatars of Vishnu, each with its emblem.
    MATSYA = "matsya"
    KURMA = "kurma"
    VARAHA = "varaha"
    NARASIMHA = "narasimha"
    VAMANA = "vamana"
    PARASHURAMA = "parashurama"
    RAMA = "rama"
    BALARAMA = "balarama"
    BUDDHA = "buddha"
    KALKI = "kalki"

    @property
    def info(self) -> SuitInfo:
        return SUIT_INFO[self]

    @property
    def deck(self) -> DeckKind:
        return SUIT_INFO[self].deck

    @property
    def title(self) -> str:
        return self.value.capitalize()

    @classmethod
    def parse(cls, token: str) -> Suit:
        try:
            return cls(token.strip().lower())
        except ValueError:
            raise CardIdError(
                f"unknown suit {token!r}; valid suits: {', '.join(s.value for s in cls)}"
            ) from None


_M, _D = DeckKind.MUGHAL, DeckKind.DASHAVATARA
SUIT_INFO: dict[Suit, SuitInfo] = {
    Suit.SURYA: SuitInfo(_M, "Gold Coins", "gold coin", "green", (46, 139, 87), True),
    Suit.CHANDRA: SuitInfo(_M, "Silver Coins", "silver coin", "black", (30, 30, 30), False),
    Suit.BARAT: SuitInfo(_M, "Bills", "bill of exchange", "blue", (40, 80, 170), True),
    Suit.PHUL: SuitInfo(_M, "Crowns", "crown", "brown", (120, 72, 40), False),
    Suit.KUMANCHA: SuitInfo(_M, "Merchandise", "merchandise", "yellow", (225, 190, 40), True),
    Suit.GHULAM: SuitInfo(_M, "Slaves", "slave", "purple", (110, 50, 140), False),
    Suit.CHENG: SuitInfo(_M, "Harps", "harp", "orange", (235, 130, 30), True),
    Suit.SHAMSHER: SuitInfo(_M, "Swords", "sword", "red", (190, 30, 35), False),
    Suit.MATSYA: SuitInfo(_D, "Fish", "fish", "blue", (50, 110, 190), True),
    Suit.KURMA: SuitInfo(_D, "Tortoise", "tortoise", "green", (60, 140, 70), True),
    Suit.VARAHA: SuitInfo(_D, "Boar", "boar", "brown", (130, 85, 50), True),
    Suit.NARASIMHA: SuitInfo(_D, "Lion", "lion", "orange", (230, 120, 30), True),
    Suit.VAMANA: SuitInfo(_D, "Pot", "pot and umbrella", "yellow", (220, 185, 50), True),
    Suit.PARASHURAMA: SuitInfo(_D, "Axe", "axe", "red", (185, 35, 40), False),
    Suit.RAMA: SuitInfo(_D, "Bow", "bow and arrow", "green-blue", (30, 130, 130), False),
    Suit.BALARAMA: SuitInfo(_D, "Plough", "plough", "purple", (115, 55, 145), False),
    Suit.BUDDHA: SuitInfo(_D, "Lotus", "lotus and conch", "white", (225, 220, 200), False),
    Suit.KALKI: SuitInfo(_D, "Horse", "horse", "black", (35, 35, 35), False),
}


@dataclass(frozen=True, order=True)
class Card:
    suit: Suit
    rank: Rank

    @property
    def id(self) -> str:
        """Canonical id ``<suit>-<rank>``, e.g. ``shamsher-raja``, ``surya-7``."""
        return f"{self.suit.value}-{self.rank.token}"

    def __str__(self) -> str:
        return self.id

    @property
    def name(self) -> str:
        """Human name, e.g. ``Raja of Shamsher``, ``7 of Surya``."""
        return f"{self.rank.english} of {self.suit.title}"

    @property
    def deck(self) -> DeckKind:
        return self.suit.deck

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse ``<suit>-<rank>``; raise :class:`CardIdError` naming the valid forms."""
        if not isinstance(text, str) or "-" not in text:
            raise CardIdError(
                f"bad card id {text!r}: expected '<suit>-<rank>' such as "
                "'shamsher-raja', 'surya-7' or 'matsya-vizier'"
            )
        suit_tok, _, rank_tok = text.strip().rpartition("-")
        return cls(Suit.parse(suit_tok), Rank.parse(rank_tok))

    def same_suit_or_rank(self, other: Card) -> bool:
        return self.suit is other.suit or self.rank is other.rank


def suits_of(deck: DeckKind) -> tuple[Suit, ...]:
    return tuple(s for s in Suit if s.deck is deck)


@cache
def deck_cards(deck: DeckKind) -> tuple[Card, ...]:
    """Every card of a deck, once, in suit order then rank order 1..raja."""
    return tuple(Card(s, r) for s in suits_of(deck) for r in Rank)


def strength(card: Card, order: RankOrder = RankOrder.TRADITIONAL) -> int:
    """A number that orders cards within a suit: higher beats lower (1..12)."""
    if card.rank.is_face or order is RankOrder.STRAIGHT or not card.suit.info.weak:
        return int(card.rank)
    return 11 - int(card.rank)  # weak suits: 1 is high (10), 10 is low (1)


def ranks_high_to_low(suit: Suit, order: RankOrder = RankOrder.TRADITIONAL) -> tuple[Rank, ...]:
    """The suit's ranks from highest to lowest under ``order``."""
    return tuple(sorted(Rank, key=lambda r: strength(Card(suit, r), order), reverse=True))


def parse_cards(ids: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(Card.parse(i) for i in ids)
