"""Showing games to the table referee as a camera would: tracker events on the zones,
draws told or seen as a hand at the stock. Shared by the referee tests."""

from __future__ import annotations

import itertools

import cv2
import numpy as np

from companion.cards import Card
from companion.games.base import Move
from companion.layouts import load_layout
from companion.record import simulate, table_view
from companion.referee import Referee
from companion.vision.motion import MotionMap
from companion.vision.track import TrackEvent

KK = load_layout("kendra-kari")
GJ = load_layout("ganjifa")


def _ev(kind: str, card: Card | None, zone: str, frame: int, t: float,
        layout=KK) -> TrackEvent:
    return TrackEvent(kind, card.id if card else None, layout.zone(zone).center_mm, zone,
                      0.99, frame - 5, frame, t)


class TableShow:
    """Plays a record's moves to a referee as sightings: cards land on zones, draws are
    told (or seen as a hand at the stock), bridges are gathered off the ring."""

    def __init__(self, referee: Referee, same_player_s: float = 1.0, next_player_s: float = 6.0):
        self.ref = referee
        self.t, self.frame = 0.0, 0
        self.same, self.next = same_player_s, next_player_s
        self.table: dict[str, list[Card]] = {}
        self.outputs: list = []
        self.last_player: int | None = None

    def _tick(self, player: int) -> None:
        self.t += self.same if player == self.last_player else self.next
        # (a reach counts 20 frames a second: the frames must not run back, or a draw seen
        # would carry an earlier frame than the card laid before it)
        self.frame = max(self.frame + 1, int(self.t * 10))
        self.last_player = player

    def lay(self, card: Card, zone: str) -> None:
        self.frame += 1
        self.t += 0.1
        self.table.setdefault(zone, []).append(card)
        self.outputs += self.ref.observe([_ev("appeared", card, zone, self.frame, self.t,
                                              self.ref.layout)], self.frame, self.t)

    def remove(self, card: Card, zone: str) -> None:
        self.frame += 1
        self.t += 0.1
        self.table[zone].remove(card)
        self.outputs += self.ref.observe([_ev("removed", card, zone, self.frame, self.t,
                                              self.ref.layout)], self.frame, self.t)

    def ganjifa(self, move: Move, deni_high_first: bool = False) -> None:
        """A Ganjifa move's cards on the seat's spots (a Deni's high card on its Deni spot)."""
        self._tick(move.player)
        if move.action == "deni":
            low, high = move.cards
            laid = [(high, "deni"), (low, "play")] if deni_high_first else \
                [(low, "play"), (high, "deni")]
        else:
            laid = [(card, "play") for card in move.cards]
        for card, spot in laid:
            self.lay(card, f"{spot}{move.player}")

    def handful(self, move: Move, zone: str = "", reverse: bool = False) -> None:
        """A move's cards on ``zone`` (by default the seat's play spot: Hamrang, Ekrang),
        ``reverse``: the last card first; a move that shows no card (Hamrang's ``out``)
        shows nothing."""
        if not move.cards:
            return
        self._tick(move.player)
        for card in reversed(move.cards) if reverse else move.cards:
            self.lay(card, zone or f"play{move.player}")

    def sama(self, move: Move) -> None:
        """A Sama move as the camera sees it on the hand zones: the face-up cards dealt
        (after the last round's cards are swept), a face-up card exchanged, the two
        face-down cards turned up; a stand or a face-down exchange shows nothing."""
        n = self.ref.players
        self._tick(move.player)
        if move.action == "deal":
            self.sweep("hand")
            for k, card in enumerate(move.cards):
                self.lay(card, f"hand{(move.player + 1 + k) % n}")
        elif move.action == "exchange" and move.target == "up":
            self.remove(move.cards[0], f"hand{move.player}")
            self.lay(move.cards[1], f"hand{move.player}")
        elif move.action == "reveal":
            for card in move.cards[:2]:
                self.lay(card, f"hand{move.player}")

    def kendra_kari(self, move: Move, hands: bool = False, after: Move | None = None) -> None:
        """``after``: the next move (a card turned up and played next was suitable)."""
        self._tick(move.player)
        if move.action == "turnup":
            self.turn_up(move, aside=after is None or after.cards[:1] != move.cards)
            return
        if move.action == "draw":
            if hands:
                self.reach(move.player, KK.zone("stock").center_mm)
            else:
                self.outputs += self.ref.tell_draw(None, self.frame, self.t)
            return
        for card, pos in zip(move.cards, move.target.split(",")):
            if hands:
                self.reach(move.player, KK.zone(f"pos{pos}").center_mm, lay=card)
            else:
                self.lay(card, f"pos{pos}")
        if move.action == "bridge":
            self.t += 2.0
            for zone in [f"pos{k}" for k in range(1, 8)]:
                for card in list(self.table.get(zone, [])):
                    self.remove(card, zone)

    def reach(self, seat: int, target_mm, lay: Card | None = None, inset_mm: float = -20.0,
              first_seen: float = 0.2) -> None:
        """An arm from the seat's edge of the mat (Player 1 at the bottom, then clockwise)
        to ``target_mm`` and back, as motion maps; lays ``lay`` there at the turn. The arm
        is seen from ``inset_mm`` inside the mat's edge (negative: from beyond it), its hand
        first seen ``first_seen`` of the way in (a quick hand: most of it)."""
        edge = self.edge(seat, inset_mm)
        path = [edge + (np.array(target_mm) - edge) * f for f in np.linspace(first_seen, 1, 6)]
        self.arm(seat, path + path[::-1][1:], inset_mm)
        if lay is not None:  # the tracker confirms the card once the hand has gone
            zone = next(z.id for z in KK.zones if z.center_mm == tuple(target_mm))
            self.lay(lay, zone)

    def turn_up(self, move: Move, aside: bool) -> None:
        """A 2011 turn-up (ruling *turned-up-onto-the-gathered-pile*): the turner's hand
        stops at the stock and takes its top card; an unsuitable one (``aside``) is laid
        face up on the Gathered pile, a suitable one is laid by the next move."""
        self.stop_at_stock(move.player)
        if aside:
            self.reach(move.player, KK.zone("gathered").center_mm, lay=move.cards[0])

    def stop_at_stock(self, seat: int) -> None:
        """The seat's hand goes to the stock, stops there (seen twice over it), and back."""
        stock = np.array(KK.zone("stock").center_mm)
        edge = self.edge(seat)
        path = [edge + (stock - edge) * f for f in np.linspace(0.2, 1, 6)]
        self.arm(seat, path + path[::-1])

    def over_the_stock_to(self, card: Card, zone: str) -> None:
        """Player 2 (beside the stock) reaches 70 mm in over the stock, goes 65 mm back,
        then on to ``zone`` to lay ``card``, and back: a short reach to the stock on the way."""
        ring, back = np.array(KK.zone(zone).center_mm), np.array([35.0, 210.0])
        self._tick(1)
        self.arm(1, [(30.0, 210.0), (60.0, 210.0), (85.0, 210.0), (100.0, 210.0),
                     (100.0, 212.0), (70.0, 210.0), tuple(back)]
                 + [tuple(back + (ring - back) * f) for f in np.linspace(0.2, 1, 5)]
                 + [tuple(back + (ring - back) * f) for f in np.linspace(0.8, 0, 5)])
        self.lay(card, zone)

    def edge(self, seat: int, inset_mm: float = -20.0) -> np.ndarray:
        """Where the seat's arm crosses the mat's edge (mm; Player 1 at the bottom, then
        clockwise, the seats evenly round), ``inset_mm`` inside it."""
        angle = np.radians(90 + 360 / self.ref.players * seat)
        centre = np.array([297.0, 210.0])
        return centre + np.array([np.cos(angle) * (297 - inset_mm),
                                  np.sin(angle) * (210 - inset_mm)])

    @staticmethod
    def edge_at(angle_deg: float) -> np.ndarray:
        """The point of the mat's edge (mm) at ``angle_deg`` from its centre (image angles:
        0 = right, 90 = the bottom edge)."""
        u = np.array([np.cos(np.radians(angle_deg)), np.sin(np.radians(angle_deg))])
        return np.array([297.0, 210.0]) + u * min(297 / max(abs(u[0]), 1e-9),
                                                   210 / max(abs(u[1]), 1e-9))

    def arm(self, seat: int, tips_mm, inset_mm: float = -20.0) -> None:
        """The seat's arm over the mat, its hand at each of ``tips_mm`` in turn, a frame
        each (motion maps), then still frames as it has gone."""
        for tip in tips_mm:
            self.moving(self.edge(seat, inset_mm), tip)
        self.still()

    def moving(self, *points_mm, width_px: int = 14) -> None:
        """A frame whose motion map shows an arm through ``points_mm``, its hand at the last."""
        mask = np.zeros((252, 356), np.uint8)
        px = [(np.asarray(p) * 0.6).astype(int) for p in points_mm]
        for a, b in itertools.pairwise(px):
            cv2.line(mask, (int(a[0]), int(a[1])), (int(b[0]), int(b[1])), 1, width_px)
        cv2.circle(mask, (int(px[-1][0]), int(px[-1][1])), 11, 1, -1)
        self.frame += 1
        self.t += 0.05
        self.outputs += self.ref.observe([], self.frame, self.t,
                                         MotionMap.of(mask.astype(bool), 0.6))

    def still(self, frames: int = 6) -> None:
        """Frames with nothing moving."""
        for _ in range(frames):
            self.frame += 1
            self.t += 0.05
            self.outputs += self.ref.observe([], self.frame, self.t,
                                             MotionMap.still((252, 356), 0.6))

    def sweep(self, prefix: str) -> None:
        """Every card taken off the zones named ``prefix``..., each zone then seen empty
        (the tracker's ``cleared``)."""
        for zone in [z for z in self.table if z.startswith(prefix)]:
            for card in list(self.table[zone]):
                self.remove(card, zone)
            self.frame += 1
            centre = self.ref.layout.zone(zone).center_mm
            self.outputs += self.ref.observe([TrackEvent("cleared", None, centre, zone, 1.0,
                                                         self.frame, self.frame, self.t)],
                                             self.frame, self.t)
            del self.table[zone]

    def rulings(self) -> list:
        """The rulings as the story now stands (a two-card turn replaces its first card)."""
        return [o for o in self.ref.outputs if o.kind == "ruling"]

    def seen_laid(self, card: Card, zone: str, since: int) -> list:
        """The tracker's word that ``card`` lies on ``zone``, first seen at frame ``since``:
        the referee's outputs."""
        centre = self.ref.layout.zone(zone).center_mm
        return self.ref.observe([TrackEvent("appeared", card.id, centre, zone, 0.99, since,
                                            self.frame, self.t, 78, since=since)],
                                self.frame, self.t)


def before_a_play(seed: int) -> tuple[TableShow, Move]:
    """A four-player Kendra Kari game shown with its hands up to a play to a ring position
    that follows no draw: the show and that move."""
    moves = list(table_view(simulate("kendra-kari", 4, {}, seed)).moves)
    k = next(i for i in range(2, len(moves))
             if moves[i].action == "play" and moves[i - 1].action != "draw"
             and moves[i].target != "7")
    show = TableShow(Referee("kendra-kari", 4), same_player_s=0.5, next_player_s=0.8)
    for move in moves[:k]:
        show.kendra_kari(move, hands=True)
    return show, moves[k]


def double_by_the_last_follower(seed: int) -> tuple[list[Move], int]:
    """A four-player Ganjifa game's moves and the index of its first double made by the
    last of the trick's followers."""
    from companion.games.ganjifa_referee import TableReferee
    rec = table_view(simulate("ganjifa", 4, {}, seed))
    eng = TableReferee(4)
    for i, move in enumerate(rec.moves):
        if move.action == "double" and eng.picture.table.queue == (move.player,):
            return list(rec.moves), i
        eng.observe(move)
    raise AssertionError("no such double in this game")
