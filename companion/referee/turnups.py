"""How a Kendra Kari judge follows the 2011 book's turn-ups, which no pass shows.

The 2011 footnote: "If you're using the rule that players don't pick up if they already have
nine cards, and all players end up with nine-card hands but are still unable to play ...
The player who most recently acquired their ninth card takes another card from the stock
and places it face-up on the table, repeating this until a card is turned up that's
suitable to be played. Cards that are turned up but not suitable take no further part in
the game. Once a playable card is found, the player uses it to continue the game as though
it were a card from their hand."

Ruling *turned-up-onto-the-gathered-pile* (docs/rulings/kendra-kari.md): an unsuitable card
is laid face up on the Gathered pile, out of play like the cards gathered there; the
suitable one is taken from the stock and laid on the ring as a card from the hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.games.base import Move
from companion.games.kendra_kari_rules import NINE

if TYPE_CHECKING:
    from companion.referee import Referee
    from companion.referee.values import Fact
    from companion.vision.track_event import TrackEvent

# A hand seen at the stock with no draw to make this many frames (3 s at 30 fps) before it
# lays a card may have turned that card up (``TurnUps._turned_up_to_play``)
TAKEN_FRAMES = 90


def short_of_nine(ref: Referee) -> int:
    """How many cards the hands lack, all told, to hold nine each."""
    return sum(NINE - min(n, NINE) for n in ref.engine.state.counts)


def turned_aside_here(ref: Referee, zone: str | None, unsure: bool = False) -> bool:
    """Whether a card new to the game seen on ``zone`` may be a turned-up card laid aside:
    the Gathered pile, under the nine-card limit. A card not named (``unsure``) is asked
    about only while cards are being turned up or every hand holds nine but for a draw
    missed: a doubt about the pile at other times would hold the game up for nothing."""
    if not (ref.shared and zone == "gathered" and ref.options.hand_limit_nine):
        return False
    stage = ref._stage()
    return not unsure or stage == "turnup" or (stage == "normal" and short_of_nine(ref) <= 1)


def dated_when_read(ref: Referee, ev: TrackEvent) -> TrackEvent:
    """``ev`` with a face seen where cards are turned face up dated when its face was first
    read, not from the back beneath (the tracker's ruling *no-back-turns-by-itself* dates
    such a card from the first back):

    - a card on the Kendra Kari Gathered pile where turn-ups may come: the pile is of
      backs, and a face read on it is a card laid on them. On a brisk three-player film
      the first card turned aside "lay there" since the first bridge was gathered, 750
      frames before, was judged at that new phase, and was lost;
    - a hand's cards turned up on its hand zone (Sama's two face-down cards, dealt many
      moves before the reveal).

    A ``since`` later than the event's first frame is the face's own date already (a card
    the players were asked about, its track born as the back beneath: a Sama hand's 10 of
    Ghulam dated from the back went into that round's deal)."""
    zone = ref._zone_of(ev)
    if ev.kind in ("appeared", "unsure") and (
            turned_aside_here(ref, ev.zone) or (zone is not None and zone.kind == "hand")):
        return replace(ev, since=max(ev.first_frame, ev.since))
    return ev


class TurnUps:
    """The turn-up rulings of :class:`~companion.referee.judges.KendraKariJudge` (a mixin:
    it holds ``ref`` and judges with ``_emit_ruling`` and ``_unseen_turn``)."""

    ref: Referee
    no_draw: tuple[int, Fact] | None  # the last hand at the stock with no draw to make
    last: tuple[Move, Fact, int] | None  # the last move judged
    _tried_unseen: Callable[..., tuple[list[int], Any]]  # (``DrawInference``)

    def _may_come_to_turn_up(self, missed: int) -> bool:
        """Whether every hand holds nine cards under the nine-card limit, but for at most
        ``missed`` cards short (draws the camera missed)."""
        eng = self.ref.engine
        return bool(eng.options.hand_limit_nine) and eng.state.drawer < 0 and \
            short_of_nine(self.ref) <= missed

    def _turner_after_passes(self, missed: int) -> int | None:
        """The seat that turns up cards once every player has passed in turn from here (a
        pass shows nothing; the passes made already count), after at most ``missed`` draws
        the camera missed; None if the rules do not come to a turn-up: tried on the engine
        and taken back."""
        ref = self.ref
        return self._tried_unseen(
            missed, (missed + 1) * ref.players, lambda: ref._stage() != "normal",
            lambda: ref.engine.state.turn if ref._stage() == "turnup" else None)[1]

    def _pass_round(self, f: Fact) -> None:
        """Judge the passes (and the draw missed) that bring the game to its turn-up, each
        marked as inferred."""
        while self.ref._stage() == "normal":
            self._unseen_turn(self.ref.engine.state.turn, f,
                              "a card was turned up, so every hand came to nine")

    def _turned_aside(self, f: Fact) -> None:
        """A card new to the game laid face up on the Gathered pile: a turned-up card not
        suitable to be played (ruling *turned-up-onto-the-gathered-pile*), once every
        player holds nine cards, the draws that filled the hands unseen or not; anything
        else laid there is no move. (At a brisk 2011-book table with three players, Player
        1 drew four times in 30 frames while the others passed, and two draws were taken
        for the one before seen again.)"""
        missed = self.ref.players * NINE
        if self.ref._stage() == "normal" and self._may_come_to_turn_up(missed) \
                and self._turner_after_passes(missed) is not None:
            self._pass_round(f)
        if self.ref._stage() == "turnup":
            self._emit_ruling(Move(self.ref.engine.state.turn, "turnup", (f.card,)), f, False)

    def _turned_up_to_play(self, f: Fact, hand: int | None) -> bool:
        """Turn up ``f``'s card, laid on the ring, before it is judged as played: while
        cards are being turned up; or when every player holds nine cards and the hand that
        laid it was seen at the stock with no draw to make (``no_draw``) since the last
        move and is the turner's, once every player has passed (after at most one draw missed).
        Ruling *a-hand-at-a-nine-card-stock-turns-up*: a player who may not draw has no
        other business at the stock. (A hand's own draw seen there before is no sign: by
        the 2011 book Player 1, who drew to nine, the others passing, then played the card
        from the hand, and a round of passes and a turn-up were judged that nobody made.)"""
        stage = self.ref._stage()
        took, last = self.no_draw, self.last[1].when if self.last is not None else -1
        if stage == "normal" and took is not None and took[0] == hand \
                and last < took[1].frame and f.when - took[1].frame <= TAKEN_FRAMES \
                and self._may_come_to_turn_up(1) and self._turner_after_passes(1) == hand:
            self._pass_round(f)
        elif stage != "turnup":
            return False
        self._emit_ruling(Move(self.ref.engine.state.turn, "turnup", (f.card,)), f, False)
        return True
