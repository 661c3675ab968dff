"""What the players are offered for a card the camera could not name, and the cards it
could be: the cards seen on its spot, the cards the game has seen played elsewhere, and
the cards the game expects of the seat whose spot it is. A mixin of
:class:`companion.referee.Referee`, whose table, tracks and engine it reads.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.cards import Card
from companion.referee.elimination import offered, over_a_played_card, seen_there
from companion.referee.hints import expected_of
from companion.referee.misread import OFFERED
from companion.referee.values import parse_card, pictured_table
from companion.vision.track import TrackEvent


class Offers:
    """``Referee``'s offers for an unsure card."""

    def _played_elsewhere(self, ev: TrackEvent) -> Callable[[Card], bool]:
        """A test of whether the game has seen a card played, leaving out the cards seen
        on ``ev``'s spot or named for its track: the doubt may be about that very card,
        read again (on the real-art Kendra Kari film a Kumancha 6 lying on Position 7 was
        later read as the 8, 0.83 against 0.14)."""
        here = self._here(ev)
        return lambda card: card not in here and self._already_played(card)

    def _here(self, ev: TrackEvent) -> set[Card]:
        """The cards seen on ``ev``'s spot, the card its track was named, and on a Deni spot
        the cards the game has exposed there (a sweep hid one long enough to be taken
        away, and a glimpse of it back was asked about, holding up the game)."""
        named = parse_card(self._named.get(ev.track_id))
        here = set(self._table.get(ev.zone or "", ())) | ({named} if named else set())
        zone = self._zone_of(ev)
        exposed = getattr(pictured_table(self.engine), "exposed", ())
        if zone is not None and zone.kind == "deni" and zone.seat < len(exposed):
            here |= exposed[zone.seat]
        return here

    def _doubt_over_own_card(self, ev: TrackEvent) -> bool:
        """See :func:`~companion.referee.elimination.over_a_played_card` (trick games)."""
        zone = self._zone_of(ev)
        return not self.shared and over_a_played_card(
            ev, pictured_table(self.engine), zone.seat if zone is not None else None)

    def _seen_there(self, ev: TrackEvent) -> bool:
        return seen_there(ev, self._here(ev))

    def choices_for(self, ev: TrackEvent, expected: tuple[tuple[str, str], ...] | None = None
                    ) -> tuple[tuple[str, float], ...]:
        """The readings of an unsure card that the players are offered (see
        :func:`~companion.referee.elimination.offered`); ``expected``: ``_expected(ev)``,
        when the caller has it already."""
        return offered(ev, self._here(ev), self._played_elsewhere(ev), OFFERED,
                       self._expected(ev) if expected is None else expected)

    def _expected(self, ev: TrackEvent) -> tuple[tuple[str, str], ...]:
        """See :func:`~companion.referee.hints.expected_of` (of a card on the seat's
        play spot: one on its Deni spot is a new card to expose)."""
        zone = self._zone_of(ev)
        return self._expected_of(zone.seat if zone is not None and zone.kind == "play"
                                 else None)

    def _lying(self) -> set[Card]:
        """The cards seen on the spots now."""
        return {c for stack in self._table.values() for c in stack}

    def _expected_of(self, seat: int | None) -> tuple[tuple[str, str], ...]:
        known = getattr(getattr(self.engine, "picture", None), "known", None)
        return expected_of(pictured_table(self.engine), seat, self._lying(), known)
