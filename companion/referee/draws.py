"""How a Kendra Kari judge infers the draws the camera missed.

A draw is seen only as a hand turning back at the stock. A quick or dim hand is missed, and
then the hands' counts drift: the referee would end the game early, or refuse the next
player's card as out of turn. These rulings put the missed draws back from what the table
shows next (the hand that laid a card, two hands seen drawing in turn, play going on after
a player's last card by the count).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from companion.games.base import Move, Verdict, seat_name
from companion.games.kendra_kari_rules import next_seat
from companion.referee.values import Fact, RefereeOutput

if TYPE_CHECKING:
    from companion.referee import Referee
    from companion.referee.values import Derivation


# A hand seen drawing before its turn came waits this many frames (3 s at 30 fps) for it
HELD_DRAW = 90  # (``KendraKariJudge._take_held_draw``)
DRAW_S = 0.3  # s: the quickest draw, a reach to the stock and back (brisk: 0.33 s a turn)
# The cards a missed draw may have come before that the players are offered (*play-went-on*)
WENT_ON_CARDS = 3


class DrawInference:
    """The draw rulings of :class:`~companion.referee.judges.KendraKariJudge` (a mixin: it
    holds ``ref``, ``d``, ``last``, ``last_draw``, ``held_draw`` and ``drawn_played``, and
    judges with ``_draw`` and ``_emit_ruling``)."""

    ref: Referee
    d: Derivation
    from_hand: dict[int, list[Fact]]
    last: tuple[Move, Fact, int] | None
    last_draw: tuple[int, Fact] | None
    went_out: set[int]

    def _take_held_draw(self, f: Fact, since: int) -> bool:
        """Judge the draw of the hand seen at the stock out of turn after the move judged
        at frame ``since``, now that the draws missed before it are inferred
        (``_unseen_draws``) and that hand lays ``f``, within ``HELD_DRAW`` frames: the card
        is the one it drew.

        Ruling *drawn-then-played-after-a-draw-missed*. On a filmed game in dim light
        Player 4's draw was missed, and Player 1, seen drawing, then played the drawn card:
        the draw was dropped as out of turn, the card passed as one from the hand, the
        count of the hands drifted, and the game was ended 17 moves early. A hand seen at
        the stock out of turn is otherwise passing by: judged at once it was wrong on both
        fixture Kendra Kari films (a card laid before it seen late; a hand that reached
        over the stock), so it is judged only with the card that hand then lays."""
        held, self.held_draw = self.held_draw, None
        if held is None:
            return False
        seat, drew = held
        if seat != self.ref.engine.state.turn or not since < drew.frame <= f.frame \
                or f.frame - drew.frame > HELD_DRAW:
            return False
        self._draw(seat, drew)
        return True

    def _draws_in_a_row(self, seat: int, f: Fact) -> bool:
        """The hand held as seen drawing out of turn, then ``seat``'s, are the next two
        players' draws, in turn: the player to play drew where the camera missed it. The
        three draws are judged (the missed one marked as inferred).

        Ruling *draws-in-a-row*. A hand seen drawing out of turn is otherwise passing by
        until it lays a card (``_take_held_draw``). On a hard six-player film, Player 1's
        draw was missed in a round of draws; the next three players, seen drawing, were
        dropped one after another, the hands' counts ran short, and Player 6 was declared
        the winner with cards in hand (44 of 79 moves followed)."""
        if self.held_draw is None:
            return False
        first, drew = self.held_draw
        missed = self.ref.engine.state.turn
        if self._turns_after_draws(2, seat) != [first, seat] or not drew.frame < f.frame:
            return False
        self.held_draw = None
        self._unseen_turn(missed, drew, "the next two players were seen drawing")
        self._draw(first, drew)
        self._draw(seat, f)
        return True

    def _turns_after_draws(self, most: int, until: int) -> list[int]:
        """Whose turn it would be after each of up to ``most`` draws in turn order, stopping
        at ``until``'s turn: draws the camera may have missed, tried on the engine and
        taken back. A player holding nine cards under the 2011 limit passes instead
        (``cannot_play``): no camera sees a pass, so passes are not counted in ``most``."""
        eng = self.ref.engine
        return self._tried_unseen(most, 2 * self.ref.players,
                                  lambda: eng.state.turn == until, lambda: None)[0]

    def _tried_unseen(self, most: int, limit: int, done: Callable[[], bool],
                      at_end: Callable[[], Any]) -> tuple[list[int], Any]:
        """Unseen turns (``cannot_play``: a draw missed, or a pass under the nine-card limit)
        tried on the engine in turn order until ``done()``, at most ``most`` draws and
        ``limit`` turns, then taken back: whose turn it was after each, and ``at_end()``
        as the engine stood after the last."""
        eng = self.ref.engine
        turns: list[int] = []
        draws = 0
        while not done() and len(turns) < limit:
            move = eng.cannot_play(eng.state.turn)
            if move.action == "draw":
                if draws == most:
                    break
                draws += 1
            eng.observe(move)
            turns.append(eng.state.turn)
        end = at_end()
        for _ in turns:
            eng.undo()
        return turns, end

    def _draws_before(self, hand: int) -> int:
        """How many players, in the direction of play from the one to play, would have drawn
        unseen before ``hand``'s turn (a player passing under the nine-card limit draws
        nothing; play may go anticlockwise, option ``direction``)."""
        eng = self.ref.engine
        seat, draws = eng.state.turn, 0
        for _ in range(self.ref.players):
            if seat == hand:
                break
            draws += eng.cannot_play(seat).action == "draw"
            seat = next_seat(eng, seat)
        return draws

    def _unseen_turn(self, seat: int, f: Fact, why: str) -> None:
        """Judge ``seat``'s turn that showed no card, marked as inferred: a draw the camera
        missed, or a pass under the nine-card limit (``cannot_play``), which nothing shows.
        Ruling *nine-cards-pass-unseen*: at a brisk 2011-book table three players holding
        nine cards passed in turn; the referee inferred draws the rules refuse them, and
        took the card played next for the wrong player's."""
        move = self.ref.engine.cannot_play(seat)
        if move.action == "draw":
            text = f"{seat_name(seat)} must have drawn from the stock (not seen: {why})"
            self.last_draw = (seat, f)
        else:
            text = f"{seat_name(seat)} holds nine cards and passed ({why})"
        self.d.outputs.append(RefereeOutput("draw", text, f.frame, f.timestamp))
        self._emit_ruling(move, f, assumed=True)

    def _passed_the_stock(self, hand: int) -> bool:
        """Ruling *no-draw-then-play-in-2011*: by the 2011 book (``play_drawn_card=false``)
        a player who drew cannot play until their next turn, so a draw seen just before the
        same hand lays the next card was that hand passing over the stock on its way to the
        ring: the draw is taken back (its ruling superseded). Unless the players between
        all hold nine cards: they passed, and this is the drawer's next turn. At a brisk
        2011-book table Player 2, beside the stock, reached over it to lay a card: the draw
        seen made the card Player 3's, and a round of draws was inferred."""
        eng = self.ref.engine
        if self.last is None or eng.options.play_drawn_card:
            return False
        move, drew, at = self.last
        if move.action != "draw" or move.player != hand or drew.source != "hand" \
                or not self._draws_before(hand):  # (the others passed: its next turn)
            return False
        eng.undo()
        for k in (at - 1, at):  # the note "draws from the stock (seen)", and the ruling
            o = self.d.outputs[k]
            if k >= 0 and o.kind in ("draw", "ruling") and o.frame == drew.frame:
                self.d.outputs[k] = replace(o, kind="superseded",
                                            text=o.text + " (a hand passing over the stock)")
        self.last = self.last_draw = None
        return True

    def _draws_fit(self, f: Fact, hand: int, draws: int) -> bool:
        """Whether the ``draws`` unseen draws ``hand`` laying ``f``'s card needs fit since
        that hand was seen laying the last move's card (``DRAW_S`` each, cards by when first
        seen). Ruling *no-round-of-draws-in-a-moment*: else it is that hand going back, and
        the turn order stands. Player 3's hand, back from Position 5, passed nearer Position
        6 than Player 4's laying a card there 0.3 s later (brisk, 45 of 61 moves). Any hand:
        once a misread put the turns a seat off, the hands no longer put them right."""
        last = self.last[1] if self.last is not None else None
        if last is None or last.seat != hand or last.source != "hand" or not draws:
            return True
        per_frame = f.timestamp / f.frame if f.frame > 0 else 0.0  # the source's mean
        return (f.when - last.when) * per_frame >= draws * DRAW_S

    def _unseen_draws(self, f: Fact, hand: int, most: int, why: str = "laid the next card"):
        """The hand of the seat after the one to play laid the card: that player cannot
        have played, and a player who cannot play draws (or passes, holding nine cards under
        the 2011 limit), so they drew where the camera missed it. The draw is judged (it is
        unverifiable anyway) and marked as inferred."""
        eng = self.ref.engine
        # One missed draw is a camera's slip; a whole round of them is more likely a hand
        # taken for the wrong seat, so then the turn order stands.
        turns = self._turns_after_draws(most, hand)
        if not turns or turns[-1] != hand:
            return None
        for _ in turns:
            self._unseen_turn(eng.state.turn, f, f"{seat_name(hand)}'s hand {why}")
        self.drawn_played = False
        return eng.state

    @staticmethod
    def _drawer_waits(drawer: int | None, turn: int) -> bool:
        """Whether ``drawer`` (the state's; None or -1: nobody) drew and may still play the
        card drawn, the turn having passed on to ``turn``."""
        return drawer is not None and drawer >= 0 and drawer != turn

    def _soon_after_draw(self, f: Fact) -> bool:
        """Whether ``f``'s card came within ``combo_s`` of the last draw judged: the card
        drawn, played at once, is the likelier story."""
        draw_t = self.last_draw[1].timestamp if self.last_draw else f.timestamp
        return f.timestamp - draw_t <= self.ref.combo_s

    def _who_laid(self, i: int, f: Fact, turn: int, hand: int, drawer: int | None) -> int:
        """Ask who laid ``f``'s card when the hand seen is neither the player to play nor
        one a missed draw would make it, or a player has just drawn: the player to play,
        that hand (the players between drew unseen), or that player with the card drawn.

        Ruling *the-drawer-is-a-choice*. A hand seen at the edge of the mat between two
        seats can be taken for the neighbour's. On a hard five-player film with the Mughal
        deck, Player 2 drew and laid the card drawn, the hand was taken for Player 1's, and
        the players were offered only Player 3 or Player 1: the answer "Player 1" put three
        draws that never happened into the record. On a hard three-player film Player 1's
        card drawn and laid was taken for Player 3's, whom one unseen draw made the one to
        play: that story was taken without a question, and the turns stayed a seat off to
        the game's end (141 of 148 moves). With a player who just drew, even one unseen
        draw is asked about; the hand stays the likelier answer (on 34 Kendra Kari films
        it was right in 6 of the 7 such cards).

        Ruling *three-draws-unseen-are-unlikely*: the hand's story is the likelier when it
        needs two unseen draws; when it needs three or more, the drawer's is (if the card
        came soon after the draw: ``_soon_after_draw``), else the turn order's. Of the 8
        such questions on the 33 Kendra Kari films (the players answering), the hand was
        right in 4 of the 6 that needed two draws and in neither of the 2 that needed three
        (the drawer, on five players; the player to play, on six)."""
        choices = [f"{seat_name(turn)}, whose turn it was",
                   f"{seat_name(hand)}, whose hand was seen (the players before drew unseen)"]
        seats = [turn, hand]
        likely = 1 if self._draws_before(hand) <= 2 and f.rival != turn else 0
        if self._drawer_waits(drawer, turn):
            choices.append(f"{seat_name(drawer)}, with the card just drawn")
            seats.append(drawer)
            if not likely and self._soon_after_draw(f):
                likely = 2
        names = ", ".join(seat_name(s) for s in seats[:-1]) + f" or {seat_name(seats[-1])}"
        return seats[self._ask(i, f, f"Who laid {f.card.name}: {names}?", tuple(choices),
                               likely)]

    # ---- ruling *play-went-on* -----------------------------------------------------------

    def _played_from_hand(self, move: Move, fact: Fact, drawn: bool, verdict: Verdict,
                          combined: bool) -> None:
        """Keep each seat's single cards played from the hand: a draw missed before one
        would make it the card drawn (``_play_went_on``). A card played just after a draw
        was drawn, and a card that began a two-card turn cannot have been (a card just
        drawn builds no bridge)."""
        mine = self.from_hand.setdefault(move.player, [])
        if combined:  # (its first card was the last move's)
            if mine and self.last is not None and mine[-1] is self.last[1]:
                mine.pop()
        elif move.action == "play" and len(move.cards) == 1 and not drawn \
                and verdict is not Verdict.ILLEGAL:
            mine.append(fact)

    def _play_went_on(self, f: Fact) -> None:
        """Ruling *play-went-on*: "A player wins by getting rid of all cards in their hand",
        and the game ends there. A card laid on the ring after a player's last card by the
        count says the count was wrong: the camera missed a draw of theirs. The referee puts
        the draw back before that player's last card played from the hand whose hand was
        seen over the stock just before (``Fact.at_stock``), else the one of their latest
        cards played from the hand that came latest after the move before it
        (``_came_after``; it becomes the card drawn and played at once), asks the players
        (*which-card-was-drawn*), and judges again (``put_back_missed_draw``). Where the
        missed draw was makes no difference to what the table shows since, only to the
        counts in between.

        On a brisk, hard film with the Mughal deck, Player 2 (beside the stock) drew and
        laid the card drawn in one reach: the draw was missed, Player 2 was declared the
        winner after 54 of the game's 58 moves with a card in hand, and the last cards
        were refused ("The game is over")."""
        s = self.ref.engine.state
        winners = getattr(s, "winners", ())
        if len(winners) != 1 or s.counts[winners[0]] \
                or winners[0] in self.went_out or not self.from_hand.get(winners[0]):
            return
        if self.d.went_on is None:
            plays = self.from_hand[winners[0]][::-1]
            first = next((p for p in plays if p.at_stock), None) \
                or max(plays[:WENT_ON_CARDS], key=self._came_after)
            self.d.went_on = (winners[0], (first, *[p for p in plays if p is not first]
                                           [:WENT_ON_CARDS - 1]))

    def _came_after(self, play: Fact) -> int:
        """Frames from the fact before ``play`` to its card's first sighting.

        Ruling *a-drawn-card-comes-late*: with no hand seen over the stock, a missed draw
        was likeliest before whichever of the player's latest cards from the hand came
        latest after the move before it, since a draw and its card played at once are two
        reaches. On the filmed Kendra Kari games (3-6 players) a card played at once after
        its draw came 18-28 frames after the move before the draw at a brisk pace and
        42-55 at the normal one; the other cards came 9-18 and 19-30 frames after the move
        before them. The player's last card, the choice before, was wrong for both draws
        missed on a brisk, hard four-player film."""
        at = self.ref._facts.index(play)
        return play.when - self.ref._facts[at - 1].when if at else 0

    def _went_on(self, seat: int, f: Fact) -> None:
        """The draw ``put_back_missed_draw`` put back for ``seat``, unless the players say
        that seat did go out, or that it drew before another of its cards: then the draw is
        moved there (``Derivation.move_draw``) and judged again.

        Ruling *which-card-was-drawn*: the players are offered the cards the draw may have
        come before (the likeliest first, see ``_play_went_on``). Without a hand seen over
        the stock the likeliest is a guess: on a brisk, hard Kendra Kari film with the
        Mughal deck, Player 4 drew and laid the card drawn at once, and the draw was put
        before Player 4's later card."""
        ref = self.ref
        facts = {x.serial: x for x in ref._facts}
        cards = [facts[k] for k in ref._went_on_cards.get(f.serial, ()) if k in facts]
        drew = f"{seat_name(seat)} drew a card the camera missed; play goes on"
        choices = tuple(f"{seat_name(seat)} drew unseen before laying {c.card.name}"
                        for c in cards) or (drew,)
        picked = self._ask(f.serial, f, f"A card was laid after {seat_name(seat)}'s last card "
                           f"by the count: did {seat_name(seat)} draw a card unseen?",
                           choices + (f"{seat_name(seat)} went out: the game is over",), 0)
        if picked == len(choices):
            self.went_out.add(seat)
            return
        at = ref._facts.index(f)
        if cards and (at + 1 == len(ref._facts) or ref._facts[at + 1] is not cards[picked]):
            self.d.move_draw = (f, cards[picked])
            return
        self.d.outputs.append(RefereeOutput(
            "draw", f"{seat_name(seat)} must have drawn from the stock (not seen: play went on "
            "after their last card by the count)", f.frame, f.timestamp))
        self._emit_ruling(Move(seat, "draw"), f, assumed=f.serial not in self.ref._answers)
        self.last_draw = (seat, f)
        self.drawn_played = False


def put_back_missed_draw(ref: Referee) -> bool:
    """Put the missed draw ruling *play-went-on* found back among the facts, or move it
    before the card the players said (*which-card-was-drawn*), to be judged again; whether
    there was one."""
    d = ref._derived
    if d.move_draw is not None:
        draw, play = d.move_draw
        ref._facts.remove(draw)
        ref._facts.insert(ref._facts.index(play), replace(draw, frame=play.when,
                                                            timestamp=play.timestamp))
        return True
    if d.went_on is None:
        return False
    seat, plays = d.went_on
    ref._facts.insert(ref._facts.index(plays[0]), Fact(
        "draw", plays[0].when, plays[0].timestamp, seat=seat, source="went-on",
        serial=ref._serial))
    ref._went_on_cards[ref._serial] = tuple(p.serial for p in plays)
    ref._serial += 1
    return True
