"""Komi and Nakash at a camera table: each player turns their hand face up on their own
hand zone (``calibration/layouts/komi.json``: ``hand0``...), and the referee scores it.

Komi (seed 003): "The dealer deals three cards to each player including herself" ...
"All players who have a lower score than the dealer pay her their bet." Nakash: two cards
each; "Losers pay their stake to the winner".

Ruling *a-hand-is-revealed-whole*: a seat's cards seen on its hand zone are its ``reveal``
once there are as many as a hand holds (Komi three, Nakash two). Hands turned up out of the
game's order (a table often turns them up together) wait for their turn: from the dealer's
right, the dealer last.

Ruling *bets-asked-at-the-reveal* (Komi): "Each player then places a bet against the
dealer" - said aloud, which no camera hears. When the first hand is revealed while the
game still waits for bets, the players are asked each bet, from the dealer's right; until
they answer, the lowest stake stands, marked as assumed, and an answer settles the round
again.
"""

from __future__ import annotations

from companion.games.base import Move, seat_name
from companion.referee.handfuls import HandfulJudge
from companion.referee.judges import ask
from companion.referee.values import Fact


class RevealJudge(HandfulJudge):
    """Judges Komi's and Nakash's reveals (and Komi's bets, asked) from the cards seen on
    the seats' hand zones (see the module's rulings)."""

    ZONE = "hand"
    WAITS_OUT_OF_TURN = True
    FRESH_DECK_A_ROUND = True  # a card seen in an earlier round is dealt again

    def shape(self, state) -> tuple[str, int]:
        return "reveal", self.ref.module.HAND

    def short(self) -> list[tuple[int, int]]:
        """The hands turned up only in part, with how many cards each lacks: taken up so,
        a card was missed, and the hand would take the next round's first cards (a Komi
        film: a hand's third card unseen, the next round's hands refused one by one)."""
        _, need = self.shape(self.ref.engine.state)
        return [(s, need - len(fs)) for s, fs in sorted(self.waiting.items())
                if 0 < len(fs) < need]

    def _unseen_before(self, turn: int | None, f: Fact) -> bool:
        """Ruling *bets-asked-at-the-reveal*: ``turn``'s bet, asked, once a hand is seen."""
        state = self.ref.engine.state
        if turn is None or getattr(state, "phase", "") != "bet":
            return False
        o = state.options
        stakes = [str(b) for b in range(o.min_bet, o.max_bet + 1)]
        who = seat_name(turn)
        index = f.serial * self.ref.players + turn
        k = ask(self.ref, self.d, index, f, f"What did {who} bet against the dealer? (Bets "
                "are said aloud: the camera cannot hear them.)",
                tuple(f"{who} bet {b}" for b in stakes), 0)
        ruling = self.ref.engine.observe(Move(turn, "bet", (), stakes[k]))
        answered = index in self.ref._answers
        self._say(ruling, f, "" if answered else " (assumed: see the question)",
                  assumed=not answered)
        return True
