"""The director of a filmed game: the table's piles, the hands that move cards between
them, and one rendered frame per step (used by :mod:`companion.synth.video`).

Two paces: ``normal`` (about a second per card) and ``brisk`` (hands travel about twice
as fast and the pauses are short, so a whole trick game makes a small film). At a brisk
pace the director also makes sure every card it lays stays clear of moving hands for
``SETTLE_FRAMES`` frames before any hand comes near it again (the tracker needs a few
still frames to settle a card): when a hand would come too soon, it waits first.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.cards import Card
from companion.layouts import Layout, load_mat
from companion.synth.camera import CameraPose
from companion.synth.effects import Lighting, Sensor
from companion.synth.scene import MAT_SIZE_MM, CardPlacement, SceneSpec, render_scene
from companion.synth.table import SKINS, SLEEVES, Hand

CARRY_MM = 100.0  # the card's centre lies this far beyond the palm, at the fingertips
PILE_SHOWN = 4  # face-down piles show their top few cards
PACES = ("normal", "brisk")
SETTLE_FRAMES = 9  # brisk: still frames a laid card gets before a hand comes near it
NEAR_MM = 80.0  # brisk: a hand (or its shadow) this close to a card's centre is "near"


class VideoError(ValueError):
    pass


@dataclass
class Placed:
    card: Card
    face_up: bool
    center_mm: tuple[float, float]
    rotation: float


def seat_angle(layout: Layout, seat: int, players: int) -> float:
    """Where seat ``seat`` sits, as an angle around the mat's centre (y down).

    Layouts with per-seat zones (the trick games) place the seat behind its zones; shared
    layouts (Kendra Kari) seat players clockwise from the bottom edge, as the ruling
    *seats-clockwise* has them."""
    cx, cy = MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2
    own = [z.center_mm for z in layout.zones if z.seat == seat]
    if own:
        x, y = np.mean(own, axis=0)
        return math.atan2(y - cy, x - cx)
    return math.radians(90.0 + 360.0 / players * seat)


class Director:
    """Keeps the table (piles per zone) and renders frames as hands move cards about."""

    def __init__(self, game: str, players: int, layout: Layout, camera: CameraPose,
                 lighting: Lighting, source: str, deck_seed: int, rng: np.random.Generator,
                 writer: Any, hard: bool, pace: str = "normal"):
        self.game, self.players, self.layout = game, players, layout
        self.camera, self.lighting, self.source, self.deck_seed = camera, lighting, source, \
            deck_seed
        self.rng, self.writer, self.hard = rng, writer, hard
        if pace not in PACES:
            raise VideoError(f"pace must be one of {', '.join(PACES)}, got {pace!r}")
        self.brisk = pace == "brisk"
        self.card_radius_mm = load_mat().card_diameter_mm / 2
        # brisk: cards just laid and how many still frames each has had since its hand left
        self.fresh: list[list[Any]] = []
        self._plan: list[tuple[list[CardPlacement], list[Hand]]] | None = None  # a dry run
        self._plan_zones: list[str] = []  # where the dry run lays cards
        self.piles: dict[str, list[Placed]] = {z.id: [] for z in layout.zones}
        self.frames: list[list[list[Any]]] = []
        self.hand_pixels: list[int] = []
        self.idle_hands: list[int] = []
        self.idle: list[Hand] = []
        cx, cy = MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2
        self.seats = []
        for s in range(players):
            a = seat_angle(layout, s, players)
            # At rest the hand is out of the camera's view, beyond the seat's table edge.
            shoulder = (cx + 800 * math.cos(a), cy + 680 * math.sin(a))
            rest = (cx + 640 * math.cos(a), cy + 540 * math.sin(a))
            hand = Hand(shoulder, rest, SKINS[s % len(SKINS)], SLEEVES[s % len(SLEEVES)],
                        float(rng.uniform(0.95, 1.1)), float(rng.uniform(0.1, 0.5)))
            self.seats.append(hand)

    # -- the table ---------------------------------------------------------------------
    def zone_xy(self, zone: str) -> tuple[float, float]:
        return self.layout.zone(zone).center_mm

    def put(self, zone: str, card: Card, face_up: bool, jitter: float = 4.0,
            offset: tuple[float, float] = (0.0, 0.0)) -> None:
        """``card`` onto ``zone``'s pile, ``offset`` mm from its centre (a hand spread)."""
        x, y = self.zone_xy(zone)
        x, y = x + offset[0], y + offset[1]
        pile = self.piles[zone]
        if not face_up:  # face-down piles are squared up, offset a little per card
            k = len(pile)
            xy = (x + 0.6 * (k % 5) - 1.2, y - 0.8 * (k % 5) + 1.6)
        else:
            d = self.rng.normal(0, jitter, 2)
            xy = (x + float(d[0]), y + float(d[1]))
        pile.append(Placed(card, face_up, xy, float(self.rng.uniform(0, 360))))

    def take(self, zone: str, card: Card | None = None) -> Placed:
        pile = self.piles[zone]
        if not pile:
            raise VideoError(f"nothing to take from {zone}")
        if card is None:
            return pile.pop()
        for i in range(len(pile) - 1, -1, -1):
            if pile[i].card == card:
                return pile.pop(i)
        raise VideoError(f"{card} is not on {zone}")

    def find(self, card: Card) -> str | None:
        for zone, pile in self.piles.items():
            if any(p.card == card for p in pile):
                return zone
        return None

    def placements(self) -> list[CardPlacement]:
        out = []
        for zone, pile in self.piles.items():
            shown = pile
            if pile and not any(p.face_up for p in pile):
                shown = pile[-PILE_SHOWN:]
            for p in shown:
                out.append(self._placement(p, zone))
        return out

    def _placement(self, p: Placed, zone: str | None) -> CardPlacement:
        return CardPlacement(p.card, p.face_up, p.center_mm, p.rotation, self.source,
                             self.deck_seed, zone)

    # -- frames ------------------------------------------------------------------------
    def frame(self, moving: list[CardPlacement] = (), hands: list[Hand] = ()) -> None:
        if self._plan is not None:  # a dry run: only where the hands and cards go
            self._plan.append((list(moving), list(hands)))
            return
        cards = tuple(self.placements()) + tuple(moving)
        spec = SceneSpec(self.camera, "wood", 4, (-480, -420, 1560, 1260), self.game,
                         cards, tuple(self.idle) + tuple(hands), self.lighting,
                         Sensor(0.0, 0.0, 0.0, 2.5 if self.hard else 0.8, (1, 1, 1), 0),
                         len(self.frames))
        scene = render_scene(spec)
        self.writer.write(scene.image)
        self.hand_pixels.append(int(np.count_nonzero(scene.labels == -2)))
        self.idle_hands.append(len(self.idle))
        self.frames.append([[t.card_id, t.zone, round(t.center_px[0], 1),
                             round(t.center_px[1], 1), round(t.radius_px, 1),
                             round(t.visible_fraction, 3), int(t.face_up)]
                            for t in scene.truth if t.visible_fraction >= 0.02])
        if self.brisk:
            self._count_still(moving, hands)

    def pause(self, n: int) -> None:
        for _ in range(n):
            self.frame()

    # -- brisk pace: laid cards get their still frames ---------------------------------
    def _pace(self, normal: int, brisk: int) -> int:
        """Frames for a hand movement: one rng draw at either pace."""
        return self._speed(brisk if self.brisk else normal)

    def _laid(self, zone: str) -> None:
        if self._plan is not None:
            self._plan_zones.append(zone)
        elif self.brisk:
            self.fresh.append([self.piles[zone][-1], 0])

    def _near(self, xy: tuple[float, float], moving, hands) -> bool:
        """Whether a moving hand or a carried card comes within NEAR_MM of ``xy``."""
        for c in moving:
            if math.dist(c.center_mm, xy) <= NEAR_MM + self.card_radius_mm:
                return True
        pt = (float(xy[0]), float(xy[1]))
        for hand in hands:
            for poly, _colour in hand.polygons_mm():
                d = cv2.pointPolygonTest(np.asarray(poly, np.float32).reshape(-1, 1, 2), pt,
                                         True)
                if d >= -NEAR_MM:
                    return True
        return False

    def _count_still(self, moving, hands) -> None:
        on_table = {id(p) for pile in self.piles.values() for p in pile}
        keep = []
        for entry in self.fresh:
            placed, still = entry
            if id(placed) not in on_table:
                continue  # picked up or swept
            if self._near(placed.center_mm, moving, hands):
                entry[1] = 0  # the run of still frames starts again when the hand goes
            else:
                entry[1] = still + 1
            if entry[1] < SETTLE_FRAMES:
                keep.append(entry)
        self.fresh = keep

    def _act(self, action, *args) -> None:
        """Runs an action (a hand out from its rest and back). Brisk: first a dry run of
        it (same rng draws, nothing rendered) to see where its hand goes; a player resting
        a hand where the card will be laid lifts it, and the action waits while a card
        laid just before would have the hand near it before its SETTLE_FRAMES still
        frames."""
        if self.brisk and (self.fresh or self.idle):
            state, piles = self.rng.bit_generator.state, {z: list(p) for z, p in
                                                           self.piles.items()}
            self._plan, self._plan_zones = [], []
            try:
                action(*args)
            finally:
                plan, self._plan = self._plan, None
                self.piles, self.rng.bit_generator.state = piles, state
            self.idle = [h for h in self.idle
                         if not any(self._near(self.zone_xy(z), (), [h])
                                    for z in self._plan_zones)]
            on_table = {id(p) for pile in self.piles.values() for p in pile}
            wait = 0
            for placed, still in self.fresh:
                if id(placed) not in on_table:
                    continue
                for k, (moving, hands) in enumerate(plan):
                    if self._near(placed.center_mm, moving, hands):
                        wait = max(wait, SETTLE_FRAMES - still - k)
                        break
            self.pause(wait)
        action(*args)

    def _hand_at(self, seat: int, palm: tuple[float, float]) -> Hand:
        return dataclasses.replace(self.seats[seat], palm_mm=palm)

    def _palm_for(self, seat: int, card_xy: tuple[float, float]) -> tuple[float, float]:
        sx, sy = self.seats[seat].shoulder_mm
        dx, dy = card_xy[0] - sx, card_xy[1] - sy
        n = math.hypot(dx, dy) or 1.0
        return card_xy[0] - CARRY_MM * dx / n, card_xy[1] - CARRY_MM * dy / n

    def _travel(self, seat: int, a: tuple[float, float], b: tuple[float, float], n: int,
                carried: list[Placed] = ()) -> None:
        """The hand's palm goes from a to b in n frames, carrying cards under its fingers."""
        for i in range(1, n + 1):
            t = 0.5 - 0.5 * math.cos(math.pi * i / n)  # ease in and out
            palm = (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t)
            hand = self._hand_at(seat, palm)
            moving = []
            for p in carried:
                u = np.subtract(palm, hand.shoulder_mm)
                u = u / (np.linalg.norm(u) or 1.0)
                xy = (palm[0] + CARRY_MM * u[0] + p.center_mm[0],
                      palm[1] + CARRY_MM * u[1] + p.center_mm[1])
                moving.append(self._placement(Placed(p.card, p.face_up, xy, p.rotation), None))
            self.frame(moving, [hand])

    def _speed(self, n: int) -> int:
        return max(2, round(n * float(self.rng.uniform(0.85, 1.25))))

    # -- actions -----------------------------------------------------------------------
    def carry(self, seat: int, card: Card, zone: str, face_up: bool = True,
              pick_from: str | None = None, offset: tuple[float, float] = (0.0, 0.0)
              ) -> None:
        """A card from the seat (or from ``pick_from`` on the table) to ``zone``, laid
        ``offset`` mm from its centre."""
        self._act(self._carry, seat, card, zone, face_up, pick_from, offset)

    def spread(self, seat: int, k: int, n: int, gap_mm: float) -> tuple[float, float]:
        """Where the ``k``-th of ``n`` cards a seat lays side by side goes, from the zone's
        centre: along the table's edge before the seat, ``gap_mm`` apart."""
        a = seat_angle(self.layout, seat, self.players)
        d = (k - (n - 1) / 2) * gap_mm
        return -math.sin(a) * d, math.cos(a) * d

    def _carry(self, seat: int, card: Card, zone: str, face_up: bool,
               pick_from: str | None, offset: tuple[float, float] = (0.0, 0.0)) -> None:
        rest = self.seats[seat].palm_mm
        if pick_from is not None:
            placed = self.take(pick_from, card)
            grab = self._palm_for(seat, placed.center_mm)
            self._travel(seat, rest, grab, self._pace(8, 4))
            start = grab
        else:
            start = rest
        x, y = self.zone_xy(zone)
        palm = self._palm_for(seat, (x + offset[0], y + offset[1]))
        held = Placed(card, face_up, (0.0, 0.0), float(self.rng.uniform(0, 360)))
        self._travel(seat, start, palm, self._pace(10, 5), [held])
        self.put(zone, card, face_up, offset=offset)
        self._laid(zone)
        self.frame([], [self._hand_at(seat, palm)])
        self._travel(seat, palm, rest, self._pace(8, 4))

    def fetch(self, seat: int, zone: str) -> None:
        """Draw: the top card of ``zone`` goes face down into the seat's hand."""
        self._act(self._fetch, seat, zone, False)

    def take_up(self, seat: int, zone: str) -> None:
        """Every card on ``zone`` goes back into the seat's hand, as it lies (a face-up
        deal's batches, picked up once everyone has seen them)."""
        self._act(self._fetch, seat, zone, True)

    def _fetch(self, seat: int, zone: str, whole: bool) -> None:
        rest = self.seats[seat].palm_mm
        top = self.piles[zone][-1] if self.piles[zone] else None
        if top is None:
            raise VideoError(f"the {zone} is empty")
        palm = self._palm_for(seat, top.center_mm)
        self._travel(seat, rest, palm, self._pace(9, 5))
        taken = [self.take(zone) for _ in range(len(self.piles[zone]) if whole else 1)]
        self._travel(seat, palm, rest, self._pace(9, 5),
                     [Placed(p.card, whole and p.face_up, (0.0, 0.0), p.rotation)
                      for p in taken])

    def sweep(self, seat: int, zones: list[str], to_zone: str) -> None:
        """Gather every card on ``zones`` onto ``to_zone``, face down."""
        self._act(self._sweep, seat, zones, to_zone)

    def _sweep(self, seat: int, zones: list[str], to_zone: str) -> None:
        cards = [p for z in zones for p in self.piles[z]]
        if not cards:
            return
        rest = self.seats[seat].palm_mm
        centre = tuple(np.mean([p.center_mm for p in cards], axis=0))
        palm = self._palm_for(seat, centre)
        self._travel(seat, rest, palm, self._pace(8, 4))
        for z in zones:
            self.piles[z] = []
        dest = self.zone_xy(to_zone)
        n = self._pace(10, 5)
        for i in range(1, n + 1):
            t = 0.5 - 0.5 * math.cos(math.pi * i / n)
            moving = [self._placement(Placed(p.card, True, (
                p.center_mm[0] + (dest[0] - p.center_mm[0]) * t,
                p.center_mm[1] + (dest[1] - p.center_mm[1]) * t), p.rotation), None)
                for p in cards]
            hp = (palm[0] + (dest[0] - centre[0]) * t, palm[1] + (dest[1] - centre[1]) * t)
            self.frame(moving, [self._hand_at(seat, hp)])
        for p in cards:
            self.put(to_zone, p.card, False)
        self._travel(seat, self._palm_for(seat, dest), rest, self._pace(8, 4))

    def maybe_idle_hand(self, rate: float) -> None:
        """Sometimes a player rests a hand on the table for a while (an occluder)."""
        self.idle = []
        if self.rng.random() < rate:
            seat = int(self.rng.integers(self.players))
            rest = self.seats[seat].palm_mm
            cx, cy = MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2
            t = float(self.rng.uniform(0.5, 0.8))
            palm = (rest[0] + (cx - rest[0]) * t + self.rng.normal(0, 30),
                    rest[1] + (cy - rest[1]) * t + self.rng.normal(0, 30))
            idle = [dataclasses.replace(self.seats[seat], palm_mm=palm,
                                        spread=float(self.rng.uniform(0, 1)))]
            if self.brisk:  # the hand comes to rest only where no card is settling
                on_table = {id(p) for pile in self.piles.values() for p in pile}
                self.pause(max([SETTLE_FRAMES - still for placed, still in self.fresh
                                if id(placed) in on_table and
                                self._near(placed.center_mm, (), idle)], default=0))
            self.idle = idle
