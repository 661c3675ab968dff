"""The referee's values: what it was shown (facts) and what it says (outputs)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.cards import Card, CardIdError
from companion.games.base import Move, Ruling, Verdict, seat_name


class RefereeError(ValueError):
    """A game without a table layout, bad options, or an answer to no question."""


# the outputs the players answer with a card (``Referee.confirm``) or "none of these"
# (``Referee.dismiss``)
ASKS_FOR_A_CARD = ("unsure", "doubt", "unseen")


@dataclass(frozen=True)
class RefereeOutput:
    """One item of the referee's stream, for the dashboard, the store and ``replay``."""

    # ruling | question | unsure | doubt | unseen | named | draw | desync | resync |
    # correction | superseded; doubt: a sure reading the game cannot accept (a card already
    # played), asked about; unseen: a card a trick lacked when it was gathered, asked
    # about; named: an unsure card named by elimination (referee.elimination); draw: a
    # draw seen, told or inferred, or a pass inferred (Kendra Kari's nine-card limit)
    kind: str
    text: str
    frame: int
    timestamp: float
    ruling: Ruling | None = None
    # question: the possible answers, the assumed one first; unsure/doubt: the readings
    # offered; named: the card
    choices: tuple[str, ...] = ()
    assumed: bool = False  # ruling: rests on an assumption a question asked about
    question_id: int | None = None
    # ruling/correction: its move includes the move ruled at the same ``frame`` (a two-card
    # turn seen card by card); a consumer that stored that one replaces it. In the live
    # stream such a ruling comes as a "correction".
    replaces: bool = False
    # doubt, unsure and unseen: the zone asked about (answered with ``Referee.confirm``); named
    zone: str = ""
    place: str = ""  # the zone in the players' words (``Layout.place``): "Position 3"
    # unsure: the tracker's readings (card, probability), of which ``choices`` are offered
    readings: tuple[tuple[str, float], ...] = ()
    # unsure and doubt: the tracker's track of the card asked about (-1: not known). An
    # answer names that card (``Referee.confirm``'s ``track``): its zone may hold a newer
    # card by the time the players answer. named: the track of the card named, which the
    # tracker is told as an answer (``TableTracker.name``).
    track: int = -1
    # unsure and doubt: the offered cards no reading put there, with why the game expects
    # them of the player whose spot it is (``hints.expected_of``)
    why: tuple[tuple[str, str], ...] = ()
    # unsure: the cards to look among first (``hints.could_lie_at``): in Kendra Kari those
    # the rules let lie there now, in a trick game those seen in the laying seat's hand
    could: tuple[str, ...] = ()

    @property
    def move(self) -> Move | None:
        return self.ruling.move if self.ruling else None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "text": self.text, "frame": self.frame,
                             "timestamp": round(self.timestamp, 3)}
        if self.ruling is not None:
            d["ruling"] = self.ruling.to_json()
        if self.choices:
            d["choices"] = list(self.choices)
        if self.assumed:
            d["assumed"] = True
        if self.question_id is not None:
            d["question"] = self.question_id
        if self.replaces:
            d["replaces_previous"] = True
        if self.zone:
            d["zone"] = self.zone
        if self.readings:
            d["readings"] = [[c, round(p, 3)] for c, p in self.readings]
        if self.track >= 0:
            d["track"] = self.track
        return d


@dataclass(frozen=True)
class Fact:
    """Something the table showed, in order: what the rules are judged on."""

    kind: str  # "laid" | "draw" | "told" | "shown" (Referee.tell_shown) | "cleared" (a
    # face-up batch taken up) | "unsure" (a card laid there, not yet named) | "taken" (a
    # card seen taken off a hand zone, where the judge ``WATCHES_TAKEN``) | "down" (face-down
    # cards seen laid on a seat's play spot: a Hamrang drop-out, ``handfuls.laid_face_down``)
    frame: int
    timestamp: float
    card: Card | None = None
    zone: str = ""
    seat: int | None = None  # a told draw names the seat; "hand": the seat whose hand it was
    move: Move | None = None  # "told": a move the camera cannot see (a pass), from a person
    # "hand": ``seat`` is the seat whose hand was seen doing it; "gathered": unsure, a card
    # the trick lacked when it was gathered (``Referee._gathered_short``)
    source: str = ""
    track: int = -1  # the tracker's track; an unsure fact's later confident reading names it
    since: int = -1  # laid/unsure: the frame the card was first seen there (-1: ``frame``)
    serial: int = -1  # the order it was told in: questions about it are known by this
    # laid/unsure, seen by the camera: the tracker's top readings (card id, probability)
    readings: tuple[tuple[str, float], ...] = ()
    rival: int | None = None  # "hand": another seat's hand nearly as near (``hands.rival``)
    at_stock: bool = False  # "hand": that hand was over the stock just before (it may have drawn)

    @property
    def when(self) -> int:
        """The frame it happened: the facts are judged in this order."""
        return self.since if self.since >= 0 else self.frame


@dataclass
class Derivation:
    outputs: list[RefereeOutput] = field(default_factory=list)
    questions: dict[int, tuple[str, ...]] = field(default_factory=dict)
    reread: Any = None  # a sighting the judging found misread (``misread.Reread``)
    # a seat the count said went out, though a card was laid after, and its cards played
    # from the hand a missed draw may have come before, the likeliest first
    # (``draws.DrawInference._play_went_on``)
    went_on: tuple[int, tuple[Fact, ...]] | None = None
    # the missed draw the players said came before another of that seat's cards: (the
    # draw, that card's fact) (``draws.DrawInference._went_on``)
    move_draw: tuple[Fact, Fact] | None = None


def card_words(card_id: str) -> str:
    """A reading for people: the card's name ("10 of Matsya"), or the reading as it is
    when it names no card."""
    card = parse_card(card_id)
    return card.name if card is not None else card_id


def offer_label(card_id: str, why: str | None = None, p: float | None = None) -> str:
    """How a question names a card it offers: by name, with why the game expects it
    (``hints.expected_of``) or else how sure the reading is."""
    note = why or (f"{p:.0%}" if p is not None else "")
    return f"{card_words(card_id)} ({note})" if note else card_words(card_id)


def parse_card(card_id: str | None) -> Card | None:
    if card_id is None:
        return None
    try:
        return Card.parse(card_id)
    except CardIdError:
        return None


def showing(table: Any) -> bool:
    """Whether a trick game's table (``pictured_table``) waits for the face-up batches of
    the deal (Ganjifa's ``face_up_deal``)."""
    return getattr(getattr(table, "phase", None), "value", None) == "show"


def pictured_table(engine: Any) -> Any:
    """A trick game's table as its referee pictures it (whose turn, the cards played, the
    hand sizes), or None for a game that keeps no picture."""
    return getattr(getattr(engine, "picture", None), "table", None)


def said(ruling: Ruling) -> str:
    """A ruling as the stream tells it: the rules' reason for a refusal, else its events."""
    if ruling.verdict is Verdict.ILLEGAL:
        return f"{seat_name(ruling.move.player)}: {ruling.reason}"
    return "; ".join(e.text for e in ruling.events) or str(ruling.move)
