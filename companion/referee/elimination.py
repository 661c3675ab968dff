"""Naming a doubtful card by leaving out the cards the game has seen played, and which
cards a question about one offers (``offered``).

Each card exists once in a deck. When the tracker is unsure of a newly laid card because
its readings share their weight with cards that were played already, the card on the
table is none of those, and the reading is as sure as its share of what is left:
``p(card | not one of the played) = p(card) / (1 - p(played))``. On the real-art Ganjifa
film (a PySolFC deck, enrolled) the players were asked about 50 of 127 cards; in 15 of
them the readings were split between the laid card and a numeral neighbour that had been
played (a Kurma 6 read 0.86 against the played Kurma 8 at 0.12).

Ruling *named by elimination* (``Referee(by_elimination=...)``, on by default): the
referee names such a card itself, without asking, when its reading over the cards still
in play is at least as sure as the tracker needed (``TrackEvent.needed``). It is
conservative: the reading is the lower of the tracker's confidence and the candidate's
share, and only the played cards among the tracker's top candidates are left out (the
rest of the weight still counts against the card). It never names a card whose best
reading is a card already played: a misread earlier card would then make this one wrong
too. Players who want every doubt put to them turn it off.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.cards import Card
from companion.referee.hints import TAKEN
from companion.referee.values import parse_card
from companion.vision.track import TrackEvent


@dataclass(frozen=True)
class Elimination:
    card: Card
    read: float  # the tracker's best reading of it
    sure: float  # over the cards still in play
    played: tuple[str, ...]  # the other readings, cards the game has seen played

    def text(self, zone: str | None) -> str:
        return (f"{self.card.name} on {zone}: read {self.read:.0%} sure, and "
                f"{' and '.join(self.played)} {'has' if len(self.played) == 1 else 'have'} "
                f"been played, so {self.sure:.0%} among the cards still in play")


def named_by_elimination(ev: TrackEvent, played: Callable[[Card], bool]) -> Elimination | None:
    """The card of an unsure event that the played cards settle, or None. ``played``:
    whether the game has seen a card played."""
    if ev.kind != "unsure" or ev.needed is None or not ev.candidates:
        return None
    best, p_best = ev.candidates[0]
    card = parse_card(best)
    if card is None or played(card):
        return None
    gone = [(c, p) for c, p in ev.candidates[1:]
            if (other := parse_card(c)) is not None and played(other)]
    weight = sum(p for _, p in gone)
    if not gone or weight >= 1.0:
        return None
    sure = min(ev.confidence, p_best) / (1.0 - weight)
    if sure < ev.needed:
        return None
    return Elimination(card, p_best, sure, tuple(c for c, _ in gone))


def seen_there(ev: TrackEvent, here: set[Card]) -> bool:
    """A doubt whose best candidate the game has already seen there (``here``: the same card
    under a hand's shadow, or one uncovered when the card on it was taken) is asked about but
    holds nothing up. Any other doubt is a card laid there, unnamed: what follows waits for
    it."""
    top = parse_card(ev.candidates[0][0]) if ev.candidates else None
    return top is not None and top in here


def offered(ev: TrackEvent, here: set[Card], played: Callable[[Card], bool],
            n: int, expected: tuple[tuple[str, str], ...] = ()
            ) -> tuple[tuple[str, float], ...]:
    """The readings of an unsure card that the players are offered: ``n`` of them, and the
    cards the game expects.

    Each card exists once in a deck, so a reading of a card the game has already seen
    played (``played``) is not offered for a newly laid card (the Ganjifa film: "buddha-3
    25%, buddha-5 19%, buddha-4 18%" with buddha-3 and buddha-4 already played asks about
    buddha-5 alone, the card that was laid). A doubt about a card already on that spot
    (``here``) keeps its readings: it is that card. A card seen on that spot stays among the
    readings offered even when another ranks first: on the real-art Kendra Kari film the
    Kumancha 6 on Position 7, read as the 8, was asked about as "kumancha-8, kumancha-4 or
    kumancha-9", without the card that lay there.

    ``expected``: the cards the game expects of the laying player, (card id, why)
    (``hints.expected_of``), offered with their reading (0 when the reader has none). A face-up
    card taken comes first: the reader rarely reads it, since art it does not know is what
    made it unsure. The card a trick calls for comes second, after the best reading (first
    where it is the best): it is right for one follower only, and always first it made a
    good reader's first button wrong (a profile learnt from the first game: 119 -> 113 of
    131 right first; the PySolFC profile, 23 -> 20 of 25).
    """
    if seen_there(ev, here):
        return ev.candidates[:n]
    read = dict(ev.candidates)
    ids = {c for c, _ in expected}
    rest = [(c, p) for c, p in ev.candidates
            if c not in ids and ((card := parse_card(c)) is None or not played(card))][:n]
    lead = [(c, read.get(c, 0.0)) for c, why in expected if why == TAKEN]
    then = [(c, read.get(c, 0.0)) for c, why in expected if why != TAKEN]
    best = rest[:1]
    if best and then and then[0][1] >= best[0][1]:  # the reader's own best: first
        best, then = then, best
    return tuple(lead + best + then + rest[1:])


def over_a_played_card(ev: TrackEvent, table, seat: int | None) -> bool:
    """Ruling *a-doubt-over-a-laid-card-is-asked*: in a trick game, a doubt about a card
    that lay on a player's spot read surely (``TrackEvent.covers``) as that player's card
    of the trick in play (``table``: the referee's picture), while the trick waits for
    nothing more from them, is put to the players, never named by elimination. Elimination
    weighs only the readings, and these no longer rank the card that lay there, though a
    hand resting over it, not a new card, turned them: on the hard Dashavatara film (a
    PySolFC profile, dim light) the 10 of Buddha, read 1.00 and played, was read as the 3
    (0.87) under a resting hand while Player 2 still had to play, and named so, 97% among
    the cards still in play. A second card of a seat the trick still waits for (a doubled
    Deni followed with two cards), a card laid on one of a trick already won (the spots
    are cleared when the trick is gathered) and a card laid on another on the Kendra Kari
    ring (a bridge, not asked here) are new cards, named as before."""
    if ev.covers is None:
        return False
    card = parse_card(ev.covers)
    waits = seat in getattr(table, "queue", ()) or seat == getattr(table, "current", None)
    return not waits and any(c == card for _, c in getattr(table, "trick", ()))
