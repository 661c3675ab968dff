"""Sure readings the game shows were wrong (``look_for_a_misreading``): a card read on a
spot though it lies elsewhere (``_doubt``), a card of the trick just closed that the next
lead shows was misread (trick games), and a card the rules refuse that another of its
readings would fit (``_another_reading``).

Dashavatara's rule book: "The winner of a trick leads to the next." The seat that leads
after a trick has won it, whatever the cards read there say. A sure misreading nobody asks
about can give the trick to another seat, and every lead and follow after it is then judged
on the wrong turns.

Ruling *the-lead-tells-the-trick*: when a card on a seat's play spot is refused because, by
the cards seen, another seat won the trick just closed (every card of it accepted), each
camera-read card of that trick is read, in turn, as every other card of the deck. If some
reading lets the rules accept the card laid now, that card's sighting is reopened, and the
players are asked which card it was. What follows waits for the answer. The seat's own
card of the trick is asked about first, since it must have won; otherwise the card with
the fewest readings that fit. Each refused card asks once, and each sighting is asked
about once; the players' word stands over any reading.

On a brisk, hard Dashavatara film read with the PySolFC deck's profile, Player 2's
Parashurama raja was read surely as the Varaha raja. Player 1 then won the trick by the
cards seen, Player 2's Deni lead was refused, and 41 of the game's 121 moves after it.

A mixin of :class:`companion.referee.Referee`, whose facts, table and engine it works on.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from companion.cards import Card, deck_cards
from companion.games.base import Move, Ruling, Verdict, seat_name
from companion.referee.elimination import offered
from companion.referee.values import Derivation, Fact, RefereeOutput, parse_card, pictured_table

if TYPE_CHECKING:
    from companion.vision.track import TrackEvent

# The most cards a question about a reopened sighting offers (buttons on the dashboard)
OFFERED_REREADS = 4
# A refused card's other reading at least this likely is asked about (about as likely as a
# player's error: ``Misreadings._another_reading``)
OTHER_READING = 0.01
# The readings of a doubtful card offered to the players (buttons on the dashboard). The
# tracker keeps more (``classify.TOP_K``), for the played cards they may leave out.
OFFERED = 3


@dataclass(frozen=True)
class Reread:
    """A sighting to ask about again (its fact's serial), for the refused card's fact
    (``refused``), with the cards that, read there, let the refused card stand."""

    serial: int
    refused: int
    cards: tuple[Card, ...]
    text: str
    kind: str = "unseen"  # the question's: a card of the trick before, or this one


class Misreadings:
    """``Referee``'s questions about sure readings the game shows were wrong."""

    def _elsewhere(self, card: Card, zone: str) -> str:
        """Why ``card`` cannot have been laid on ``zone`` now, or "": it was played, or (a
        trick game) it lies exposed before another seat. Ruling *exposed-lies-once*: a Deni's
        high card lies "face up in front of them ... where it remains visible until such time
        as it is played". On a brisk, hard Dashavatara film with its PySolFC profile Player
        4's Varaha vizier was read surely as the Parashurama vizier, exposed by Player 1's
        Deni, and judged an extra lead out of turn."""
        if self._already_played(card):
            return "it has been played already"
        seat = self.layout.zone(zone).seat if self._has_zone(zone) else None
        exposed = getattr(pictured_table(self.engine), "exposed", ())
        return next((f"it lies exposed before {seat_name(q)}" for q, cards in enumerate(exposed)
                     if q != seat and card in cards), "")

    def _doubt_why(self, card: Card, zone: str, elsewhere: str) -> str:
        """Why a sure reading of ``card`` on ``zone``, a move zone, is asked about, or ""
        when it is the card seen again (``elsewhere``: ``_elsewhere``'s reason). On a shared
        ring a played card is seen again as a sweep drags it, so only one that the game and
        the camera both have still lying on another position is doubted. Ruling
        *one-card-one-position*: at a brisk 2011-book table with our art the profile read
        Player 3's Phul vizier on Position 4 as the Cheng vizier lying on Position 2 (0.97),
        the card went unjudged, and the next was refused ("the next position is 4")."""
        if not self.shared:
            return elsewhere
        return next((f"it lies on {self.layout.place(z)}" for z, top in
                     self.expected_table().items()
                     if top == card and z != zone and card in self._table.get(z, ())), "")

    def _doubt(self, ev: TrackEvent, card: Card, elsewhere: str) -> list[RefereeOutput]:
        """A sure reading of a card that lies elsewhere (``_elsewhere`` says why), on a spot.

        Each card exists once in a deck, so the reading is wrong: a card was laid there,
        and the players are asked which (a ``doubt``, answered like an unsure card with
        ``confirm``), while what follows waits for it. Dropping it, as a card seen again,
        left the trick a card short: on the real-art Ganjifa film a Rama vizier read as
        Matsya's (0.93 sure) cost the next 14 rulings. On the filmed games with our own
        art no played card was seen again on another spot."""
        why = self._expected(ev)
        choices = tuple(c for c, _ in offered(ev, set(), lambda c: bool(self._elsewhere(
            c, ev.zone)), OFFERED, why))
        place = self.layout.place(ev.zone)
        out = [RefereeOutput("doubt", f"{card.name} was read on {place}, but {elsewhere}: "
                             "which card lies there?", ev.last_frame,
                             ev.timestamp, choices=choices, zone=ev.zone, place=place,
                             track=ev.track_id, why=why)]
        self._doubted.add(ev.track_id)
        return out + self._add_seen(ev, "unsure")

    def look_for_a_misreading(self, f: Fact, moves: list[Move], d: Derivation) -> None:
        """``d.reread``, unless set already in this judging: the sighting to ask about again,
        given that the rules refused each of ``moves`` (the moves ``f``'s card could make;
        the engine stands before them, and is left so). A called card hidden under the
        card that doubles it (*a-double-under-its-card*), else a card of the trick just
        closed (*the-lead-tells-the-trick*), else ``f``'s own (*the-rules-doubt-a-reading*)."""
        if d.reread is None:
            rulings = [o.ruling for o in d.outputs if o.kind == "ruling" and o.ruling]
            # (a hidden double first: the card seen is the very card that doubles)
            d.reread = (self._hidden_double(f, moves, rulings)
                        or self._reread_for_refused(f, moves, rulings)
                        or self._another_reading(f, moves))

    def _another_reading(self, f: Fact, moves: list[Move]) -> Reread | None:
        """Ruling *the-rules-doubt-a-reading*: a card the camera read surely that the rules
        refuse, where one of its other readings at least ``OTHER_READING`` likely (about as
        likely as a player's error) would be accepted, is asked about: the players name
        it, or say it was read right (it is then refused as before).

        On a brisk, hard Kendra Kari film with the Mughal deck's profile, Player 3's Surya
        vizier, laid on the 6 of Surya, was read as the Chandra vizier (0.98; the Surya
        vizier 0.02) and refused as a wrong match. When its readings turned a few seconds
        later the players, asked, named the Surya vizier, taken for a second card on top: a
        round of draws nobody made was inferred, and 2 of the film's 38 moves were lost."""
        if f.serial in self._reread_for or not self._camera_read(f):
            return None
        fits = []
        for cid, p in f.readings:
            c = parse_card(cid)
            if c is None or c == f.card or p < OTHER_READING or self._elsewhere(c, f.zone):
                continue
            if any(_accepted(self.engine, _with_card(m, m.cards.index(f.card), c))
                   for m in moves if f.card in m.cards):
                fits.append(c)
        if not fits:
            return None
        text = (f"{f.card.name} was read on {self.layout.place(f.zone)}, but the rules do not "
                "allow it there: which card lies there?")
        return Reread(f.serial, f.serial, (*fits, f.card), text, "doubt")

    def _reread_for_refused(self, f: Fact, candidates: list[Move], rulings: list[Ruling]
                            ) -> Reread | None:
        """*the-lead-tells-the-trick* (the module's docstring): the sighting of the trick
        just closed to ask about, or None."""
        seat = candidates[0].player
        table = pictured_table(self.engine)
        if f.serial in self._reread_for or getattr(table, "trick", None) != () \
                or getattr(table, "current", None) in (None, seat):
            return None
        k = _closed_trick(self.engine, [r.move for r in rulings])
        if not k:
            return None
        trick = tuple(rulings[-k:])
        if any(r.verdict is Verdict.ILLEGAL for r in trick):
            return None  # (a story gone wrong before this trick: no one card to blame)
        # (judged again at every new fact: searched once)
        key = (f.serial, tuple((r.move, r.verdict) for r in trick))
        if key not in self._reread_memo:
            self._reread_memo[key] = self._search(f, seat, candidates, trick)
        return self._reread_memo[key]

    def _search(self, f: Fact, seat: int, candidates: list[Move],
                trick: tuple[Ruling, ...]) -> Reread | None:
        eng = self.engine
        deck = deck_cards(self.module.DECK)
        found: list[tuple[Fact, tuple[Card, ...]]] = []
        for i, r in _trick_replayed(eng, trick):
            for j, card in enumerate(r.move.cards):
                sighting = self._sighting(card, r.move.player)
                if sighting is None:
                    continue
                fits = tuple(c for c in deck if c not in r.move.cards and _stands_after(
                    eng, trick, i, _with_card(r.move, j, c), candidates, closed=True))
                if fits:
                    found.append((sighting, fits))
        if not found:
            return None
        own = [x for x in found if self.layout.zone(x[0].zone).seat == seat]
        sighting, fits = own[0] if own else min(found, key=lambda x: len(x[1]))
        place = self.layout.place(sighting.zone)
        text = (f"{seat_name(seat)} leads, so {seat_name(seat)} won the last trick, which "
                f"the {sighting.card.name} seen on {place} does not allow: which card was "
                "it?")
        # a misreading takes a card for another of its rank or of its suit, mostly
        read = sighting.card
        fits = tuple(sorted(fits, key=lambda c: (c.rank != read.rank, c.suit != read.suit)))
        return Reread(sighting.serial, f.serial, fits, text)

    def _hidden_double(self, f: Fact, candidates: list[Move], rulings: list[Ruling]
                       ) -> Reread | None:
        """Ruling *a-double-under-its-card*: "If the player with the called-for card also
        happens to have the card in the same suit that is one rank lower than the leading
        player's revealed high card, they may play that card as well, and each other
        player must then play an extra card." When a card is refused because the trick
        just closed, and a seat's one card of that trick was the card that doubles the
        Deni, the called-for card may lie under it, unseen: if that double lets the
        refused card stand, the hidden card is put among the facts and the players asked.

        On a hard three-player Dashavatara film with the PySolFC deck, Player 1 laid the
        Balarama vizier and the 9 on it, 2 mm apart, under a hand: the vizier was never
        seen, the trick closed on the 9, and the two extra cards it called for were
        refused as leads out of turn."""
        table = pictured_table(self.engine)
        if f.serial in self._reread_for or getattr(table, "trick", None) != ():
            return None
        k = _closed_trick(self.engine, [r.move for r in rulings])
        trick = tuple(rulings[-k:]) if k else ()
        eng = self.engine
        with closing(_trick_replayed(eng, trick)) as moves:
            for i, r in moves:
                deni = getattr(pictured_table(eng), "deni", None)
                m = r.move
                if deni is not None and deni.doubled_by is None \
                        and m.action == "follow" and m.cards == (deni.double_card,) \
                        and not self._elsewhere(deni.called, "") \
                        and _stands_after(eng, trick, i, Move(m.player, "double", (
                            deni.called, m.cards[0])), candidates):
                    seen = self._sighting(m.cards[0], m.player, camera=False)
                    return Reread(seen.serial, f.serial, (deni.called,), "", "double") \
                        if seen else None
        return None

    def _sighting(self, card: Card, seat: int, camera: bool = True) -> Fact | None:
        """The camera's sighting of ``card`` on ``seat``'s spots, unless a person named it
        or it was asked about again already (``camera`` False: any card laid there)."""
        return next((f for f in self._facts if f.card == card and f.kind == "laid"
                     and (self._camera_read(f) or not camera)
                     and self.layout.zone(f.zone).seat == seat), None)

    def _camera_read(self, f: Fact) -> bool:
        """Whether ``f`` is a card the camera read (not one the players named), not yet
        asked about again."""
        return f.kind == "laid" and bool(f.readings) and f.card is not None \
            and f.serial not in self._reread

    def _ask_reread(self) -> list[RefereeOutput]:
        """Reopen the sighting the last judging found misread, and ask about it (or put
        the card found hidden under it among the facts: the judge asks)."""
        r = self._derived.reread
        if r is None:
            return []
        self._reread_for.add(r.refused)
        i = next(k for k, f in enumerate(self._facts) if f.serial == r.serial)
        f = self._facts[i]
        if r.kind == "double":
            self._facts.insert(i, replace(f, card=r.cards[0], source="under", readings=(),
                                          track=-1, serial=self._serial))
            self._serial += 1
            self._rederive()
            return []
        self._reread.add(r.serial)
        self._facts[i] = replace(f, kind="unsure", card=None)
        stack = self._table.get(f.zone, [])
        if f.card in stack:
            stack.remove(f.card)
        if self._named.get(f.track) == f.card.id:
            # (an answer naming the card it was read as lays it again: see ``confirm``)
            del self._named[f.track]
        fits = "the lead says so" if r.kind == "unseen" else "the rules allow it"
        why = tuple((c.id, "as read" if c == f.card else fits)
                    for c in r.cards[:OFFERED_REREADS])
        self._rederive()
        return [RefereeOutput(r.kind, r.text, f.frame, f.timestamp,
                              choices=tuple(c for c, _ in why), zone=f.zone,
                              place=self.layout.place(f.zone), track=f.track, why=why,
                              could=tuple(c.id for c in r.cards))]


def _with_card(move: Move, j: int, card: Card) -> Move:
    return replace(move, cards=move.cards[:j] + (card,) + move.cards[j + 1:])


def _trick_replayed(eng, trick: tuple[Ruling, ...]) -> Iterator[tuple[int, Ruling]]:
    """Each move of ``trick`` (observed last) with its index, the engine standing before
    it; once done or closed, the engine as the trick left it."""
    for _ in trick:
        eng.undo()
    observed = 0
    try:
        for i, r in enumerate(trick):
            yield i, r
            eng.observe(r.move)
            observed += 1
    finally:
        for r in trick[observed:]:
            eng.observe(r.move)


def _closed_trick(eng, moves: list[Move]) -> int:
    """How many of the last observed ``moves`` made the trick the last of them closed
    (0: it closed none); the engine is left as it was."""
    k = 0
    closed = False
    while k < len(moves):
        eng.undo()
        k += 1
        trick = getattr(pictured_table(eng), "trick", ())
        if k == 1:
            closed = bool(trick)
        if not trick:
            break
    for m in moves[len(moves) - k:]:
        eng.observe(m)
    return k if closed else 0


def _stands_after(eng, trick: tuple[Ruling, ...], i: int, move: Move,
                  candidates: list[Move], closed: bool = False) -> bool:
    """Whether the trick, from its ``i``-th move (the engine stands before it) read with
    ``move`` there, is accepted (``closed``: and closes with the refused card's seat to
    lead), and then lets one of ``candidates`` stand. The engine is left as it was."""
    done = 0
    try:
        for k, r in enumerate(trick[i:]):
            done += 1
            if eng.observe(r.move if k else move).verdict is Verdict.ILLEGAL:
                return False
        if closed and getattr(pictured_table(eng), "current", None) != candidates[0].player:
            return False
        return any(_accepted(eng, c) for c in candidates)
    finally:
        for _ in range(done):
            eng.undo()


def _accepted(eng, move: Move) -> bool:
    """Whether the rules accept ``move`` now; the engine is left as it was."""
    ok = eng.observe(move).verdict is not Verdict.ILLEGAL
    eng.undo()
    return ok
