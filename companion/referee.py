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
``answer()`` says otherwise. It never reports a card the tracker was unsure of: those go
to the players (``unsure``), and ``confirm(...)`` brings the answer back.

When the table and the game disagree (a card the rules refused is still lying there, or a
card the game needs has gone) it says ``desync`` and stays in that state until the table
matches again (``resync``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from companion.cards import Card, CardIdError, deck_cards
from companion.games import get_game
from companion.games.base import (
    Move,
    OptionsError,
    Ruling,
    UnknownGameError,
    Verdict,
    options_from_json,
    seat_name,
)
from companion.layouts import Layout, LayoutError, load_layout, load_mat
from companion.vision.track import MotionMap, TrackEvent


class RefereeError(ValueError):
    """A game without a table layout, bad options, or an answer to no question."""


@dataclass(frozen=True)
class RefereeOutput:
    """One item of the referee's stream, for the dashboard, the store and ``replay``."""

    kind: str  # ruling | question | unsure | draw | desync | resync | correction | superseded
    text: str
    frame: int
    timestamp: float
    ruling: Ruling | None = None
    choices: tuple[str, ...] = ()  # question: the possible answers, the assumed one first
    assumed: bool = False  # ruling: rests on an assumption a question asked about
    question_id: int | None = None
    # ruling: its move includes the previous ruling's move (a two-card turn seen card by
    # card); a consumer that applied that one takes it back first
    replaces: bool = False

    @property
    def move(self) -> Move | None:
        return self.ruling.move if self.ruling else None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "text": self.text, "frame": self.frame,
                             "timestamp": round(self.timestamp, 3)}
        if self.ruling is not None:
            d["ruling"] = self.ruling.to_json()
        if self.choices:
            d["choices"] = list(self.choices)
        if self.assumed:
            d["assumed"] = True
        if self.question_id is not None:
            d["question"] = self.question_id
        if self.replaces:
            d["replaces_previous"] = True
        return d


@dataclass(frozen=True)
class _Fact:
    """Something the table showed, in order: what the rules are judged on."""

    kind: str  # "laid" | "draw" | "told"
    frame: int
    timestamp: float
    card: Card | None = None
    zone: str = ""
    seat: int | None = None  # a draw the dashboard was told about names the seat
    move: Move | None = None  # "told": a move the camera cannot see (a pass), from a person
    source: str = ""  # "hand": ``seat`` is the seat whose hand was seen doing it


@dataclass
class _Derivation:
    outputs: list[RefereeOutput] = field(default_factory=list)
    questions: dict[int, tuple[str, ...]] = field(default_factory=dict)


def _card(card_id: str | None) -> Card | None:
    if card_id is None:
        return None
    try:
        return Card.parse(card_id)
    except CardIdError:
        return None


@dataclass
class _Reach:
    """One visit of a seat's hand over the mat: where its fingertips went, frame by frame."""

    seat: int
    tips: list[tuple[int, float, float, float]]  # (frame, timestamp, x_mm, y_mm)
    last_frame: int
    deepest: tuple[float, int, float, float, float] = (-1.0, 0, 0.0, 0.0, 0.0)
    retreating: bool = False  # turned back: heading out of the mat
    depths: list[float] = field(default_factory=list)  # per tip: how far in the hand was


