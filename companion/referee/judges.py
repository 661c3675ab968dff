"""How sightings become moves: one judge per kind of table.

``KendraKariJudge``: the shared ring, turn order, draws, two-card turns, the hands seen.
``PerSeatJudge``: trick games, where each seat has its own zones.
Both are re-run from the first fact whenever the story changes (an answer to a question),
against a fresh engine referee held by the :class:`~companion.referee.Referee`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from companion.cards import Card
from companion.games.base import Move, Verdict, seat_name
from companion.referee.draws import DrawInference
from companion.referee.turnups import TurnUps
from companion.referee.values import Derivation, Fact, RefereeOutput, pictured_table, said, showing

if TYPE_CHECKING:
    from companion.referee import Referee


# Two cards of different seats seen laid within this many frames of each other (half a
# second at 30 fps) are judged in turn order (``PerSeatJudge.facts``). At 10, a lead seen 12
# frames after the next player's card (a hand over it) was taken for a lead passed, and 4 of
# a hard Dashavatara film's 119 moves were lost.
TOGETHER = 15
# A new phase's card on Position 7 first seen this many frames (3 s at 30 fps) after its
# card on Position 1 was laid first (``KendraKariJudge._next_position_first``)
PHASE_TOGETHER = 90


def ask(ref: Referee, d: Derivation, index: int, fact: Fact, text: str,
        choices: tuple[str, ...], likely: int) -> int:
    """Ask question ``index`` (a fact's serial); the choice used is the answer if given,
    else the likely one (offered first)."""
    ordered = (choices[likely],) + tuple(c for k, c in enumerate(choices) if k != likely)
    if index not in d.questions:
        d.outputs.append(RefereeOutput("question", text, fact.frame, fact.timestamp,
                                       choices=ordered, question_id=index))
    d.questions[index] = ordered
    picked = ref._answers.get(index, 0)
    return choices.index(ordered[picked])


def judge_in_order(facts: list[Fact], fact: Callable[[Fact], None],
                   swapped: Callable[[Fact, Fact], bool]) -> None:
    """Judge ``facts`` with ``fact`` in order, but for two in a row that ``swapped`` says
    happened the other way round (asked as they come: it may look at the game so far)."""
    i = 0
    while i < len(facts):
        a, b = facts[i], facts[i + 1] if i + 1 < len(facts) else None
        if b is not None and swapped(a, b):
            fact(b)
            fact(a)
            i += 2
            continue
        fact(a)
        i += 1


class KendraKariJudge(DrawInference, TurnUps):
    """The shared ring: turn order, draws, and the two-card turns that need a question."""

    TARGET: ClassVar[dict[str, str]] = {"pos7": "7", **{f"pos{k}": str(k) for k in range(1, 7)}}
    WATCHES_HANDS = True  # the hands seen at the stock and the ring say who drew and laid

    def __init__(self, ref: Referee, d: Derivation):
        self.ref, self.d = ref, d
        self.last: tuple[Move, Fact, int] | None = None  # last move, its fact, output index
        self.last_draw: tuple[int, Fact] | None = None  # seat that drew, and when
        self.drawn_played = False  # the last move played a card just drawn
        # a hand seen drawing out of turn since the last move (``_take_held_draw``)
        self.held_draw: tuple[int, Fact] | None = None
        self.from_hand: dict[int, list[Fact]] = {}  # seat -> its single cards from the hand
        self.went_out: set[int] = set()  # seats the players said went out (``_went_on``)
        self.no_draw: tuple[int, Fact] | None = None  # the last hand at the stock not drawing

    def _emit_ruling(self, move: Move, fact: Fact, assumed: bool,
                     replaces: RefereeOutput | None = None) -> None:
        """Judge and record ``move``; ``replaces``: the ruling of its first card, whose frame
        it takes (a consumer that stored that ruling by frame replaces it)."""
        drawn = getattr(self.ref.engine.state, "drawer", -1) == move.player
        ruling = self.ref.engine.observe(move)
        self._played_from_hand(move, fact, drawn, ruling.verdict, replaces is not None)
        if ruling.verdict is Verdict.ILLEGAL and replaces is None:
            self.ref.engine.undo()  # (the rules refuse the card: was it misread?)
            self.ref.look_for_a_misreading(fact, [move], self.d)
            self.ref.engine.observe(move)
        at = replaces or fact
        self.d.outputs.append(RefereeOutput("ruling", said(ruling), at.frame, at.timestamp, ruling,
                                            assumed=assumed, replaces=replaces is not None))
        self.last = (move, fact, len(self.d.outputs) - 1)

    def _ask(self, index: int, fact: Fact, text: str, choices: tuple[str, ...],
             likely: int) -> int:
        return ask(self.ref, self.d, index, fact, text, choices, likely)

    def facts(self, facts: list[Fact]) -> None:
        judge_in_order(facts, self.fact, self._next_position_first)

    def _next_position_first(self, a: Fact, b: Fact) -> bool:
        """Ruling *the-ring-tells-the-order*: of two cards seen laid on the ring within
        ``TOGETHER`` frames, the one on the position the next card goes to came first. A
        hand resting over a card makes the tracker see it late: on a brisk, hard
        five-player film with the Mughal deck, Player 3's card on Position 4 was first seen
        2 frames after Player 4's on Position 5, both were refused as on the wrong position,
        and 2 of 28 moves were lost (3 refused).

        Ruling *seven-is-first*: "The player who built the bridge begins a new phase by
        playing any card to Position 7, and may, if able, play a second card with the same
        suit or rank to Position 1. (The first card to be laid down is deemed to be the one
        at Position 7.)" While a phase is to begin, a card on Position 7 seen within
        ``PHASE_TOGETHER`` frames after one on Position 1 came first. On a hard four-player
        film with the Mughal deck a hand rested over the new phase's card on Position 7,
        which was first seen 17 frames after its card on Position 1: that card was refused
        ("a new phase begins on Position 7"), the one on 7 taken for the next player's
        bridge, and 3 moves were refused."""
        if a.kind != "laid" or b.kind != "laid":
            return False
        if self.ref._stage() == "start":
            return (a.zone, b.zone) == ("pos1", "pos7") and b.when - a.when <= PHASE_TOGETHER
        if b.when - a.when > TOGETHER:
            return False
        nxt = getattr(self.ref.engine, "next_position", lambda: None)()
        return nxt is not None and self.TARGET.get(b.zone) == str(nxt) \
            and self.TARGET.get(a.zone) not in (None, "7", str(nxt))

    def fact(self, f: Fact) -> None:
        i = f.serial  # a question about this fact is known by it
        eng = self.ref.engine
        s = eng.state
        if f.kind == "told":
            self._emit_ruling(f.move, f, False)
            return
        if f.kind == "draw":
            seat = s.turn if f.seat is None else f.seat
            if f.source == "went-on":
                self._went_on(seat, f)
                return
            if f.source == "hand" and (self.ref._stage() != "normal"
                                       or eng.cannot_play(seat).action == "pass"):
                self.no_draw = (seat, f)  # (passing by, or turning a card up: ``TurnUps``)
                return  # a hand near the stock with no draw to make (nine cards)
            if f.source == "hand" and seat != s.turn:
                if self._draws_before(seat) == 0 and self._unseen_draws(
                        f, seat, 0, "drew next") is not None:
                    self._draw(seat, f)  # the players between passed (nine cards)
                elif not self._draws_in_a_row(seat, f):
                    self.held_draw = (seat, f)  # (see ``_take_held_draw``)
                return
            self._draw(seat, f)
            return
        if f.zone == "gathered":
            self._turned_aside(f)
            return
        target = self.TARGET.get(f.zone)
        if target is None:
            return
        stage = self.ref._stage()
        if stage == "over":
            self._play_went_on(f)
        if stage == "deal":
            if target == "7":
                self._emit_ruling(Move(s.turn, "deal", (f.card,), "7"), f, False)
                return
            # The dealt card was not read (unsure): the game goes on without it, Player 1
            # first (ruling dealer-before-first); the engine reports the first match unverifiable.
            stage = "normal"
            s = s._replace(turn=0)
        hand = f.seat if f.source in ("hand", "gathered") else None  # (gathered: who must have)
        if self._turned_up_to_play(f, hand):
            s, stage = eng.state, self.ref._stage()
        if hand is not None and stage == "normal" and self._passed_the_stock(hand):
            s = eng.state
        prev = self.last
        quick = prev is not None and f.timestamp - prev[1].timestamp <= self.ref.combo_s
        # A second card of the same turn: a play then a bridge to 7, or a phase opened on 7
        # then a card on 1 (a card just drawn cannot begin a two-card bridge). The hand that
        # laid it tells it from the next player's card; without it, ask. Ruling
        # *third-hand-no-second-card*: a hand of neither player laid a card of its own (the
        # next player drew unseen, below). At a brisk pace Player 3's card on Position 1,
        # right after Player 1 opened a phase and Player 2 drew unseen, was put to the
        # players as Player 1's second card or Player 2's, and the rest of the game was lost.
        if prev is not None and len(prev[0].cards) == 1 and (
                hand is None or hand in (prev[0].player, s.turn)) and (
                (prev[0].action == "play" and target == "7" and not self.drawn_played)
                or (prev[0].action == "start" and target == "1" and stage == "normal")):
            first, who = prev[0], prev[0].player
            nxt = s.turn
            action = "bridge" if first.action == "play" else "start"
            if hand in (who, nxt) and f.rival not in (who, nxt):  # (a close hand: ask)
                picked, assumed = (0 if hand == who else 1), False
            else:
                choices = (f"{seat_name(who)} laid both cards in one turn",
                           f"{seat_name(nxt)} laid {f.card.name}")
                likely = hand == who if hand in (who, nxt) else quick
                picked = self._ask(i, f, f"Who laid {f.card.name} on Position {target}: "
                                   f"{seat_name(who)} (a second card) or {seat_name(nxt)}?",
                                   choices, int(not likely))
                assumed = i not in self.ref._answers
            if picked == 0:
                eng.undo()
                combined = Move(who, action, first.cards + (f.card,),
                                f"{first.target},{target}")
                earlier = self.d.outputs[prev[2]]
                self.d.outputs[prev[2]] = RefereeOutput(
                    "superseded", earlier.text + " (the first card of two)", earlier.frame,
                    earlier.timestamp, earlier.ruling, assumed=assumed)
                self._emit_ruling(combined, f, assumed=assumed, replaces=earlier)
                return
        drawer = getattr(s, "drawer", -1)
        told = None  # the seat an answer (or its likely default) named outright
        if hand is not None and stage == "normal" and hand not in (s.turn, drawer) and (
                self._draws_fit(f, hand, self._draws_before(hand))):
            since = self.last[1].frame if self.last is not None else -1
            # (with a player who just drew, the card may be theirs: ask, the hand likelier;
            # with the player to play's hand as near, ask, the turn order likelier: ruling
            # *the-player-to-play-is-a-close-hand*, docs/rulings/kendra-kari.md)
            after = None if self._drawer_waits(drawer, s.turn) or f.rival == s.turn \
                else self._unseen_draws(f, hand, 1)
            if after is None:  # the hand and the turn order disagree: ask
                told = self._who_laid(i, f, s.turn, hand, drawer)
                if told == hand:
                    told, after = None, self._unseen_draws(f, hand, self.ref.players - 1)
            s = after or s
            if after is not None and self._take_held_draw(f, since):
                s = eng.state  # it drew, seen, and plays the card drawn
            drawer = getattr(s, "drawer", -1)
        seat, assumed = s.turn, False
        if told is not None:
            seat, assumed = told, i not in self.ref._answers
        elif self._drawer_waits(drawer, s.turn):
            if hand in (drawer, s.turn) and f.rival not in (drawer, s.turn):
                seat = hand
            else:  # (the hand, if one of them, or else the timing is the likelier story)
                likely = hand == drawer if hand in (drawer, s.turn) else \
                    self._soon_after_draw(f)
                choices = (f"{seat_name(drawer)} played the card just drawn",
                           f"{seat_name(s.turn)} played it (the drawn card was kept)")
                picked = self._ask(i, f, f"Who laid {f.card.name}: {seat_name(drawer)} (the "
                                   f"drawn card) or {seat_name(s.turn)}?", choices, int(not likely))
                seat = drawer if picked == 0 else s.turn
                assumed = i not in self.ref._answers
        self.drawn_played = seat == drawer
        if stage == "start":
            action = "start"
        elif target == "7":
            action = "bridge"
        else:
            action = "play"
        self._emit_ruling(Move(seat, action, (f.card,), target), f, assumed)

    def _draw(self, seat: int, f: Fact) -> None:
        seen = " (seen)" if f.source == "hand" else ""
        self.d.outputs.append(RefereeOutput(
            "draw", f"{seat_name(seat)} draws from the stock{seen}", f.frame, f.timestamp))
        self._emit_ruling(Move(seat, "draw"), f, False)
        self.last_draw = (seat, f)
        self.drawn_played = False


class PerSeatJudge:
    """Trick games: each seat has its own play and Deni spots, so the zone names the seat.

    The action is the first of the game's card-laying actions that the rules accept here
    (lead, follow, sacrifice ...), or, when all are refused, the first that could still
    have been played (an error the table shows, not an impossible turn). A card on a Deni
    spot and the card led with it form one ``deni`` move (low card led, high card exposed);
    a second card of the same seat that no single action accepts, with its first, is a
    ``double``.
    """

    ACTIONS = ("lead", "follow", "sacrifice", "play")

    def __init__(self, ref: Referee, d: Derivation):
        self.ref, self.d = ref, d
        self.waiting_deni: dict[int, Card] = {}
        self.last: dict[int, tuple[Move, int]] = {}  # the latest move, if it was this seat's
        self.shown: dict[int, list[Card]] = {}  # face-up cards of the deal seen, by seat
        self.picked_up: set[int] = set()  # seats seen taking their face-up cards up

    def facts(self, facts: list[Fact]) -> None:
        """Judge ``facts`` in order, but for two cards of different seats laid together.

        Ruling *together-in-turn-order*: two cards seen laid on play spots within
        ``TOGETHER`` frames of each other, the later by the seat whose turn it is, are
        judged in turn order. The camera cannot tell which of two hands laying at once came
        first, and a hand resting near a card makes the tracker see it later: on a filmed
        game in dim light Player 1's card was seen 2 frames after Player 2's, Player 2's was
        refused as out of turn, and the trick came apart (35 refused moves after it)."""
        judge_in_order(facts, self.fact, self._out_of_turn_pair)

    def _out_of_turn_pair(self, a: Fact, b: Fact) -> bool:
        if a.kind != "laid" or b.kind != "laid" or b.when - a.when > TOGETHER:
            return False
        zones = [self.ref.layout.zone(f.zone) for f in (a, b)]
        if any(z.kind != "play" for z in zones):  # (a Deni card goes with its seat's lead)
            return False
        if zones[0].seat in self.last:  # the seat that just played: a second card of its turn
            return False
        turn = getattr(pictured_table(self.ref.engine), "current", None)
        return zones[0].seat != zones[1].seat and (
            turn == zones[1].seat or self._doubles_the_deni(zones[1].seat, b))

    def _doubles_the_deni(self, seat: int, f: Fact) -> bool:
        """Whether ``f`` is the card that doubles the Deni, laid by the seat whose called
        card was the last move (ruling *double-after-another-card*: judged before the other
        seat's card seen just before it, as its second card). At a brisk pace the next
        player's card was seen 8 frames before the double's second card, on a hard
        three-player Dashavatara film with the PySolFC deck: the called card alone won the
        trick, the second card was refused as a lead, and 24 of 117 moves were lost."""
        last = self.last.get(seat)
        deni = getattr(pictured_table(self.ref.engine), "deni", None)
        return last is not None and deni is not None and deni.doubled_by is None \
            and last[0].cards == (deni.called,) and f.card == deni.double_card

    def fact(self, f: Fact) -> None:
        if f.kind == "told":
            self._judge([f.move], f, f.move.player)
            return
        if f.kind == "shown":
            self._make_shows(f, end=True)
            return
        if f.kind == "cleared":  # (only while the game waits for the face-up batches)
            seat = self.ref.layout.zone(f.zone).seat
            if seat is not None and self.shown.get(seat):
                self.picked_up.add(seat)
            return
        zone = self.ref.layout.zone(f.zone)
        if zone.seat is None or f.kind != "laid":
            return
        seat = zone.seat
        if f.source == "under" and ask(
                self.ref, self.d, f.serial, f, f"Did {seat_name(seat)} lay the {f.card.name} "
                "under the card seen (a double)? The next card says the trick went on.",
                (f"Yes: the {f.card.name} lies under it", "No"), 0):
            return  # (``misread.Misreadings._hidden_double``)
        if seat >= self.ref.players or self._shown_card(f, seat):
            return
        eng = self.ref.engine
        if zone.kind == "deni":
            exposed = getattr(pictured_table(eng), "exposed", ())
            if seat < len(exposed) and f.card in exposed[seat]:
                # its own exposed card seen again (a sweep or a hand hid it a while): on a
                # filmed three-player game it made the seat's next card a second Deni
                return
            last = self.last.get(seat)
            if last is not None and last[0].action in ("lead", "sacrifice") \
                    and len(last[0].cards) == 1:
                # the low card was led first (alone it passed as a lead, or as a sacrifice
                # of a beatable card): the two together were a Deni
                eng.undo()
                del self.d.outputs[last[1]]
                self._judge([Move(seat, "deni", (last[0].cards[0], f.card))], f, seat)
                return
            self.waiting_deni[seat] = f.card
            return
        if seat in self.waiting_deni:
            high = self.waiting_deni.pop(seat)
            candidates = [Move(seat, "deni", (f.card, high))]
        elif self._second_of_two(f, seat):
            return
        else:
            candidates = [Move(seat, a, (f.card,)) for a in self.ACTIONS]
        if not self._judge(candidates, f, seat, keep_refused=False):
            if self._after_a_pass(candidates, f, seat):
                return
            self.ref.look_for_a_misreading(f, candidates, self.d)
            self._judge(candidates, f, seat)

    def _second_of_two(self, f: Fact, seat: int) -> bool:
        """Whether ``f``, a second card of the same seat right after its first, made one
        move with it (a called card and the card that doubles it), judged so.

        Ruling *double-before-lead*: tried before the card alone. When the doubler is the
        last to follow, its called card ends the trick and wins it, so the second card
        would also pass as the winner's next lead; on a filmed face-up-deal game it was
        judged a sacrifice, and the trick's remaining cards were refused."""
        last = self.last.get(seat)
        if last is None or len(last[0].cards) != 1:
            return False
        eng = self.ref.engine
        eng.undo()
        earlier = self.d.outputs[last[1]]
        if not self._judge([Move(seat, "double", (last[0].cards[0], f.card))], f, seat,
                           keep_refused=False):
            eng.observe(last[0])  # not a pair after all: the first card stands
            return False
        self.d.outputs[last[1]] = RefereeOutput(
            "superseded", earlier.text + " (the first card of two)",
            earlier.frame, earlier.timestamp, earlier.ruling)
        out = self.d.outputs[-1]
        self.d.outputs[-1] = RefereeOutput(out.kind, out.text, earlier.frame,
                                           earlier.timestamp, out.ruling, replaces=True)
        return True

    def _shown_card(self, f: Fact, seat: int) -> bool:
        """Whether ``f`` is a face-up card of the deal: "Traditionally, the first and last
        batch given to each player is dealt face up ... The cards are left on the table for
        an agreed period ... and then the players pick up all the cards they were dealt."

        Ruling *face-up-batches-on-the-spots*: while the game waits for the face-up
        batches, a card laid on a seat's play or Deni spot is one of that seat's, up to the
        count dealt face up; the dashboard asks for them there, one on another. Each seat's
        ``show`` is made, in turn, once all its cards are seen. The show ends, with what was
        seen (ruling *shown-as-seen*), at the players' tap "face-up cards picked up"
        (``Referee.tell_shown``), or at a card beyond a seat's count, one it has shown
        already, or one laid after its pile was taken up (its spots seen empty), which is
        then judged as a move."""
        table = pictured_table(self.ref.engine)
        if not showing(table):
            return False
        cards = self.shown.setdefault(seat, [])
        if seat not in self.picked_up and f.card not in cards \
                and len(cards) < table.rules.face_up_count:
            cards.append(f.card)
            self._make_shows(f, end=False)
            return True
        self._make_shows(f, end=True)  # (the seat's show is over: this card is played)
        return False

    def _make_shows(self, f: Fact, end: bool) -> None:
        """The seats' ``show`` moves, in the order the game takes them: each once all its
        face-up cards are seen, or (``end``) every seat left, with the cards seen."""
        for _ in range(self.ref.players):
            table = pictured_table(self.ref.engine)
            if not showing(table):
                return
            seat = table.queue[0]
            cards = self.shown.get(seat, [])
            if not end and len(cards) < table.rules.face_up_count:
                return
            self._judge([Move(seat, "show", tuple(cards))], f, seat)
            if pictured_table(self.ref.engine) is table:
                return  # refused, and the game still waits for it: no use asking again

    def _after_a_pass(self, candidates: list[Move], f: Fact, seat: int) -> bool:
        """A card from another seat while the leader may pass: the leader passed (a pass
        shows nothing on the table; Ganjifa: "the lead automatically passes to the player
        on the right"). Ruling *pass-seen-by-next-lead*: inferred, and said so."""
        eng = self.ref.engine
        turn = getattr(pictured_table(eng), "current", None)
        if turn is None or turn == seat:
            return False
        ruling = eng.observe(Move(turn, "pass"))
        if ruling.verdict is Verdict.ILLEGAL:
            eng.undo()
            return False
        n = len(self.d.outputs)
        self.d.outputs.append(RefereeOutput(
            "ruling", f"{seat_name(turn)} passes the lead (not seen: {seat_name(seat)} "
            "leads next)", f.frame, f.timestamp, ruling))
        if self._judge(candidates, f, seat, keep_refused=False):
            return True
        eng.undo()
        del self.d.outputs[n:]
        return False

    def _judge(self, candidates: list[Move], f: Fact, seat: int,
               keep_refused: bool = True) -> bool:
        """Judge the first candidate the rules accept; else (``keep_refused``) report one as
        illegal: the first that fits the table (the card was played, and it is an error,
        its own or one it exposes), or the first. Returns whether a ruling was made.

        A follow that shows an earlier lead was wrong ("Player 4 led the 2 as unbeatable,
        but Player 1 held the 3") is refused, and so is a lead while the trick is not
        complete; the follow is what happened. Reporting the lead's refusal left the trick
        waiting for a card that had been played, and every card after it was refused (the
        real-art Ganjifa film)."""
        eng = self.ref.engine
        before = pictured_table(eng)
        first = fitting = None
        for move in candidates:
            ruling = eng.observe(move)
            if ruling.verdict is not Verdict.ILLEGAL:
                break
            played = before is not None and pictured_table(eng) is not before
            eng.undo()
            first = first or ruling
            fitting = fitting or (ruling if played else None)
        else:
            if not keep_refused:
                return False
            ruling = fitting or first
            eng.observe(ruling.move)  # the table shows it; the engine keeps it refused
        self.d.outputs.append(RefereeOutput("ruling", said(ruling), f.frame, f.timestamp,
                                            ruling))
        self.last = {seat: (ruling.move, len(self.d.outputs) - 1)}
        return True
