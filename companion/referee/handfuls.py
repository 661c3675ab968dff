"""Trick games whose turn is a handful of cards on the seat's own play spot: Hamrang and
Ekrang at a camera table.

Hamrang (seed 003): "The first player begins by playing ... the Raja of Surya or Chandra.
She then plays the lowest card in her hand from the same suit." "The other three players
then play their highest and lowest cards" - every turn is two cards. Ekrang: "the first
player places their Raja of Surya or Chandra as appropriate along with another card of 8
or higher on the table. Each other player places a card of lower value" - the setup is two
cards, every later turn one.

Ruling *a-turn-is-its-handful*: a seat's cards seen on its play spot make one move once
there are as many as the move takes; the order a camera sees them laid in says nothing
(a lead names its high card first, and is tried both ways). The moves are judged in turn
order, whatever order the hands were seen in: a seat's cards wait until its turn comes.

Ruling *out-shown-face-down* (Hamrang): "If a player has no face cards left she is out of
the game. She places her cards face-down in front of her": face-down cards seen laid on
her play spot are her drop-out, judged in her turn.

Ruling *out-seen-by-the-next-turn* (Hamrang), where no face-down cards were seen: when the
next seat lays a whole turn while it is hers and she has laid nothing, she dropped out, or
the next seat played out of turn. The players are asked which; until they answer, the
likelier holds: out, unless her hand is so big that it holding no face card has under a 1%
chance (24 cards: 0.6%), or she lays cards later (a player who drops out never plays
again).
"""

from __future__ import annotations

import itertools
from math import comb
from typing import TYPE_CHECKING

from companion.cards import deck_cards
from companion.games.base import Move, Ruling, Verdict, seat_name
from companion.referee.judges import ask
from companion.referee.values import Derivation, Fact, RefereeOutput, said

if TYPE_CHECKING:
    from companion.referee import Referee


# moves that show no card, inferred when the next seat lays its turn (by game)
UNSEEN_MOVES = {"hamrang": ("out",)}
# A drop-out is likelier than a turn out of turn from this chance of a hand with no face card
LIKELY_OUT = 0.01


def chance_of_no_face(state, seat: int, deck) -> float:
    """The chance that ``seat``'s hand (Hamrang's table state) holds no face card, every
    card not seen played as likely to be in it."""
    unseen = [c for c in deck_cards(deck) if c not in state.seen]
    faces, k = sum(c.rank.is_face for c in unseen), state.counts[seat]
    return comb(len(unseen) - faces, k) / comb(len(unseen), k) if k <= len(unseen) else 0.0


def laid_face_down(ref: Referee, ev) -> Fact | None:
    """A ``down`` fact: face-down cards seen laid (``ev``, "appeared" with no card) on a
    seat's play spot, where the game has a move that shows none (Hamrang's ``out``)."""
    zone = ref._zone_of(ev)
    if ev.kind != "appeared" or ev.card_id is not None or zone is None or \
            zone.kind != "play" or not UNSEEN_MOVES.get(ref.game):
        return None
    return Fact("down", ev.last_frame, ev.timestamp, zone=zone.id, seat=zone.seat,
                since=ev.since)