class _ArmWatcher:
    """Which seat's hand is where, from the motion map: an arm enters the mat across the
    edge in front of its seat, and its deepest point is the hand.

    Seats sit around the mat at ``seat_angles_deg`` (image angles from the mat's centre,
    0 = right, 90 = bottom edge; by default Player 1 at the bottom and the others
    clockwise, ruling *seats-clockwise*)."""

    def __init__(self, size_mm: tuple[float, float], seat_angles_deg: tuple[float, ...],
                 stock_mm: tuple[float, float] | None, reach_mm: float = 80.0,
                 stock_mm_radius: float = 55.0, gap_frames: int = 4,
                 retreat_mm: float = 80.0):
        self.size_mm, self.angles = size_mm, seat_angles_deg
        self.stock = stock_mm
        self.reach_mm, self.stock_radius = reach_mm, stock_mm_radius
        self.gap, self.retreat_mm = gap_frames, retreat_mm
        self.active: dict[int, _Reach] = {}
        self.done: list[_Reach] = []
        self._kernel = None

    def _turned(self, r: _Reach) -> list[tuple[int, int, float]]:
        """A hand that turned back at the stock drew a card; one that only passed over it
        on the way to the ring turned back somewhere deeper."""
        depth, f, t, x, y = r.deepest
        if depth < 0 or r.retreating or self.stock is None:
            return []
        if float(np.hypot(x - self.stock[0], y - self.stock[1])) <= self.stock_radius:
            return [(r.seat, f, t)]
        return []

    def _home(self, seat: int) -> tuple[float, float]:
        """A point far out in front of the seat, so that 'deepest' means 'reached in most'."""
        a = np.radians(self.angles[seat])
        cx, cy = self.size_mm[0] / 2, self.size_mm[1] / 2
        return cx + 2000 * float(np.cos(a)), cy + 2000 * float(np.sin(a))

    def _nearest_reach(self, x: float, y: float, within_mm: float = 150.0) -> int | None:
        best, best_d = None, within_mm
        for seat, r in self.active.items():
            _, _, tx, ty = r.tips[-1]
            d = float(np.hypot(tx - x, ty - y))
            if d < best_d:
                best, best_d = seat, d
        return best

    def _seat_at(self, angle: float) -> int:
        diffs = [abs((angle - a + 180) % 360 - 180) for a in self.angles]
        return int(np.argmin(diffs))

    def update(self, motion: MotionMap, frame: int, ts: float) -> list[tuple[int, int, float]]:
        """Feed one frame; returns draws seen: (seat, frame, timestamp)."""
        import cv2
        m = motion.mask.astype(np.uint8)
        if self._kernel is None:
            k = max(3, int(20 * motion.px_per_mm) | 1)
            self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        h, w = m.shape
        draws = []
        seen: dict[int, tuple[float, float, float]] = {}  # seat -> (depth, x_mm, y_mm)
        if m.any():
            n, labels = cv2.connectedComponents(cv2.dilate(m, self._kernel))
            edge = np.zeros((h, w), bool)
            edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
            ppm = motion.px_per_mm
            for k in range(1, n):
                blob = (labels == k) & (m > 0)
                ys, xs = np.nonzero(blob)
                if len(xs) < 20:
                    continue
                contact = blob & edge
                if contact.any():
                    cy, cx = (v.mean() for v in np.nonzero(contact))
                    seat = self._seat_at(float(np.degrees(np.arctan2(cy - h / 2, cx - w / 2))
                                               % 360))
                else:
                    # A hand whose sleeve the camera cannot tell from the mat: it belongs to
                    # the arm that was nearest a moment ago.
                    seat = self._nearest_reach(xs.mean() / ppm, ys.mean() / ppm)
                    if seat is None:
                        continue
                home = self._home(seat)
                depth = np.hypot(xs / ppm - home[0], ys / ppm - home[1])
                j = int(np.argmax(depth))
                tip = (float(depth[j]), xs[j] / ppm, ys[j] / ppm)
                if seat not in seen or tip[0] > seen[seat][0]:
                    seen[seat] = tip
        for seat, (depth, x, y) in seen.items():
            r = self.active.get(seat)
            if r is None:
                r = self.active[seat] = _Reach(seat, [], frame)
            r.tips.append((frame, ts, x, y))
            r.depths.append(depth)
            r.last_frame = frame
            if r.retreating:  # on the way out; reaching in again starts a new reach
                if depth < r.deepest[0]:
                    r.deepest = (depth, frame, ts, x, y)
                elif depth > r.deepest[0] + self.retreat_mm:
                    r.retreating = False
                    r.deepest = (depth, frame, ts, x, y)
            elif depth > r.deepest[0]:
                r.deepest = (depth, frame, ts, x, y)
            elif depth < r.deepest[0] - self.retreat_mm:  # the hand turned back
                draws += self._turned(r)
                r.retreating = True
                r.deepest = (depth, frame, ts, x, y)
        for seat in list(self.active):
            r = self.active[seat]
            if frame - r.last_frame > self.gap:
                self.done.append(self.active.pop(seat))
                draws += self._turned(r)
        self.done = [r for r in self.done if frame - r.last_frame < 150]
        return draws

    def who_reached(self, zone_mm: tuple[float, float], frame: int,
                    window: int = 90) -> int | None:
        """The seat whose hand came to ``zone_mm`` most recently (None: no hand seen)."""
        best, best_frame = None, -1
        for r in list(self.active.values()) + self.done:
            shallowest = float("inf")
            for (f, _, x, y), depth in zip(r.tips, r.depths):
                shallowest = min(shallowest, depth)
                # Only a hand that came in to the zone counts, not one resting near it.
                if frame - window <= f <= frame and f > best_frame and \
                        depth - shallowest >= self.retreat_mm and \
                        float(np.hypot(x - zone_mm[0], y - zone_mm[1])) <= self.reach_mm:
                    best, best_frame = r.seat, f
        return best


