"""The table referee: tracker events in a game's zones -> that game's moves -> rulings.

The camera sees cards land in zones (``calibration/layouts/<game>.json``); this module
turns those sightings into the game's moves and has the game's own ``TableReferee`` judge
them, so every verdict and announcement comes from the rules engine.

Who played a card:
- where each seat has its own zone (trick games: ``play0``, ``deni2`` ...) the zone says;
- on the shared Kendra Kari ring it follows the turn order, plus the draws it saw (a hand
  at the stock) or was told (``tell_draw(seat)``, the dashboard's one-tap button).
Some sightings fit two stories: a second card laid soon after a first may be the same
player's two-card turn (a bridge, or opening a phase with two cards) or the next player's
card; a card laid after a draw may be the drawn card or the next player's. The referee then
asks (a ``question`` output with the choices), goes on with the likelier story (the one
that fits the timing) *marked as assumed*, and re-judges everything after it if
``answer()`` says otherwise. It never guesses a card the tracker was unsure of: those go
to the players (``unsure``), and ``confirm(...)`` brings the answer back, unless the cards
already played settle it (the doubt was between the laid card and cards the game has seen
played: :mod:`companion.referee.elimination` names it, a ``named`` output). Until then the
referee holds what follows (it cannot judge the next player's card without knowing the
one before it): the moves after an unnamed card are judged, in the order they were laid,
as soon as it is named (by a person, or by the tracker once its readings settle), or
``dismiss(zone)`` says to go on without it. Cards are judged in the order they were laid
(``TrackEvent.since``), not the order their readings settled: a doubtful card named after
the next player's card goes before it, and what changed is told again as corrections.

When the table and the game disagree (a card the rules refused is still lying on the ring
or on a player's spot, or a card the game needs on the ring has gone) it says ``desync``
and stays in that state until the table matches again (``resync``).
"""


import itertools
from dataclasses import replace
from typing import Any

from companion.cards import Card, deck_cards
from companion.games import get_game
from companion.games.base import (
    Move,
    OptionsError,
    Ruling,
    UnknownGameError,
    options_from_json,
    seat_name,
)
from companion.layouts import Layout, LayoutError, Zone, load_layout, load_mat
from companion.referee.answers import Answers
from companion.referee.draws import put_back_missed_draw
from companion.referee.elimination import Elimination, named_by_elimination
from companion.referee.handfuls import laid_face_down
from companion.referee.hands import ArmWatcher, rival
from companion.referee.hints import could_lie_at
from companion.referee.mismatch import SyncWatch, ring_problems, spot_problems
from companion.referee.misread import Misreadings
from companion.referee.offers import Offers
from companion.referee.patience import moved_here
from companion.referee.stream import news
from companion.referee.tables import judge_of
from companion.referee.turnups import dated_when_read, turned_aside_here
from companion.referee.unseen import Unseen
from companion.referee.values import (
    Derivation,
    Fact,
    RefereeError,
    RefereeOutput,
    offer_label,
    parse_card,
    pictured_table,
    showing,
)
from companion.vision.motion import MotionMap
from companion.vision.track import TrackEvent

__all__ = ["RING_GRACE_S", "SPOT_GRACE_S", "Referee", "RefereeError", "RefereeOutput"]

# A refused card on a trick game's spot is said to be a desync only after this long: it is
# often judged again a moment later, when a card laid before it is named (three times on
# the real-art Ganjifa film, each within half a second).
SPOT_GRACE_S = 1.0
# The same for the Kendra Kari ring: a card hidden for a moment is no card gone. On two filmed
# games in dim light a resting hand over a position made its card "gone" for 9 and 16 frames,
# and the players were told the table did not match the game.
RING_GRACE_S = 1.0
# Frames after a card was first seen on its spot in which the hand that laid it may still
# be over its zone (see ``Referee._hand_at``)
LAID_WITHIN = 10
# Frames before it in which that hand laid it (see ``Referee._hand_at``)
LAID_BEFORE = 20
# A hand seen this near a card's place then may have laid it, even one not seen coming in
LAID_OVER_MM = 40.0