class HandfulJudge:
    """Judges Hamrang's and Ekrang's turns from the cards seen on the seats' play spots
    (see the module's rulings). Re-run from the first fact, like the other judges."""

    ZONE = "play"  # the kind of the seats' zones a turn is laid on
    WAITS_OUT_OF_TURN = False  # a whole turn out of turn waits for its turn (else refused)

    def __init__(self, ref: Referee, d: Derivation):
        self.ref, self.d = ref, d
        self.waiting: dict[int, list[Fact]] = {}  # seat -> its cards not judged yet
        self.down: dict[int, Fact] = {}  # seat -> face-down cards seen on its spot (``out``)
        self.later: list[Fact] = []  # the facts after the one being judged

    def facts(self, facts: list[Fact]) -> None:
        for i, f in enumerate(facts):
            self.later = facts[i + 1:]
            self.fact(f)

    def fact(self, f: Fact) -> None:
        if f.kind == "told" and f.move is not None:
            self._judge([f.move], f)
            return
        if f.kind == "down" and not self._is_out(f.seat):
            self.down[f.seat] = f
        elif f.kind != "laid" or f.card is None:
            return
        else:
            zone = self.ref.layout.zone(f.zone)
            if zone.kind != self.ZONE or zone.seat is None or zone.seat >= self.ref.players:
                return
            self.waiting.setdefault(zone.seat, []).append(f)
        while self._judge_next():
            pass

    def _judge_next(self) -> bool:
        """Judge the next whole turn waiting, if any; whether one was judged."""
        eng = self.ref.engine
        action, need = self.shape(eng.state)
        turn = self.ref.module.current_player(eng.state)
        if turn in self.down:  # ruling *out-shown-face-down*
            return self._out_shown(turn, self.down.pop(turn))
        whole = [s for s, fs in self.waiting.items() if len(fs) >= need]
        if not whole:
            return False
        if self._unseen_before(turn, self.waiting[whole[0]][need - 1]):
            return True
        first = min((s for s, fs in self.waiting.items() if fs),
                    key=lambda s: self.waiting[s][0].when)
        if turn is None:  # the table learns who leads from the lead itself, begun first
            if first not in whole:
                return False
            seat = first
        elif turn in whole:
            seat = turn
        elif self.waiting.get(turn):
            # (its turn is part laid: a card of it still to come, or seen late)
            return False
        elif self._unseen_move(turn, whole[0], self.waiting[whole[0]][need - 1]):
            return True
        elif self.WAITS_OUT_OF_TURN:
            return False
        else:  # out of turn: judged (and refused) now, as the table shows it
            seat = min(whole, key=lambda s: self.waiting[s][0].when)
        facts = self._take(seat, need)
        self._judge(self.moves(seat, action, tuple(f.card for f in facts)), facts[-1])
        return True

    def _take(self, seat: int, n: int) -> list[Fact]:
        """The first ``n`` cards waiting of ``seat``'s, taken to be judged."""
        facts, self.waiting[seat] = self.waiting[seat][:n], self.waiting[seat][n:]
        return facts

    def short(self) -> list[tuple[int, int]]:
        """The seats the trick in play still waits on, with how many cards each lacks; in
        Hamrang only those that laid part of their turn (one that laid nothing may have
        dropped out: the next turn laid tells, ``_unseen_move``)."""
        state = self.ref.engine.state
        if not getattr(state, "trick", ()):
            return []  # (no trick in play: cards taken back from a lead)
        _, need = self.shape(state)
        least = 1 if UNSEEN_MOVES.get(self.ref.game) else 0
        laid = {s: len(self.waiting.get(s, ())) for s in getattr(state, "to_play", ())}
        return [(s, need - n) for s, n in laid.items() if least <= n < need]

    def unseen_question(self, seat: int, k: int, after: int) -> tuple[str, int]:
        """The question about a card of ``seat``'s never seen (``short``; ``k``: the seat's
        place among those asked about), naming the cards seen, and the frame it goes in
        the story: in turn order, after ``after`` (the last card seen laid)."""
        what = "the trick was" if self.ZONE == "play" else "the hand was"
        seen = ", ".join(f.card.name for f in self.waiting.get(seat, ()))
        text = (f"A card of {seat_name(seat)}'s was not seen before {what} gathered"
                f"{f' (seen: {seen})' if seen else ''}: which card was it?")
        return text, after + 1 + k

    def shape(self, state) -> tuple[str, int]:
        """(the action, how many cards it takes) of the next turn laid on a seat's zone."""
        if self.ref.game == "ekrang":
            return ("setup", 2) if state.kind == "setup" else ("play", 1)
        return "play", 2  # Hamrang

    def moves(self, seat: int, action: str, cards: tuple) -> list[Move]:
        """The moves a whole turn's cards may be, in the order tried: every order they may
        have been laid in."""
        return [Move(seat, action, order) for order in itertools.permutations(cards)]

    def _unseen_before(self, turn: int | None, f: Fact) -> bool:
        """A move no card shows, made before any whole turn is judged (``f``: the last
        card of the first whole turn waiting); whether one was made. None here."""
        return False

    def _is_out(self, seat: int | None) -> bool:
        out = getattr(self.ref.engine.state, "out", ())
        return seat is None or (seat < len(out) and out[seat])

    def _out_shown(self, seat: int, f: Fact) -> bool:
        """Ruling *out-shown-face-down*: ``seat`` is out, if the rules take it (else her
        face-down cards were something else, and are let be)."""
        ruling = self.ref.engine.observe(Move(seat, "out"))
        if ruling.verdict is Verdict.ILLEGAL:
            self.ref.engine.undo()
            return False
        self._say(ruling, f, " (her cards laid face down)")
        return True

    def _unseen_move(self, seat: int, laid_by: int, f: Fact) -> bool:
        """Ruling *out-seen-by-the-next-turn*: ``seat``'s move that shows no card, while
        ``laid_by`` laid a whole turn (``f`` its last card), if the rules take it and the
        players do not say ``laid_by`` played out of turn."""
        if not UNSEEN_MOVES.get(self.ref.game) or any(
                g.kind == "laid" and g.zone == f"play{seat}" for g in self.later):
            return False  # (none in this game; or it plays on: it did not drop out)
        shown = next((g for g in self.later if g.kind == "down" and g.seat == seat), None)
        if shown is not None:  # her cards laid face down, seen late
            return self._out_shown(seat, shown)
        eng = self.ref.engine
        for action in UNSEEN_MOVES.get(self.ref.game, ()):
            ruling = eng.observe(Move(seat, action))
            if ruling.verdict is not Verdict.ILLEGAL:
                likely = int(chance_of_no_face(eng.state, seat, self.ref.module.DECK)
                             < LIKELY_OUT)
                who, other = seat_name(seat), seat_name(laid_by)
                index = f.serial * self.ref.players + seat
                if ask(self.ref, self.d, index, f,
                       f"{who} laid nothing: did {who} drop out (no face cards left)?",
                       (f"Yes: {who} is out", f"No: {other} played out of turn"),
                       likely) == 0:
                    self._say(ruling, f, " (not seen: the next player laid their cards)",
                              assumed=index not in self.ref._answers)
                    return True
            eng.undo()
        return False

    def _judge(self, candidates: list[Move], f: Fact) -> None:
        """The candidate the rules take (of two, the lead the followers follow); else the
        first that the game plays on with (a card that shows an earlier claim false: the
        error is said, the cards stay played); else the first, refused (the table shows
        it: take it back)."""
        eng = self.ref.engine
        lead = not getattr(eng.state, "trick", ())
        taken: list[Ruling] = []
        refused: list[tuple[Ruling, bool]] = []
        for move in candidates:
            before = eng.state
            ruling = eng.observe(move)
            if ruling.verdict is not Verdict.ILLEGAL:
                taken.append(ruling)
            else:
                refused.append((ruling, eng.state is not before))
            eng.undo()
        if taken:
            ruling = max(taken, key=self._followed) if lead else taken[0]
        else:
            ruling = next((r for r, played in refused if played), refused[0][0])
        eng.observe(ruling.move)
        self._say(ruling, f)

    def _followed(self, ruling: Ruling) -> int:
        """Ruling *the-followers-tell-the-lead*: how many of the other seats' next cards
        are of the suit a lead's first card leads. A lead of two faces of two suits (the
        Raja of Chandra and the Vizier of Shamsher) reads as either suit led, the other
        card substituted, and a camera does not see which was laid first: the followers'
        cards tell, and the lead is judged again as they come."""
        seat, suit = ruling.move.player, ruling.move.cards[0].suit
        later = [g.card for g in self.later if g.kind == "laid" and g.card is not None
                 and g.zone.startswith("play") and g.zone != f"play{seat}"]
        return sum(c.suit is suit for c in later[:2 * (self.ref.players - 1)])

    def _say(self, ruling: Ruling, f: Fact, note: str = "", assumed: bool = False) -> None:
        self.d.outputs.append(RefereeOutput("ruling", said(ruling) + note, f.frame,
                                            f.timestamp, ruling, assumed=assumed))