class Referee:
    """``observe(events, ...) -> outputs`` for one game at one table."""

    def __init__(self, game: str, players: int, options: dict[str, Any] | None = None,
                 layout: Layout | None = None, combo_s: float = 3.0,
                 seat_angles_deg: tuple[float, ...] | None = None, watch_hands: bool = True):
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
        self.shared = all(z.seat is None for z in self.layout.zones)
        self.combo_s = combo_s
        self._facts: list[_Fact] = []
        self._answers: dict[int, int] = {}  # question id -> chosen index
        self._emitted = 0  # outputs of the derivation already returned
        self._derived = _Derivation()
        self._table: dict[str, list[Card]] = {}  # zone -> cards seen there, bottom first
        self._arms: _ArmWatcher | None = None
        if watch_hands and self.shared:
            if seat_angles_deg is None:  # Player 1 at the bottom edge, then clockwise
                seat_angles_deg = tuple((90 + 360 / players * k) % 360 for k in range(players))
            if len(seat_angles_deg) != players:
                raise RefereeError(f"seat_angles_deg needs {players} angles, "
                                   f"got {len(seat_angles_deg)}")
            stock = next((z.center_mm for z in self.layout.zones if z.kind == "stock"), None)
            self._arms = _ArmWatcher(load_mat(self.layout.mat).size_mm, seat_angles_deg, stock)
        self.desynced: str = ""  # why the table and the game disagree, or ""
        self.engine = self._fresh_engine()

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
                if self._stage() == "normal":
                    out += self._add(_Fact("draw", f, t, seat=seat, source="hand"))
        out += self._check_sync(frame, timestamp)
        return out

    def tell_draw(self, seat: int | None = None, frame: int = 0,
                  timestamp: float = 0.0) -> list[RefereeOutput]:
        """The dashboard's tap: a player drew from the stock (``seat`` None: whoever's turn)."""
        if seat is not None and not 0 <= seat < self.players:
            raise RefereeError(f"there is no {seat_name(seat)} in a {self.players}-player game")
        return self._add(_Fact("draw", frame, timestamp, seat=seat))

    def tell_move(self, move: Move, frame: int = 0, timestamp: float = 0.0
                  ) -> list[RefereeOutput]:
        """A move no camera can see (a pass, a called card), entered on the dashboard."""
        if not 0 <= move.player < self.players:
            raise RefereeError(f"there is no {seat_name(move.player)} in a "
                               f"{self.players}-player game")
        return self._add(_Fact("told", frame, timestamp, move=move))

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
                timestamp: float = 0.0) -> list[RefereeOutput]:
        """A person named a card the tracker was unsure of: it counts as laid there."""
        card = _card(card_id)
        if card is None:
            raise RefereeError(f"bad card id {card_id!r}")
        self.layout.zone(zone)  # raises LayoutError for an unknown zone
        self._table.setdefault(zone, []).append(card)
        return self._add(_Fact("laid", frame, timestamp, card, zone))

    # ---- the physical table ---------------------------------------------------------------

    def _has_zone(self, zone_id: str) -> bool:
        return any(z.id == zone_id for z in self.layout.zones)

    def _track_event(self, ev: TrackEvent) -> list[RefereeOutput]:
        if ev.kind == "unsure":
            names = ", ".join(f"{c} ({p:.0%})" for c, p in ev.candidates) or "no reading"
            where = ev.zone or "off the zones"
            return [RefereeOutput("unsure", f"Unsure which card lies on {where}: {names}?",
                                  ev.last_frame, ev.timestamp,
                                  choices=tuple(c for c, _ in ev.candidates))]
        card = _card(ev.card_id)
        if ev.kind == "removed" and ev.zone and card is not None:
            stack = self._table.get(ev.zone, [])
            if card in stack:
                stack.remove(card)
            return []
        if ev.kind != "appeared" or card is None or ev.zone is None:
            return []  # face-down cards, cleared zones and cards off the zones: no moves
        stack = self._table.setdefault(ev.zone, [])
        if card in stack:  # the card on top went away and this one shows again
            stack.remove(card)
            stack.append(card)
            return []
        stack.append(card)
        if self.shared and self.expected_table().get(ev.zone) == card:
            return []  # a card put back where the game has it: no new move
        if self.shared and self._already_played(card):
            return []  # the same card seen again (swept up with the others): no new move
        if self.shared and ev.zone in ("stock", "gathered"):
            return []
        if not self.shared and ev.zone.startswith("won"):
            return []  # tricks gathered to a pile are the engine's consequence, not a move
        seat = None
        if self._arms is not None:
            seat = self._arms.who_reached(self.layout.zone(ev.zone).center_mm, ev.last_frame)
        return self._add(_Fact("laid", ev.last_frame, ev.timestamp, card, ev.zone, seat,
                               source="hand" if seat is not None else ""))

    # ---- judging -----------------------------------------------------------------------

    def _fresh_engine(self):
        return self.module.TableReferee(self.players, self.options)

    def _add(self, fact: _Fact) -> list[RefereeOutput]:
        self._facts.append(fact)
        self._rederive()
        new = self._derived.outputs[self._emitted:]
        self._emitted = len(self._derived.outputs)
        return list(new)

    def _rederive(self) -> None:
        """Judge every fact from the start: answers to questions may change the story."""
        self.engine = self._fresh_engine()
        d = _Derivation()
        judge = _KendraKari(self, d) if self.shared else _PerSeat(self, d)
        for i, fact in enumerate(self._facts):
            judge.fact(i, fact)
        self._derived = d

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
        out = getattr(getattr(self.engine, "state", None), "out", 0)
        cards = deck_cards(self.module.DECK)
        return card in cards and bool((out >> cards.index(card)) & 1)

    def _check_sync(self, frame: int, ts: float) -> list[RefereeOutput]:
        if not self.shared:
            return []
        expected = self.expected_table()
        accepted = getattr(self.engine.state, "out", 0)  # every card the game saw played
        index = {c: i for i, c in enumerate(deck_cards(self.module.DECK))}
        problems = []
        for zone in [f"pos{k}" for k in range(1, 8)]:
            stack = self._table.get(zone, [])
            top = stack[-1] if stack else None
            want = expected.get(zone)
            if want is not None and top != want:
                problems.append(f"{want.name} should lie on Position {zone[3:]}"
                                + (f", not {top.name}" if top else ""))
            elif top is not None and top != want and not (accepted >> index[top]) & 1:
                problems.append(f"take {top.name} back from Position {zone[3:]}")
        if problems and not self.desynced:
            self.desynced = "; ".join(problems)
            return [RefereeOutput("desync", f"The table does not match the game: "
                                  f"{self.desynced}. Waiting until it does.", frame, ts)]
        if not problems and self.desynced:
            self.desynced = ""
            return [RefereeOutput("resync", "The table matches the game again.", frame, ts)]
        return []


