"""Sama at a camera table: each hand lies on its seat's hand zone, two cards face down and
one face up; what the camera sees of a round is the face-up cards dealt, a face-up card
exchanged, and the two face-down cards turned up at the end.

Seed 003: "The dealer deals two cards face down and one card face up to each player, one
at a time and counterclockwise starting with the player to the right of the dealer." "Each
player then has the opportunity, one at a time and in counterclockwise order, to exchange
either the face up card or both face down cards."

Ruling *the-first-face-up-card-names-the-dealer*: where the options leave the first dealer
to the table, the dealer is the seat before the one whose face-up card was seen first (the
deal starts "to the right of the dealer"). The ``deal`` is judged once every seat shows
one face-up card.

Ruling *an-exchange-is-the-face-up-card-replaced*: in the exchanges, a face-up card seen
newly on the zone of the seat whose turn it is, after the seat's face-up card was seen
taken off it (``TAKEN_LAG`` allows for a removal reported late, as a hand lifts), is its
face-up card exchanged; new cards while the face-up card still lies are the first hand
turned up, so every seat still to choose stood. A seat that shows nothing while a later
seat acts stood, or exchanged its face-down cards, which no camera sees: the referee says
it stood, and says that it cannot tell. Hands turned up out of order wait for their turn
(``RevealJudge``). (Telling the two apart by time, two cards within 3 s a hand turned up,
failed on filmed games: an exchange followed within 3 s by the hand turned up, and a hand
turned up with one card under a resting hand.)
"""

from __future__ import annotations

from companion.games.base import Move, seat_name
from companion.referee.reveals import RevealJudge
from companion.referee.values import Fact

# A seat's face-up card reported taken up to this long (1 s at 30 fps) after the card that
# replaced it was reported still went first (a hand over both delays either report)
TAKEN_LAG = 30
UNSEEN_STAND = " (or exchanged the face-down cards: the camera cannot tell)"


class ExchangeJudge(RevealJudge):
    """Judges Sama's deal, exchanges and reveals (see the module's rulings)."""

    WATCHES_TAKEN = True  # a face-up card seen taken off a hand zone tells an exchange
    dealt_at = -1  # the frame this round's last face-up card was dealt

    def shape(self, state) -> tuple[str, int]:
        return {"deal": ("deal", 1), "exchange": ("exchange", 1)}.get(state.phase,
                                                                      ("reveal", 2))

    def _judge_next(self) -> bool:
        state = self.ref.engine.state
        if state.phase == "deal":
            return self._deal()
        if state.phase == "exchange":
            return self._exchange()
        if state.phase != "reveal":
            return False
        return super()._judge_next()

    def _deal(self) -> bool:
        """Ruling *the-first-face-up-card-names-the-dealer*; the deal once every seat
        shows its face-up card."""
        n, state = self.ref.players, self.ref.engine.state
        if not all(self.waiting.get(s) for s in range(n)):
            return False
        dealer = state.dealer
        if state.round == 0 and self.ref.options.first_dealer < 0:
            first = min(range(n), key=lambda s: self.waiting[s][0].when)
            dealer = (first - 1) % n
        order = [(dealer + 1 + k) % n for k in range(n)]
        facts = {s: self._take(s, 1)[0] for s in order}
        last = max(facts.values(), key=lambda f: f.when)
        self.dealt_at = last.when
        self._judge([Move(dealer, "deal", tuple(facts[s].card for s in order))], last)
        return True

    def _exchange(self) -> bool:
        """Ruling *an-exchange-is-the-face-up-card-replaced*."""
        state = self.ref.engine.state
        turn = self.ref.module.current_player(state)
        mine = self.waiting.get(turn, [])
        if mine:
            taken = self._up_taken(turn, state.up[turn])
            if taken is not None and taken <= mine[0].frame + TAKEN_LAG:
                f = self._take(turn, 1)[0]
                self._judge([Move(turn, "exchange", (state.up[turn], f.card), "up")], f)
                return True
            if taken is None and len(mine) < 2:
                return False  # (its face-up card may yet be seen taken, or a second card)
            return self._stand(turn, mine[min(1, len(mine) - 1)])  # a hand turned up
        acted = [fs[0] for s, fs in self.waiting.items() if fs and s != turn]
        return bool(acted) and self._stand(turn, min(acted, key=lambda g: g.when))

    def _up_taken(self, seat: int, up) -> int | None:
        """The frame ``seat``'s face-up card ``up`` was first seen taken off its zone since
        this round's deal, or None."""
        zone = f"hand{seat}"
        return min((g.when for g in self.ref._facts if g.kind == "taken" and g.card == up
                    and g.zone == zone and g.when >= self.dealt_at), default=None)

    def _stand(self, seat: int, f: Fact) -> bool:
        ruling = self.ref.engine.observe(Move(seat, "stand"))
        self._say(ruling, f, UNSEEN_STAND)
        return True

    def short(self) -> list[tuple[int, int]]:
        """Ruling *a-face-up-card-dealt-unseen*: a seat shows two new cards (an exchange,
        a hand turned up) while another seat's face-up card of the deal was never seen:
        the deal is over, and that seat's card is asked for (else the next card it shows
        completes the deal, and every round after is a round off)."""
        if self.ref.engine.state.phase != "deal":
            return super().short()
        if not any(len(fs) >= 2 for fs in self.waiting.values()):
            return []
        return [(s, 1) for s in range(self.ref.players) if not self.waiting.get(s)]

    def unseen_question(self, seat: int, k: int, after: int) -> tuple[str, int]:
        if self.ref.engine.state.phase != "deal":
            return super().unseen_question(seat, k, after)
        dealt = max(fs[0].when for fs in self.waiting.values() if fs)
        text = f"{seat_name(seat)}'s face-up card of the deal was not seen: which card was it?"
        return text, dealt + 1 + k

    def moves(self, seat: int, action: str, cards: tuple) -> list[Move]:
        """A reveal shows the two face-down cards, then the face-up card on the table."""
        up = self.ref.engine.state.up[seat]
        return [Move(seat, action, (a, b, up)) for a, b in (cards, cards[::-1])]
