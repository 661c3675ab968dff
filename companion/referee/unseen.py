"""Cards laid where the camera never saw them, asked about once their pile is gathered.

A resting hand can lie over a card for as long as it lies on the table. The camera then
sees the pile it belonged to taken away without it: a trick gathered a card short
(``_gathered_short``), or Kendra Kari's ring gathered with no bridge seen
(``_ring_gathered``). Either way the players are asked which card it was (an ``unseen``
output, answered like an unsure card: ``confirm`` on its zone, or ``dismiss``), and what
follows waits for the answer. A mixin of :class:`companion.referee.Referee`, whose facts,
table and engine it works on.
"""

from __future__ import annotations

from companion.cards import Card
from companion.games.base import seat_name
from companion.referee.hints import could_lie_at
from companion.referee.values import Fact, RefereeOutput, parse_card, pictured_table

# Ring positions the game holds cards on, seen emptied, that tell the ring was gathered
# (``_ring_gathered``): a bridge needs five (Positions 7 and 1 to 4 at least), and no card
# leaves the ring otherwise; one or two can be a hand hiding them a moment
RING_GATHERED = 3


class Unseen:
    """``Referee``'s questions about cards gathered unseen."""

    def _gathered_short(self, frame: int, timestamp: float) -> list[RefereeOutput]:
        """A trick the game still waits on whose cards have all been taken off the spots:
        the player to play laid a card the camera never saw, and the players are asked
        which (an ``unseen`` output, answered like an unsure card: ``confirm`` on that
        player's play spot, or ``dismiss``). What follows waits for the answer.

        Ruling *gathered-unseen*: asked once two or more of the trick's cards were seen
        (one card taken back is a lead changed, not a trick gathered). On a filmed game in
        dim light a resting hand hid three followers' cards for as long as they lay there;
        each trick was swept a card short, that card's player's next lead was taken to end
        the old trick, and 25 moves were refused and 36 lost.

        The card goes in its turn, right after the trick's last card seen: on another such
        film Player 2's card, laid after Player 1's unseen one, had been refused ("Player 1
        still has to play"), and the answer put Player 1's card after it, which cost the
        rest of the game."""
        short = getattr(self._last_judge, "short", None)
        if callable(short):  # Hamrang, Ekrang: turns of a handful of cards
            return self._handfuls_short(short(), frame, timestamp)
        table = pictured_table(self.engine)
        trick = getattr(table, "trick", ())
        seat = getattr(table, "current", None)
        if len(trick) < 2 or seat is None or self._pending() is not None:
            return []
        zone = next((z.id for z in self.layout.zones if z.kind == "play" and z.seat == seat),
                    None)
        lying = self._lying()
        if zone is None or any(c in lying for _, c in trick):
            return []
        why = self._expected_of(seat)
        out = [RefereeOutput("unseen", f"{seat_name(seat)}'s card was not seen before the "
                             "trick was gathered: which card did they play?", frame,
                             timestamp, choices=tuple(c for c, _ in why), zone=zone,
                             place=self.layout.place(zone), why=why,
                             could=could_lie_at(self.engine, zone, seat))]
        # It was laid in its turn, right after the trick's last card: a card laid after
        # that and refused for it ("Player 1 still has to play") is judged again after it
        last = trick[-1][1]
        after = max((f.when for f in self._facts if f.kind == "laid" and f.card == last),
                    default=frame - 1)
        return out + self._add(Fact("unsure", frame, timestamp, zone=zone, source="gathered",
                                    since=min(after + 1, frame)))

    def _on_hands(self, ev) -> bool:
        """Whether ``ev`` is on a seat's hand zone where hands are judged there (Komi,
        Nakash, Sama: the judge's ``ZONE`` "hand")."""
        zone = self._zone_of(ev)
        return getattr(self._judge_class, "ZONE", "") == "hand" and zone is not None and \
            zone.kind == "hand"

    def _taken_off(self, ev, card: Card | None, left: list[Card]) -> list[RefereeOutput]:
        """A card seen taken off a hand zone (``left``: what still lies there): a
        ``taken`` fact where the judge tells an exchange by it (Sama: ``WATCHES_TAKEN``),
        and, the zone left bare, a hand taken up a card short is asked about."""
        out = []
        if card is not None and getattr(self._judge_class, "WATCHES_TAKEN", False):
            out += self._add(Fact("taken", ev.last_frame, ev.timestamp, card, ev.zone))
        return out + ([] if left else self._gathered_short(ev.last_frame, ev.timestamp))

    def _covered_taken(self, ev, stack: list[Card]) -> list[RefereeOutput]:
        """A card laid where the seat's card lay on its hand zone (``TrackEvent.covers``),
        where the judge ``WATCHES_TAKEN``: that card was taken off first (a Sama face-up
        card exchanged in place; the tracker saw one card change, never one go)."""
        covered = parse_card(ev.covers)
        if covered not in stack[:-1] or not getattr(self._judge_class, "WATCHES_TAKEN", False):
            return []
        stack.remove(covered)
        since = (ev.since if ev.since >= 0 else ev.first_frame) - 1
        return self._add(Fact("taken", ev.last_frame, ev.timestamp, covered, ev.zone,
                              since=since))

    def _handfuls_short(self, short: list[tuple[int, int]], frame: int,
                        timestamp: float) -> list[RefereeOutput]:
        """Ruling *gathered-unseen* for turns of a handful of cards (``HandfulJudge.short``:
        the seats that laid part of a turn, and how many cards each lacks): once the seats'
        zones are bare (a trick gathered; a hand taken up, each on its own), each missing
        card is asked about, in turn order, naming the cards seen. On a hard Hamrang
        film the 1 of Chandra, a pair's second card, was never seen: the seat's next card
        made up the pair, and every later pair of that seat was one card off."""
        kind = self._last_judge.ZONE
        if kind == "hand":  # each hand is taken up on its own
            short = [(s, n) for s, n in short if not self._table.get(f"hand{s}")]
        elif any(self._table.get(z.id) for z in self.layout.zones if z.kind == kind):
            return []  # (a trick is gathered whole)
        # asked once where the story stands: "none of these" leaves the turn short, and
        # asking again at each zone seen bare put 967 questions on a filmed Sama game
        at = len(self.rulings())
        short = [(s, n) for s, n in short if (s, at) not in self._short_asked]
        if not short or self._pending() is not None:
            return []
        self._short_asked |= {(s, at) for s, _ in short}
        after = max((f.when for f in self._facts if f.kind == "laid"), default=frame - 1)
        out = []
        for k, (seat, missing) in enumerate(short):
            zone = f"{kind}{seat}"
            text, since = self._last_judge.unseen_question(seat, k, after)
            for _ in range(missing):
                out.append(RefereeOutput("unseen", text, frame, timestamp, zone=zone,
                                         place=self.layout.place(zone)))
                out += self._add(Fact("unsure", frame, timestamp, zone=zone,
                                      source="gathered", since=min(since, frame)))
        return out

    def _ring_gathered(self, frame: int, timestamp: float) -> list[RefereeOutput]:
        """Kendra Kari: "After a bridge is built, all cards played so far are gathered up
        and taken out of the game." Ring positions the game holds cards on, seen emptied
        (``RING_GATHERED`` of them) while the game has no bridge, were gathered after a
        bridge the camera never saw. The players are asked which card went to Position 7
        and which, if any, went to the next position first (the two-card turn); until they
        answer, what follows waits.

        Ruling *ring-gathered-unseen*: the player to play built it (a card on the next
        position can be no one else's), unless the hand seen over Position 7 says who; the
        cards a hand hid there went with the rest, whatever the tracker still holds. On a
        hard film with the Mughal deck's art both cards of a bridge lay under a resting
        hand until the ring was swept, and the next phase's first card was judged a bridge
        that was not valid: 3 cards refused, 2 never known (113 of 121 moves followed)."""
        position = getattr(self.engine, "next_position", None)
        q = position() if callable(position) else None
        if q is None or self._pending() is not None:
            return []  # (a bridge seen, or a card not yet named: the gathering is expected)
        held = self.expected_table()
        if sum(not self._table.get(zone) for zone in held) < RING_GATHERED:
            return []
        for zone in held:
            self._table.pop(zone, None)
        seat = self.engine.state.turn
        # after everything seen on the table before the sweep
        since = min(max((f.when for f in self._facts if f.kind in ("laid", "draw")),
                        default=frame - 1) + 1, frame)
        first, bridge = f"pos{q}", "pos7"
        # (no buttons: the deck's cards the rules let lie there are the players' first row)
        out = [RefereeOutput("unseen", f"The ring was gathered, but no bridge was seen: "
                             f"did {seat_name(seat)} play a card to Position {q} before the "
                             "bridge? Which one? (None of these, if the bridge was one card.)",
                             frame, timestamp, zone=first, place=self.layout.place(first),
                             could=could_lie_at(self.engine, first)),
               RefereeOutput("unseen", "The ring was gathered, but no bridge was seen: which "
                             "card went to Position 7?", frame, timestamp, zone=bridge,
                             place=self.layout.place(bridge),
                             could=could_lie_at(self.engine, bridge))]
        hand, source = self._hand_over(bridge, frame)
        return (out + self._add(Fact("unsure", frame, timestamp, zone=first, seat=seat,
                                     source="gathered", since=since))
                + self._add(Fact("unsure", frame, timestamp, zone=bridge, seat=hand,
                                 source=source, since=since + 1)))