class Referee(Answers, Unseen, Misreadings, Offers):
    """``observe(events, ...) -> outputs`` for one game at one table."""

    def __init__(self, game: str, players: int, options: dict[str, Any] | None = None,
                 layout: Layout | None = None, combo_s: float = 3.0,
                 seat_angles_deg: tuple[float, ...] | None = None, watch_hands: bool = True,
                 by_elimination: bool = True):
        """``by_elimination``: the ruling of :mod:`companion.referee.elimination` (a doubtful
        card whose other readings are cards already played is named without asking)."""
        try:
            self.module = get_game(game)
            self.options = options_from_json(self.module.Options, options)
        except (UnknownGameError, OptionsError) as e:
            raise RefereeError(str(e)) from None
        if not self.module.MIN_PLAYERS <= players <= self.module.MAX_PLAYERS:
            raise RefereeError(f"{self.module.TITLE} is for {self.module.MIN_PLAYERS}-"
                               f"{self.module.MAX_PLAYERS} players, not {players}")
        try:
            self.layout = layout or load_layout(self.module.NAME)
        except LayoutError as e:
            raise RefereeError(f"{self.module.TITLE} has no table layout yet: {e}") from None
        self.game, self.players = self.module.NAME, players
        self._judge_class = judge_of(self.game, self.module.TITLE)
        self.shared = all(z.seat is None for z in self.layout.zones)
        self.combo_s = combo_s
        self._facts: list[Fact] = []
        self._answers: dict[int, int] = {}  # question id -> chosen index
        self._serial = 0  # facts told so far
        # a missed draw put back (*play-went-on*): its serial -> the serials of the cards
        # it may have come before, the likeliest first
        self._went_on_cards: dict[int, tuple[int, ...]] = {}
        self._derived = Derivation()
        self._table: dict[str, list[Card]] = {}  # zone -> cards seen there, bottom first
        self._named: dict[int, str] = {}  # tracker track -> the card it was last named
        self._answered: set[int] = set()  # tracks whose unnamed card a person named
        self._doubted: set[int] = set()  # tracks read as a card already played (``_doubt``)
        self._gone: set[int] = set()  # tracks the tracker saw taken away
        # facts reopened by ``misread``, refused cards that reopened one, searches done
        self._reread, self._reread_for, self._reread_memo = set(), set(), {}
        # track -> (zone, since, seat, source) of a doubt asked that held nothing up
        # (``_seen_there``, or its track held already: asked again, or a card laid on one
        # not yet named), with the hand seen there then (``_hand_at``)
        self._asked: dict[int, tuple[str, int, int | None, str]] = {}
        self._short_asked: set[tuple[int, int]] = set()  # (seat, rulings) asked (``Unseen``)
        self.by_elimination = by_elimination
        self._arms: ArmWatcher | None = None
        if watch_hands and getattr(self._judge_class, "WATCHES_HANDS", False):
            if seat_angles_deg is None:  # Player 1 at the bottom edge, then clockwise
                seat_angles_deg = tuple((90 + 360 / players * k) % 360 for k in range(players))
            if len(seat_angles_deg) != players:
                raise RefereeError(f"seat_angles_deg needs {players} angles, "
                                   f"got {len(seat_angles_deg)}")
            stock = next((z.center_mm for z in self.layout.zones if z.kind == "stock"), None)
            self._arms = ArmWatcher(load_mat(self.layout.mat).size_mm, seat_angles_deg, stock)
        self._last_judge: Any = None  # the judge of the story as it now stands
        self._sync = SyncWatch(RING_GRACE_S if self.shared else SPOT_GRACE_S)
        self.engine = self._fresh_engine()

    @property
    def desynced(self) -> str:
        """Why the table and the game disagree, or ""."""
        return self._sync.desynced

    @property
    def outputs(self) -> list[RefereeOutput]:
        """The whole story so far as it now stands (answers and two-card turns applied)."""
        return list(self._derived.outputs)

    def rulings(self) -> list[Ruling]:
        return [o.ruling for o in self._derived.outputs if o.kind == "ruling" and o.ruling]

    # ---- inputs --------------------------------------------------------------------------

    def observe(self, events: list[TrackEvent], frame: int = 0, timestamp: float = 0.0,
                motion: MotionMap | None = None) -> list[RefereeOutput]:
        """The tracker's events of one frame (and its motion map, to see draws)."""
        out: list[RefereeOutput] = []
        for ev in events:
            out += self._track_event(ev)
        if motion is not None and self._arms is not None:
            for seat, f, t in self._arms.update(motion, frame, timestamp):
                # (while an unnamed card holds the judging, the stage judged so far may be
                # the deal's: the judge drops a draw the game cannot have at its time; once
                # over, the end may yet move: ruling *play-went-on*)
                if self._stage() in ("normal", "over") or self._held_before(f):
                    out += self._add(Fact("draw", f, t, seat=seat, source="hand"))
        out += self._check_sync(frame, timestamp)
        return out

    def tell_draw(self, seat: int | None = None, frame: int = 0,
                  timestamp: float = 0.0) -> list[RefereeOutput]:
        """The dashboard's tap: a player drew from the stock (``seat`` None: whoever's turn)."""
        if seat is not None and not 0 <= seat < self.players:
            raise RefereeError(f"there is no {seat_name(seat)} in a {self.players}-player game")
        return self._add(Fact("draw", frame, timestamp, seat=seat))

    def tell_shown(self, frame: int = 0, timestamp: float = 0.0) -> list[RefereeOutput]:
        """The dashboard's tap: the face-up cards of the deal were picked up (Ganjifa's
        ``face_up_deal``); the shows not yet made are made with the cards seen."""
        return self._add(Fact("shown", frame, timestamp))

    def tell_move(self, move: Move, frame: int = 0, timestamp: float = 0.0
                  ) -> list[RefereeOutput]:
        """A move no camera can see (a pass, a called card), entered on the dashboard."""
        if not 0 <= move.player < self.players:
            raise RefereeError(f"there is no {seat_name(move.player)} in a "
                               f"{self.players}-player game")
        return self._add(Fact("told", frame, timestamp, move=move))

    # ---- the physical table ---------------------------------------------------------------

    def _has_zone(self, zone_id: str) -> bool:
        return any(z.id == zone_id for z in self.layout.zones)

    def _zone_of(self, ev: TrackEvent) -> Zone | None:
        return self.layout.zone(ev.zone) if ev.zone and self._has_zone(ev.zone) else None

    def _track_event(self, ev: TrackEvent) -> list[RefereeOutput]:
        ev = dated_when_read(self, ev)
        if ev.kind == "unsure" and self.by_elimination and self.is_move_zone(ev.zone) \
                and not self._seen_there(ev) and not self._doubt_over_own_card(ev) \
                and (named := named_by_elimination(ev, self._played_elsewhere(ev))) is not None:
            return self._name_by_elimination(ev, named)
        if ev.kind == "unsure":
            if not self.is_move_zone(ev.zone) and not turned_aside_here(self, ev.zone, True):
                return []  # a doubt about a pile or off the zones decides no move: not asked
            why = self._expected(ev)
            choices, because = self.choices_for(ev, why), dict(why)
            names = ", ".join(offer_label(c, because.get(c), p)
                              for c, p in choices) or "no possible reading"
            place = self.layout.place(ev.zone)
            out = [RefereeOutput("unsure", f"Unsure which card lies on {place}: {names}?",
                                 ev.last_frame, ev.timestamp,
                                 choices=tuple(c for c, _ in choices), zone=ev.zone,
                                 place=place,
                                 readings=ev.candidates, track=ev.track_id, why=why,
                                 could=could_lie_at(self.engine, ev.zone,
                                                    self._zone_of(ev).seat))]
            if not self._seen_there(ev) and self._pending(track=ev.track_id) is None:
                out += self._add_seen(ev, "unsure")
            else:  # holds nothing up (more); an answer naming a new card says when it was
                # laid, and whose hand laid it (ruling *hand-kept-for-the-answer*)
                self._asked[ev.track_id] = (ev.zone, ev.since if ev.since >= 0
                                            else ev.first_frame, *self._hand_at(ev))
            return out
        card = parse_card(ev.card_id)
        renames = ev.resolves or ev.track_id in self._doubted  # names a card held unnamed
        if ev.kind == "appeared" and renames and ev.track_id in self._answered:
            return []  # a person named it already: their word stands over a late reading
        if ev.kind == "removed" and ev.zone:
            # (an unnamed card goes as the card it was named: see ``_named``; one named
            # after it went, by a late answer, is not put back on the spot)
            self._gone.add(ev.track_id)
            gone = card or parse_card(self._named.get(ev.track_id))
            stack = self._table.get(ev.zone, [])
            if gone in stack:
                stack.remove(gone)
            return self._let_go_unanswered(ev.track_id) + (
                self._taken_off(ev, gone, stack) if self._on_hands(ev) else [])
        if ev.kind == "cleared" and ev.zone:
            # a pile taken up at once goes as its top card: the ones beneath went with it
            self._table.pop(ev.zone, None)
            if self.shared:
                return self._ring_gathered(ev.last_frame, ev.timestamp)
            if self.is_move_zone(ev.zone):
                if showing(pictured_table(self.engine)):  # a face-up batch picked up
                    return self._add(Fact("cleared", ev.last_frame, ev.timestamp,
                                          zone=ev.zone))
                return self._gathered_short(ev.last_frame, ev.timestamp)
        if ev.kind != "appeared" or card is None or ev.zone is None:
            # face-down cards, cleared zones and cards off the zones: no moves (but a
            # Hamrang player's cards laid face down: she is out)
            return self._add(f) if (f := laid_face_down(self, ev)) else []
        stack = self._table.setdefault(ev.zone, [])
        moved = getattr(self._judge_class, "MOVES_CARDS", False) and moved_here(
            self._table, card, ev.zone)
        if card in stack and not moved:  # the card on top went away and this one shows again
            stack.remove(card)
            stack.append(card)
            return []
        stack.append(card)
        before, self._named[ev.track_id] = self._named.get(ev.track_id), card.id
        pending = self._pending(track=ev.track_id) if renames else None
        if pending is not None:  # the tracker's readings settled on the card it was unsure of
            return self._name_pending(pending, card, before, *self._hand_at(ev))
        if self.shared and self.expected_table().get(ev.zone) == card:
            return []  # a card put back where the game has it: no new move
        if elsewhere := self._elsewhere(card, ev.zone):
            if self.is_move_zone(ev.zone) and (why := self._doubt_why(card, ev.zone, elsewhere)):
                stack.remove(card)
                return self._doubt(ev, card, why)
            return []  # the same card seen again (swept up with the others): no new move
        if not self.is_move_zone(ev.zone) and not turned_aside_here(self, ev.zone):
            return []
        out = self._covered_taken(ev, stack) + self._add_seen(ev, "laid", card)
        return out + (self._gathered_short(ev.last_frame, ev.timestamp)
                      if self._on_hands(ev) else [])

    def _name_by_elimination(self, ev: TrackEvent, named: Elimination) -> list[RefereeOutput]:
        out = [RefereeOutput("named", named.text(self.layout.place(ev.zone)), ev.last_frame,
                             ev.timestamp, choices=(named.card.id,), zone=ev.zone or "",
                             track=ev.track_id)]
        return out + self._track_event(replace(ev, kind="appeared", card_id=named.card.id,
                                               confidence=named.sure, needed=None))

    def _add_seen(self, ev: TrackEvent, kind: str, card: Card | None = None
                  ) -> list[RefereeOutput]:
        """A card seen laid (``kind`` "laid", or "unsure" while it has no name) as a fact:
        when it lay there, and whose hand laid it, known now while the reach is fresh."""
        near = self._laying_hands(ev)
        seat, source = self._hand_at(ev, near)
        at_stock = seat is not None and self._arms is not None and self._arms.dwelt_at_stock(
            seat, ev.since if ev.since >= 0 else ev.last_frame)
        return self._add(Fact(kind, ev.last_frame, ev.timestamp, card, ev.zone, seat,
                              source=source, track=ev.track_id, since=ev.since,
                              readings=ev.candidates, rival=rival(near, seat),
                              at_stock=at_stock))

    def _hand_at(self, ev: TrackEvent, near: list[tuple[float, int]] | None = None
                 ) -> tuple[int | None, str]:
        """(the seat whose hand reached the card's zone, "hand"), or (None, "").

        The hand that laid a card came before the card was seen there (``since``), not
        before its readings settled: a doubtful card settles up to a second later, by when
        the next player's hand may have passed over its zone. On the hard Kendra Kari film
        with its PySolFC profile the 5 of Cheng, laid at frame 3207 by Player 2 (the card
        just drawn) and named at 3226, was taken for Player 3's, whose hand reached past
        it to the stock; the turns then ran one player off to the end.

        Of the hands there in the ``LAID_BEFORE`` frames before ``since`` (and up to the
        ``LAID_WITHIN`` after), the one that came nearest: the hand that lays a card holds
        it over its place. On a hard six-player film Player 1's idle hand passed 52 mm from
        Position 3 a frame after Player 2's had laid the 1 of Cheng there (38 mm), and the
        card was taken for Player 1's: 17 of 79 moves were lost with this and the hands
        below.

        Ruling *quick-hand-over-the-card*: a hand seen over the card's place then
        (``LAID_OVER_MM``) counts too, seen coming in or not. At a brisk pace Player 1's
        hand was first seen on Position 4, 100 mm in from their edge, and came 32 mm nearer
        after: the raja of Kumancha was taken for Player 4's, whose hand had reached past it
        10 frames before, and 11 of 35 moves were lost.

        ``near``: ``_laying_hands(ev)``, when the caller has it already."""
        if ev.since < 0:
            return self._hand_over(ev.zone, ev.last_frame)
        near = self._laying_hands(ev) if near is None else near
        if near:
            return near[0][1], "hand"
        return self._hand_over(ev.zone, min(ev.last_frame, ev.since + LAID_WITHIN))

    def _laying_hands(self, ev: TrackEvent) -> list[tuple[float, int]]:
        """(score, seat) of the hands near ``ev``'s card as it was laid, nearest first
        (``ArmWatcher.reached``, in the window ``_hand_at`` says); [] without ``since``."""
        if self._arms is None or ev.since < 0:
            return []
        frame = min(ev.last_frame, ev.since + LAID_WITHIN)
        return self._arms.reached(self.layout.zone(ev.zone).center_mm, frame,
                                  frame - ev.since + LAID_BEFORE, ev.since, LAID_OVER_MM)

    def _hand_over(self, zone: str, frame: int, window: int = 90) -> tuple[int | None, str]:
        """(the seat whose hand last reached ``zone`` in the ``window`` frames up to
        ``frame``, "hand"), or (None, "")."""
        if self._arms is None:
            return None, ""
        seat = self._arms.who_reached(self.layout.zone(zone).center_mm, frame, window)
        return seat, "hand" if seat is not None else ""

    def is_move_zone(self, zone: str | None) -> bool:
        """Whether a card laid there is a move (not off the zones, the stock, the gathered
        pile, or a pile of won tricks, which are the engine's consequences)."""
        if not zone or not self._has_zone(zone):
            return False
        if self.shared:
            return zone not in ("stock", "gathered")
        return not zone.startswith("won")

    # ---- judging -----------------------------------------------------------------------

    def _fresh_engine(self):
        return self.module.TableReferee(self.players, self.options)

    def _add(self, fact: Fact) -> list[RefereeOutput]:
        """Tell a fact in the order things happened on the table.

        A card whose readings settle late (a doubtful one, read every few frames) is
        reported after a card laid after it. On the real-art Ganjifa film Player 1's card,
        laid before Player 4's, settled after it and was judged out of turn ("Player 4
        still has to play"), and nothing judged it again. So a fact goes before the facts
        told earlier that happened later (``Fact.when``), and what follows is re-judged."""
        fact = replace(fact, serial=self._serial)
        self._serial += 1
        at = len(self._facts)
        while at and self._facts[at - 1].when > fact.when:
            at -= 1
        self._facts.insert(at, fact)
        return self._add_judged()

    def _add_judged(self) -> list[RefereeOutput]:
        """Re-judge the facts; return what the stream has not said yet."""
        before = self._derived.outputs
        self._rederive()
        asked = self._ask_reread()
        return asked + news(before, self._derived.outputs)

    def _rederive(self) -> None:
        """Judge every fact from the start: answers to questions may change the story (and
        again with each missed draw found put back: at most one a seat)."""
        for _ in range(self.players + 1):
            self.engine = self._fresh_engine()
            d = Derivation()
            judge = self._last_judge = self._judge_class(self, d)
            # (what follows an unnamed card waits for its name)
            judge.facts(list(itertools.takewhile(lambda f: f.kind != "unsure", self._facts)))
            self._derived = d
            if not put_back_missed_draw(self):
                return

    def _stage(self) -> str:
        stage = getattr(getattr(self.engine, "state", None), "stage", None)
        names = {0: "normal", 1: "start", 2: "turnup", 3: "over", 4: "deal"}
        return names.get(stage, "normal") if isinstance(stage, int) else "normal"

    def expected_table(self) -> dict[str, Card]:
        """Zone -> the card the game says lies on top there (Kendra Kari's ring)."""
        state = getattr(self.engine, "state", None)
        tops = getattr(state, "tops", None)
        if tops is None:
            return {}
        cards = deck_cards(self.module.DECK)
        out = {}
        for i, c in enumerate(tops):
            if c >= 0:
                out["pos7" if i == 0 else f"pos{i}"] = cards[c]
        return out

    def _already_played(self, card: Card) -> bool:
        if not self.shared:  # trick games: a card the table picture has seen played
            table = pictured_table(self.engine)
            if table is None:  # a snapshot referee (Hamrang, Ekrang): the cards it saw
                return card in getattr(getattr(self.engine, "state", None), "seen", ())
            played = getattr(table, "played", frozenset())
            return card in played or any(c == card for _, c in getattr(table, "trick", ()))
        out = getattr(getattr(self.engine, "state", None), "out", 0)
        cards = deck_cards(self.module.DECK)
        return card in cards and bool((out >> cards.index(card)) & 1)

    def _check_sync(self, frame: int, ts: float) -> list[RefereeOutput]:
        if self._pending() is not None:
            return []  # (cards laid behind an unnamed one are not judged yet)
        tops = {zone: stack[-1] for zone, stack in self._table.items() if stack}
        if own := getattr(self._judge_class, "problems", None):  # (Udvasa's piles)
            problems = own(self, tops)
        elif self.shared:
            problems = ring_problems(tops, self.expected_table(), self._already_played)
        else:
            problems = spot_problems(tops, self.rulings(), self.layout, self.is_move_zone,
                                     self._already_played)
        return self._sync.check(problems, frame, ts)
