"""The players' answers about the cards the referee could not name: which card lies on a
spot (``confirm``), none of those offered (``dismiss``), and which story a two-card turn
told (``answer``). A mixin of :class:`companion.referee.Referee`, whose facts and table it
works on; the moves held behind an unnamed card are judged once it is named."""

from __future__ import annotations

from dataclasses import replace

from companion.cards import Card
from companion.referee.values import Fact, RefereeError, RefereeOutput, parse_card


class Answers:
    """``Referee``'s answers; it holds ``_facts``, ``_table``, ``_named`` ... and judges."""

    def answer(self, question_id: int, choice: int) -> list[RefereeOutput]:
        """Answer a question by the index of its choice; re-judges what followed it."""
        choices = self._derived.questions.get(question_id)
        if choices is None:
            raise RefereeError(f"no open question {question_id}")
        if not 0 <= choice < len(choices):
            raise RefereeError(f"question {question_id} has choices 0..{len(choices) - 1}")
        old = [o for o in self._derived.outputs if o.kind == "ruling"]
        self._answers[question_id] = choice
        self._rederive()
        new = [o for o in self._derived.outputs if o.kind == "ruling"]
        changed = [n for o, n in zip(old, new) if o.ruling != n.ruling] + new[len(old):]
        return [RefereeOutput("correction", f"Corrected: {n.ruling.move}", n.frame, n.timestamp,
                              n.ruling) for n in changed]

    def confirm(self, card_id: str, zone: str, frame: int = 0,
                timestamp: float = 0.0, track: int = -1) -> list[RefereeOutput]:
        """A person named a card the tracker was unsure of: it counts as laid there, when
        it was laid (the moves held behind it are judged now). ``track``: the question's
        (``RefereeOutput.track``), so that a late answer names the card it was asked about,
        not a newer card on the same zone (-1: the first unnamed card there)."""
        card = parse_card(card_id)
        if card is None:
            raise RefereeError(f"bad card id {card_id!r}")
        self.layout.zone(zone)  # raises LayoutError for an unknown zone
        stack = self._table.setdefault(zone, [])
        pending = self._pending(zone=zone, track=track if track >= 0 else None)
        if pending is None and (card in stack or self._already_played(card)):
            return []  # a card the game has already: the doubt was about nothing new
        if pending is not None and self._already_played(card):
            reopened = self._misread_before(card, pending)
            if reopened is not None:
                return reopened
        gathered = pending is not None and self._facts[pending].source == "gathered"
        if pending is not None:
            track = self._facts[pending].track
            self._answered.add(track)
            # (the players' word, not a reading: ``Misreadings`` never asks about it again)
            self._facts[pending] = replace(self._facts[pending], readings=())
            # Named as the card already lying there (a hand or a swept trick half over it
            # made its readings doubtful): it was not laid again.
            was = card.id if card in stack else self._named.get(track)
        else:
            # laid when the card asked about was first seen there, not when the players
            # answered (seconds later, maybe after the next player's card)
            if track < 0:  # the last such doubt on that zone
                track = next((t for t, asked in reversed(self._asked.items())
                              if asked[0] == zone), -1)
            # Ruling *hand-kept-for-the-answer*: the hand seen when the doubt came, not
            # when the players answer. On a hard three-player film Player 1's card laid on
            # Position 3's doubtful card lost its hand, and the players were asked whether
            # Player 3 had played the card just drawn; the game went one player off.
            _, since, seat, source = self._asked.pop(track, (zone, -1, None, ""))
        covering = parse_card(self._named.get(track))
        if card in stack and covering in stack and stack.index(covering) > stack.index(card):
            # named as the card beneath the one its track had: that one was taken off it
            # (a second Deni card played from on top of the first)
            stack.remove(covering)
        if track >= 0:
            self._named[track] = card.id
        if card not in stack and not (track >= 0 and track in self._gone) and not gathered:
            stack.append(card)
        if gathered:
            told = len(self._facts)
            out = self._name_pending(pending, card, was)
            # (a doubled trick may lack another card; an answer naming a card the game has
            # seen played names nothing, and asking again asked it forever)
            return out + (self._gathered_short(frame, timestamp)
                          if len(self._facts) == told else [])
        if pending is not None:
            return self._name_pending(pending, card, was)
        return self._add(Fact("laid", frame, timestamp, card, zone, seat, since=since,
                              track=track, source=source))

    def _misread_before(self, card: Card, pending: int) -> list[RefereeOutput] | None:
        """The players name a card they were asked about as one the game has seen another
        seat play: their word stands, so that earlier sighting was a misreading. The card is
        laid here, the earlier one is unnamed again, and the players are asked which card
        it was (an ``unseen`` question about the spot and the time it was seen); what
        followed it waits.

        Ruling *players-over-an-earlier-reading* (trick games). On the hard Dashavatara
        film with its PySolFC profile Player 2's 2 of Matsya was read surely as the 4; when
        Player 1 later played the 4, the players, asked, said it was the 4, and the answer
        was dropped as a card already played: Player 1's card vanished from the game. A
        card the same seat showed before (a Deni's exposed card, then played) is no such
        conflict. Nor is a card of an earlier round where each round is dealt from a fresh
        shuffle (Komi, Nakash, Sama: ``FRESH_DECK_A_ROUND``): on a filmed Sama game the 8 of
        Cheng, a face-up card of round 1, named in round 2 made round 1's deal a misreading."""
        if self.shared or getattr(self._judge_class, "FRESH_DECK_A_ROUND", False):
            return None
        here = self._facts[pending]
        seat = self.layout.zone(here.zone).seat
        earlier = next((i for i, f in enumerate(self._facts) if i != pending and
                        f.kind == "laid" and f.card == card
                        and self.layout.zone(f.zone).seat != seat), None)
        if earlier is None:
            return None
        f = self._facts[earlier]
        self._facts[earlier] = replace(f, kind="unsure", card=None)
        self._facts[pending] = replace(here, kind="laid", card=card, readings=())
        self._named[here.track] = card.id
        self._answered.add(here.track)
        stack = self._table.get(f.zone, [])
        if card in stack:
            stack.remove(card)
        if card not in (lying := self._table.setdefault(here.zone, [])):
            lying.append(card)
        zone = self.layout.zone(f.zone)
        place = self.layout.place(f.zone)
        why = self._expected_of(zone.seat)
        asked = RefereeOutput("unseen", f"{card.name} lies on {self.layout.place(here.zone)}, so "
                              f"the card seen on {place} before was not the {card.name}: "
                              "which card was it?", f.frame, f.timestamp,
                              choices=tuple(c for c, _ in why), zone=f.zone, place=place,
                              track=f.track, why=why)
        return [asked] + self._add_judged()

    def dismiss(self, zone: str, track: int = -1) -> list[RefereeOutput]:
        """"None of these": the unnamed card on ``zone`` (the question's ``track``, as in
        ``confirm``) is left out, and the moves held behind it are judged without it."""
        pending = self._pending(zone=zone, track=track if track >= 0 else None)
        if pending is None:
            return []  # nothing was held for it (a card off the zones, or named already)
        del self._facts[pending]
        return self._add_judged()

    @property
    def waiting_for(self) -> str:
        """The zone of the first unnamed card that holds up the judging, or ""."""
        i = self._pending()
        return self._facts[i].zone if i is not None else ""

    def waits_on(self, zone: str) -> bool:
        """Whether an unnamed card on ``zone`` holds up the judging (``confirm`` names it)."""
        return self._pending(zone=zone) is not None

    def _held_before(self, frame: int) -> bool:
        """Whether an unnamed card laid before ``frame`` holds up the judging."""
        i = self._pending()
        return i is not None and self._facts[i].when < frame

    def _pending(self, zone: str | None = None, track: int | None = None) -> int | None:
        for i, f in enumerate(self._facts):
            if f.kind == "unsure" and (zone is None or f.zone == zone) and (
                    track is None or f.track == track):
                return i
        return None

    def _name_pending(self, i: int, card: Card, was: str | None, seat: int | None = None,
                      source: str = "") -> list[RefereeOutput]:
        """Name the held card ``i``; ``was``: what its track was named before the doubt."""
        f = self._facts[i]
        if f.source:  # the hand seen when it was laid, over one seen when it was named
            seat, source = f.seat, f.source
        if was == card.id or self._already_played(card):
            del self._facts[i]  # named as the card it already was: nothing new was laid
        else:
            self._facts[i] = replace(f, kind="laid", card=card, seat=seat, source=source)
        return self._add_judged()

    def _let_go_unanswered(self, track: int) -> list[RefereeOutput]:
        """A card the game knew by name, doubted again and taken away before anyone
        answered, no longer holds up the judging; the question stays open, and an answer
        naming another card puts that card in the story where it was laid (``confirm``).

        A hand passing changes the readings of a card the reader cannot name (art it does
        not know, or a card its profile has no picture of): they are noise, and a changed
        first reading looks like a card laid on it. On the real-art Kendra Kari film read
        with a profile of 17 of its 96 cards, the Cheng 4 the players had named was doubted
        again as the ring was swept after a bridge, nobody answered (the card was gone), and
        the last 5 of the game's 18 moves waited behind it for good (all 18 followed with
        this)."""
        pending = self._pending(track=track) if track >= 0 else None  # (-1: no track)
        if pending is None or track not in self._named:
            return []
        fact = self._facts.pop(pending)
        self._asked[track] = (fact.zone, fact.when, fact.seat, fact.source)
        return self._add_judged()