class _KendraKari:
    """The shared ring: turn order, draws, and the two-card turns that need a question."""

    TARGET: ClassVar[dict[str, str]] = {"pos7": "7", **{f"pos{k}": str(k) for k in range(1, 7)}}

    def __init__(self, ref: Referee, d: _Derivation):
        self.ref, self.d = ref, d
        self.last: tuple[Move, _Fact, int] | None = None  # last move, its fact, output index
        self.last_draw: tuple[int, _Fact] | None = None  # seat that drew, and when
        self.drawn_played = False  # the last move played a card just drawn

    def _emit_ruling(self, move: Move, fact: _Fact, assumed: bool,
                     replaces: bool = False) -> None:
        ruling = self.ref.engine.observe(move)
        if ruling.verdict is Verdict.ILLEGAL:
            text = f"{seat_name(move.player)}: {ruling.reason}"
        else:
            text = "; ".join(e.text for e in ruling.events) or str(move)
        self.d.outputs.append(RefereeOutput("ruling", text, fact.frame, fact.timestamp, ruling,
                                            assumed=assumed, replaces=replaces))
        self.last = (move, fact, len(self.d.outputs) - 1)

    def _ask(self, index: int, fact: _Fact, text: str, choices: tuple[str, ...],
             likely: int) -> int:
        """Ask; the choice used is the answer if given, else the likely one."""
        ordered = (choices[likely],) + tuple(c for k, c in enumerate(choices) if k != likely)
        if index not in self.d.questions:
            self.d.outputs.append(RefereeOutput("question", text, fact.frame, fact.timestamp,
                                                choices=ordered, question_id=index))
        self.d.questions[index] = ordered
        picked = self.ref._answers.get(index, 0)
        return choices.index(ordered[picked])

    def fact(self, i: int, f: _Fact) -> None:
        eng = self.ref.engine
        s = eng.state
        if f.kind == "told":
            self._emit_ruling(f.move, f, False)
            return
        if f.kind == "draw":
            seat = s.turn if f.seat is None else f.seat
            if f.source == "hand" and seat != s.turn:
                return  # a hand near the stock out of turn: passing by, not drawing
            self.d.outputs.append(RefereeOutput(
                "draw", f"{seat_name(seat)} draws from the stock"
                + (" (seen)" if f.source == "hand" else ""), f.frame, f.timestamp))
            self._emit_ruling(Move(seat, "draw"), f, False)
            self.last_draw = (seat, f)
            self.drawn_played = False
            return
        target = self.TARGET.get(f.zone)
        if target is None:
            return
        stage = self.ref._stage()
        if stage == "deal":
            if target == "7":
                self._emit_ruling(Move(s.turn, "deal", (f.card,), "7"), f, False)
            return
        prev = self.last
        quick = prev is not None and f.timestamp - prev[1].timestamp <= self.ref.combo_s
        hand = f.seat if f.source == "hand" else None
        # A second card of the same turn: a play then a bridge to 7, or a phase opened on 7
        # then a card on 1 (a card just drawn cannot begin a two-card bridge). The hand that
        # laid it tells it from the next player's card; without it, ask.
        if prev is not None and len(prev[0].cards) == 1 and (
                (prev[0].action == "play" and target == "7" and not self.drawn_played)
                or (prev[0].action == "start" and target == "1" and stage == "normal")):
            first, who = prev[0], prev[0].player
            nxt = s.turn
            action = "bridge" if first.action == "play" else "start"
            if hand in (who, nxt):
                picked, assumed = (0 if hand == who else 1), False
            else:
                choices = (f"{seat_name(who)} laid both cards in one turn",
                           f"{seat_name(nxt)} laid {f.card.name}")
                picked = self._ask(i, f, f"Who laid {f.card.name} on Position {target}: "
                                   f"{seat_name(who)} (a second card) or {seat_name(nxt)}?",
                                   choices, 0 if quick else 1)
                assumed = i not in self.ref._answers
            if picked == 0:
                eng.undo()
                combined = Move(who, action, first.cards + (f.card,),
                                f"{first.target},{target}")
                earlier = self.d.outputs[prev[2]]
                self.d.outputs[prev[2]] = RefereeOutput(
                    "superseded", earlier.text + " (the first card of two)", earlier.frame,
                    earlier.timestamp, earlier.ruling, assumed=assumed)
                self._emit_ruling(combined, f, assumed=assumed, replaces=True)
                return
        drawer = getattr(s, "drawer", -1)
        if hand is not None and stage == "normal" and hand not in (s.turn, drawer):
            after = self._unseen_draws(f, hand, 1)
            if after is None:  # the hand and the turn order disagree: ask
                choices = (f"{seat_name(s.turn)}, whose turn it was",
                           (f"{seat_name(hand)}, whose hand was seen (the players before "
                           "drew unseen)"))
                # the hand is the likelier story (it was right more often on the films)
                if self._ask(i, f, f"Who laid {f.card.name}: {seat_name(s.turn)} or "
                             f"{seat_name(hand)}?", choices, 1) == 1:
                    after = self._unseen_draws(f, hand, self.ref.players - 1)
            s = after or s
            drawer = getattr(s, "drawer", -1)
        seat, assumed = s.turn, False
        if drawer is not None and drawer >= 0 and drawer != s.turn:
            if hand in (drawer, s.turn):
                seat = hand
            else:
                draw_t = self.last_draw[1].timestamp if self.last_draw else f.timestamp
                choices = (f"{seat_name(drawer)} played the card just drawn",
                           f"{seat_name(s.turn)} played it (the drawn card was kept)")
                picked = self._ask(i, f, f"Who laid {f.card.name}: {seat_name(drawer)} (the "
                                   f"drawn card) or {seat_name(s.turn)}?", choices,
                                   0 if f.timestamp - draw_t <= self.ref.combo_s else 1)
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


    def _unseen_draws(self, f: _Fact, hand: int, most: int):
        """The hand of the seat after the one to play laid the card: that player cannot
        have played, and a player who cannot play draws, so they drew where the camera
        missed it. The draw is judged (it is unverifiable anyway) and marked as inferred."""
        eng = self.ref.engine
        steps = 0
        # One missed draw is a camera's slip; a whole round of them is more likely a hand
        # taken for the wrong seat, so then the turn order stands.
        while steps < most and eng.state.turn != hand:
            eng.observe(Move(eng.state.turn, "draw"))
            steps += 1
        reached = eng.state.turn == hand
        for _ in range(steps):
            eng.undo()
        if not reached or steps == 0:
            return None
        for _ in range(steps):
            seat = eng.state.turn
            self.d.outputs.append(RefereeOutput(
                "draw", f"{seat_name(seat)} must have drawn from the stock (not seen: "
                f"{seat_name(hand)}'s hand laid the next card)", f.frame, f.timestamp))
            self._emit_ruling(Move(seat, "draw"), f, assumed=True)
            self.last_draw = (seat, f)
        self.drawn_played = False
        return eng.state


