"""What the game itself says a doubtful card may be, for the question about it: the
face-up cards the laying player took, the card a trick calls for, the cards the rules let
lie on a ring position or the table has seen in the laying seat's hand. Hints for the
players, never a reading: the card is still asked about (``elimination.offered`` places
them among the readings)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from companion.cards import Card

# Why a card no reading put there is offered: it lay face up before the player and was taken
# (``taken_from_view``), or the trick calls for it (``expected_of``)
TAKEN = "was lying face up"
CALLED = "called for"


def taken_from_view(table: Any, seat: int | None, lying: set[Card]) -> tuple[Card, ...]:
    """The cards the game (``table``, its picture of a trick game) has lying face up in
    front of ``seat`` that lie on no spot now (``lying``: the cards seen on the spots):
    taken to be played, so a card just laid on the seat's spot is likely one of them.

    "[The player] simultaneously places the higher-ranked card face up in front of them ...
    where it remains visible until such time as it is played." With the model alone on a
    deck it does not know, that card was asked about on the Deni spot and again when it was
    played, the second time picked from the deck's list (7 cards on the real-art Ganjifa
    film, 8 on its second game). Offered first (``offered``), it is one tap.
    Cards shown at the deal (option ``face_up_deal``) are not: a seat holds six or eight,
    and they would push the reader's readings out; they are the first row of the deck's
    grid instead (``could_lie_at``)."""
    exposed = getattr(table, "exposed", ())
    if seat is None or seat >= len(exposed):
        return ()
    return tuple(sorted((c for c in exposed[seat] if c not in lying), key=lambda c: c.id))


def expected_of(table: Any, seat: int | None, lying: set[Card],
                known: Callable[[int], frozenset[Card]] | None = None
                ) -> tuple[tuple[str, str], ...]:
    """What the game expects of ``seat``'s next card, as (card id, why): the face-up cards
    it took (``taken_from_view``), then the card the trick in play calls for, which its
    holder must play (the table's ``called_of``: a Deni's called card, or a sacrifice's),
    when it lies on no spot. One of the followers holds it, so it is right for one of them;
    where the table has seen it in another seat's hand (``known``: ``Picture.known``, the
    cards shown at a face-up deal), it is not offered to this one."""
    out = [(c.id, TAKEN) for c in taken_from_view(table, seat, lying)]
    called = getattr(table, "called_of", None)
    card = called(seat) if callable(called) and seat is not None else None
    if card is not None and known is not None and any(
            card in known(q) for q in range(getattr(table, "players", 0)) if q != seat):
        card = None
    if card is not None and card not in lying and all(c != card.id for c, _ in out):
        out.append((card.id, CALLED))
    return tuple(out)


def could_lie_at(engine: Any, zone: str | None, seat: int | None = None
                 ) -> tuple[str, ...]:
    """Cards for the players to look among first, for a doubt on ``zone``; () where the
    game says nothing. A place to look, not a filter.

    Kendra Kari, ring position ``zone`` ("pos1".."pos7"): the cards the rules let lie there
    now, from the engine's ``could_lie`` (about 14 of the 96 on the next position,
    measured over 40 simulated games).

    A trick game, a spot of ``seat``: the cards the table has seen in that seat's hand
    (``Picture.known``: shown at a face-up deal, or exposed for a Deni), which it may be
    playing now."""
    could = getattr(engine, "could_lie", None)
    if callable(could) and re.fullmatch(r"pos[1-7]", zone or ""):
        return tuple(c.id for c in could(int(zone[3:])) or ())
    picture = getattr(engine, "picture", None)
    known = getattr(picture, "known", None)
    if callable(known) and seat is not None and seat < getattr(picture.table, "players", 0):
        return tuple(sorted(c.id for c in known(seat)))
    return ()