class _PerSeat:
    """Trick games: each seat has its own play and Deni spots, so the zone names the seat.

    The action is the first of the game's card-laying actions that the rules accept here
    (lead, follow, sacrifice ...); a card on a Deni spot and the card led with it form one
    ``deni`` move (low card led, high card exposed); a second card of the same seat that
    no single action accepts, with its first, is a ``double``.
    """

    ACTIONS = ("lead", "follow", "sacrifice", "play")

    def __init__(self, ref: Referee, d: _Derivation):
        self.ref, self.d = ref, d
        self.waiting_deni: dict[int, Card] = {}
        self.last: dict[int, tuple[Move, int]] = {}  # the latest move, if it was this seat's

    def fact(self, i: int, f: _Fact) -> None:
        if f.kind == "told":
            self._judge([f.move], f, f.move.player)
            return
        zone = self.ref.layout.zone(f.zone)
        if zone.seat is None or f.kind != "laid":
            return
        seat = zone.seat
        if seat >= self.ref.players:
            return
        eng = self.ref.engine
        if zone.kind == "deni":
            last = self.last.get(seat)
            if last is not None and last[0].action == "lead" and len(last[0].cards) == 1:
                # the low card was led first: the two together were a Deni
                eng.undo()
                del self.d.outputs[last[1]]
                self._judge([Move(seat, "deni", (last[0].cards[0], f.card))], f, seat)
                return
            self.waiting_deni[seat] = f.card
            return
        if seat in self.waiting_deni:
            high = self.waiting_deni.pop(seat)
            candidates = [Move(seat, "deni", (f.card, high))]
        else:
            candidates = [Move(seat, a, (f.card,)) for a in self.ACTIONS]
        if not self._judge(candidates, f, seat, keep_refused=False):
            last = self.last.get(seat)
            if last is not None and len(last[0].cards) == 1:
                # A second card of the same seat right after its first: the two were one
                # move (a called card and the card that doubles it).
                eng.undo()
                earlier = self.d.outputs[last[1]]
                if self._judge([Move(seat, "double", (last[0].cards[0], f.card))], f, seat,
                               keep_refused=False):
                    self.d.outputs[last[1]] = RefereeOutput(
                        "superseded", earlier.text + " (the first card of two)",
                        earlier.frame, earlier.timestamp, earlier.ruling)
                    out = self.d.outputs[-1]
                    self.d.outputs[-1] = RefereeOutput(out.kind, out.text, out.frame,
                                                       out.timestamp, out.ruling,
                                                       replaces=True)
                    return
                eng.observe(last[0])  # not a pair after all: the first card stands
            self._judge(candidates, f, seat)

    def _judge(self, candidates: list[Move], f: _Fact, seat: int,
               keep_refused: bool = True) -> bool:
        """Judge the first candidate the rules accept; else (``keep_refused``) report the
        first one as illegal. Returns whether a ruling was made."""
        eng = self.ref.engine
        first = None
        for move in candidates:
            ruling = eng.observe(move)
            if ruling.verdict is not Verdict.ILLEGAL:
                break
            eng.undo()
            first = first or ruling
        else:
            if not keep_refused:
                return False
            ruling = first
            eng.observe(ruling.move)  # the table shows it; the engine keeps it refused
        text = (f"{seat_name(seat)}: {ruling.reason}" if ruling.verdict is Verdict.ILLEGAL
                else "; ".join(e.text for e in ruling.events) or str(ruling.move))
        self.d.outputs.append(RefereeOutput("ruling", text, f.frame, f.timestamp, ruling))
        self.last = {seat: (ruling.move, len(self.d.outputs) - 1)}
        return True
