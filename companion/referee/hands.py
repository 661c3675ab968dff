"""Whose hand is where: the seat of each arm reaching over the mat, from the motion map.

An arm enters the mat across the edge in front of its seat; its deepest point is the hand.
A hand that comes in to a zone and leaves again laid a card there (or took one); a hand
that turns back at the stock drew a card.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from companion.vision.motion import MotionMap

# A reach seen once, then not for more frames than this, was a resting hand's flicker
FLICKER_GAP = 2
# A short reach (less than ``retreat_mm`` in) draws over the stock for at least two frames
# of these around its deepest point there: one seen over it once as it went had laid a card
# (``ArmWatcher._turned``)
DWELL_FRAMES = 8
# A seat's draws seen this close are one: its next comes a round of turns later (a brisk
# three-player round took 33 frames)
ONE_DRAW = 15
# A hand seen twice in a row this close has stopped there (``ArmWatcher.dwelt_at_stock``;
# the films' hands stopped at the stock moved 11-20 mm a frame, the test's passing ones 36)
STILL_MM = 25.0
# Another hand within this much as near a card as the nearest (``rival``)
RIVAL_MM = 20.0
# A blob new to its seat this near another seat's hand of a moment ago is that hand
# (``ArmWatcher._still_reaching``)
KEEPS_ARM_MM = 30.0
# Each frame between a hand's sighting and a card's first sighting counts as this much
# farther from the card (see ArmWatcher.who_reached)
FRAME_MM = 1.0
# Each frame past the first since a hand was last seen counts as this much farther from a
# blob that may be it (``ArmWatcher._nearest_reach``)
STALE_MM = 10.0


@dataclass
class Reach:
    """One visit of a seat's hand over the mat: where its fingertips went, frame by frame."""

    seat: int
    tips: list[tuple[int, float, float, float]]  # (frame, timestamp, x_mm, y_mm)
    last_frame: int
    deepest: tuple[float, int, float, float, float] = (-1.0, 0, 0.0, 0.0, 0.0)
    retreating: bool = False  # turned back: heading out of the mat
    depths: list[float] = field(default_factory=list)  # per tip: how far in the hand was
    # how plainly its arm crossed the mat's edge in front of its seat: the most degrees
    # nearer its seat than the next seat (``ArmWatcher._seat_at``)
    plain: float = 0.0


class ArmWatcher:
    """Which seat's hand is where, from the motion map: an arm enters the mat across the
    edge in front of its seat, and its deepest point is the hand.

    Seats sit around the mat at ``seat_angles_deg`` (image angles from the mat's centre,
    0 = right, 90 = bottom edge; by default Player 1 at the bottom and the others
    clockwise, ruling *seats-clockwise*)."""

    def __init__(self, size_mm: tuple[float, float], seat_angles_deg: tuple[float, ...],
                 stock_mm: tuple[float, float] | None, reach_mm: float = 80.0,
                 stock_mm_radius: float = 55.0, gap_frames: int = 4,
                 retreat_mm: float = 80.0, edge_mm: float = 12.0, came_in_mm: float = 40.0):
        self.size_mm, self.angles = size_mm, seat_angles_deg
        self.came_in_mm = came_in_mm
        self.edge_mm = edge_mm
        self.stock = stock_mm
        self.reach_mm, self.stock_radius = reach_mm, stock_mm_radius
        self.gap, self.retreat_mm = gap_frames, retreat_mm
        self.active: dict[int, Reach] = {}
        self.done: list[Reach] = []
        self._drew: dict[int, int] = {}  # seat -> the frame of its last draw seen
        self._kernel = None
        self._edge: np.ndarray | None = None  # the border band, made once per view size

    def _turned(self, r: Reach) -> list[tuple[int, int, float]]:
        """A hand that came in and turned back at the stock drew a card; one that only
        passed over it on the way to the ring turned back somewhere deeper.

        A hand resting beside the stock, its outline flickering in the motion map for a
        frame, came in by nothing: on a filmed game in dim light with idle hands, 6 such
        flickers of Player 2's resting hand passed for draws (each 0 mm in, one sighting),
        while the 118 hands seen drawing on four filmed Kendra Kari games came in 70 mm or
        more."""
        depth, f, t, x, y = r.deepest
        if depth < 0 or r.retreating or self.stock is None or not self._over_stock(x, y):
            return []
        came_in = depth - min(r.depths)
        if came_in < self.came_in_mm and not self._dwelt(r, 3, self.stock_radius / 2):
            return []  # (first seen there: drew only if it stayed on it, not a flicker)
        # (a short reach draws only over the stock for a moment: ``_turn_mm``)
        return [(r.seat, f, t)] if came_in >= self.retreat_mm or self._dwelt(r) else []

    def _dwelt(self, r: Reach, times: int = 2, within: float | None = None) -> bool:
        """Whether the hand was seen over the stock (``within`` mm of its centre, by default
        its radius) ``times`` around its deepest point."""
        f, seen = r.deepest[1], 0
        for tf, _, x, y in reversed(r.tips):  # (in frame order: only the last few count)
            if tf < f - DWELL_FRAMES:
                break
            seen += tf <= f + DWELL_FRAMES and self._over_stock(x, y, within)
        return seen >= times

    def _turn_mm(self, r: Reach) -> float:
        """How far back out a hand goes from its deepest point to have turned back: over the
        stock, seen there twice, as far as a hand comes in to it (``came_in_mm``), elsewhere
        ``retreat_mm`` (a hand's tip can jump as far to another point of the arm).

        Ruling *a-short-reach-to-the-stock*: the seat beside the stock reaches 100 mm in to
        draw and as little back, then on to the ring to lay the card drawn. On two brisk,
        hard films Player 2's hand came 74 mm in to the stock and went 72 mm back, never
        the 80 mm of a turn, so the reach went on to the ring and the draw was missed;
        the count of Player 2's hand ran a card short, and Player 2 was declared the winner
        with a card in hand. Coming in again to the stock after a turn back is as short
        (``_in_again_mm``)."""
        _, _, _, x, y = r.deepest
        return self.came_in_mm if self._over_stock(x, y) and self._dwelt(r) else self.retreat_mm

    def _in_again_mm(self, r: Reach) -> float:
        """How far in again a hand turned back comes to reach in anew: to the stock, seen
        over it in this frame and the last, as far as a hand comes in to it; elsewhere
        ``retreat_mm`` (see ``_turn_mm``)."""
        over = [self._over_stock(x, y) for _, _, x, y in r.tips[-2:]]
        return self.came_in_mm if len(over) == 2 and all(over) else self.retreat_mm

    def _over_stock(self, x: float, y: float, within: float | None = None) -> bool:
        """Whether a hand at (x, y) mm is over the stock (within ``within`` mm of its centre,
        by default ``stock_mm_radius``).

        Such a hand is drawing: it lays no card on the ring, though Positions 5 and 6 lie
        115 mm from the stock, within a hand's reach of it (``reach_mm``). On a brisk, hard
        film with the Mughal deck, Player 3's hand, turning at the stock to draw, 73 mm
        from Position 5, was the only hand seen near it before Player 4's card was seen
        there 12 frames later (Player 4's hand was never seen), and the card was taken for
        Player 3's drawn card."""
        return self.stock is not None and float(np.hypot(
            x - self.stock[0], y - self.stock[1])) <= (within or self.stock_radius)

    def _home(self, seat: int) -> tuple[float, float]:
        """A point far out in front of the seat, so that 'deepest' means 'reached in most'."""
        a = np.radians(self.angles[seat])
        cx, cy = self.size_mm[0] / 2, self.size_mm[1] / 2
        return cx + 2000 * float(np.cos(a)), cy + 2000 * float(np.sin(a))

    def _nearest_reach(self, xs: np.ndarray, ys: np.ndarray, frame: int,
                       within_mm: float = 150.0) -> int | None:
        """Of the seats whose hand was last seen within ``within_mm`` of the middle of the
        blob at (``xs``, ``ys``) mm, the one seen nearest any of its points, each frame
        past the first since it was seen counting ``STALE_MM`` farther; of two as near,
        the one nearer its middle.

        Ruling *a-hand-moves-on-from-its-last-place*: a moving hand's blob runs from where
        the hand was to where it is, so its last place lies on the blob, however long; the
        blob's middle tells only which hands are near enough to be it. On a hard six-player
        film Player 1's hand crossed the mat to Position 1, its sleeve unseen; the blob's
        middle was 89 mm from Player 2's resting hand and 99 mm from Player 1's of a frame
        before, which lay 16 mm from the blob, and Player 1's card was taken for Player 2's.
        (A hand 114 mm from a blob whose middle was 164 mm from it is not near enough: taken
        for it, Player 2's hand took over Player 1's next blob at the stock, and Player 1's
        draw on another six-player film was lost.) A hand seen a moment ago is likelier
        the one moving than a hand that rested on the spot since: on a brisk, hard
        three-player film a blob at Position 5 held Player 2's last place of four frames
        before exactly and Player 3's of a frame before a few millimetres off, and Player
        3's card was taken for Player 2's, with a draw nobody made."""
        best, best_d = None, (float("inf"), float("inf"))
        mx, my = float(xs.mean()), float(ys.mean())
        for seat, r in self.active.items():
            tf, _, tx, ty = r.tips[-1]
            stale = STALE_MM * max(0, frame - tf - 1)
            d = (float(np.min(np.hypot(xs - tx, ys - ty))) + stale,
                 float(np.hypot(tx - mx, ty - my)))
            if d[1] <= within_mm and d < best_d:
                best, best_d = seat, d
        return best

    def _still_reaching(self, xs: np.ndarray, ys: np.ndarray, frame: int, seat: int,
                        margin: float) -> int:
        """The seat of another seat's reach whose hand was seen a moment ago where this
        blob, crossing the mat's edge ``margin`` degrees nearer ``seat`` than the next
        seat, now lies, when that reach crossed the edge more plainly; else ``seat``.

        Ruling *a-hand-keeps-its-arm*: a seat's arm comes in across the edge before its
        hand is deep in the mat. On a brisk, hard five-player film Player 4 (upper right,
        the arm plainly in front of their seat) reached to Position 6 (upper left); then
        the grey sleeve did not show, and the hand with its card, moving, touched the top
        edge left of its middle, 18 degrees nearer Player 3's seat. The card was taken for
        Player 3's, who had just drawn: Player 4's bridge was judged as a play and a
        bridge. The plainer crossing decides: on a hard six-player film Player 1's arm
        came in between two seats (2 degrees nearer Player 2's), then plainly in front of
        Player 1 (14 degrees), and drew. And the hand was seen deep in the mat: on a brisk,
        hard four-player film Player 2's reach to the stock merged for a frame with the
        motion beyond it, its farthest point on the top edge where Player 3's arm then
        came in, and Player 3's card was taken for Player 2's."""
        if seat in self.active:
            return seat
        w, h = self.size_mm
        for other, r in self.active.items():
            f, _, tx, ty = r.tips[-1]
            deep = min(tx, ty, w - tx, h - ty) >= self.came_in_mm  # (not where an arm enters)
            if frame - f <= FLICKER_GAP and r.plain > margin and deep and float(
                    np.min(np.hypot(xs - tx, ys - ty))) <= KEEPS_ARM_MM:
                return other
        return seat

    def _seat_at(self, angle: float) -> tuple[int, float]:
        """The seat nearest the image ``angle`` and how many degrees nearer it is than the
        next nearest seat."""
        diffs = sorted((abs((angle - a + 180) % 360 - 180), k) for k, a in enumerate(self.angles))
        return diffs[0][1], diffs[1][0] - diffs[0][0]

    def update(self, motion: MotionMap, frame: int, ts: float) -> list[tuple[int, int, float]]:
        """Feed one frame; returns draws seen: (seat, frame, timestamp)."""
        import cv2
        m = (motion.moving or motion).mask.astype(np.uint8)
        if self._kernel is None:
            k = max(3, int(20 * motion.px_per_mm) | 1)
            self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        h, w = m.shape
        draws = []
        seen: dict[int, tuple[float, float, float]] = {}  # seat -> (depth, x_mm, y_mm)
        plain: dict[int, float] = {}  # seat -> how plainly a blob crossed its edge
        if m.any():
            n, labels = cv2.connectedComponents(cv2.dilate(m, self._kernel))
            ppm = motion.px_per_mm
            # The mat's border band, not only its outermost pixels: the motion mask's
            # blur and opening leave a few pixels bare at the edge, and a dim sleeve over
            # the table can end a little inside the mat.
            if self._edge is None or self._edge.shape != (h, w):
                band = max(1, round(self.edge_mm * ppm))
                self._edge = np.ones((h, w), bool)
                self._edge[band:h - band, band:w - band] = False
            edge = self._edge
            for k in range(1, n):
                blob = (labels == k) & (m > 0)
                ys, xs = np.nonzero(blob)
                if len(xs) < 20:
                    continue
                contact = blob & edge
                if contact.any():
                    cy, cx = (v.mean() for v in np.nonzero(contact))
                    seat, margin = self._seat_at(
                        float(np.degrees(np.arctan2(cy - h / 2, cx - w / 2)) % 360))
                    kept = self._still_reaching(xs / ppm, ys / ppm, frame, seat, margin)
                    if kept == seat:
                        plain[seat] = max(plain.get(seat, 0.0), margin)
                    seat = kept
                else:
                    # A hand whose sleeve the camera cannot tell from the mat: it belongs to
                    # the hand last seen on it a moment ago.
                    seat = self._nearest_reach(xs / ppm, ys / ppm, frame)
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
            if r is not None and len(r.tips) == 1 and frame - r.last_frame > FLICKER_GAP:
                # Its one sighting, then none for a while, was a resting hand's flicker, not
                # where the hand moving now came in. Taken as its deepest point, a draw
                # that followed looked like the hand turning back: on a hard filmed game
                # Player 2's draw went unseen, and their hand count was a card short.
                r = None
            if r is None:
                r = self.active[seat] = Reach(seat, [], frame)
            r.tips.append((frame, ts, x, y))
            r.depths.append(depth)
            r.last_frame = frame
            r.plain = max(r.plain, plain.get(seat, 0.0))
            if r.retreating:  # on the way out; reaching in again starts a new reach
                if depth < r.deepest[0]:
                    r.deepest = (depth, frame, ts, x, y)
                elif depth > r.deepest[0] + self._in_again_mm(r):
                    r.retreating = False
                    r.deepest = (depth, frame, ts, x, y)
            elif depth > r.deepest[0]:
                r.deepest = (depth, frame, ts, x, y)
            elif depth < r.deepest[0] - self._turn_mm(r):  # the hand turned back
                draws += self._turned(r)
                r.retreating = True
                r.deepest = (depth, frame, ts, x, y)
        for seat in list(self.active):
            r = self.active[seat]
            if frame - r.last_frame > self.gap:
                self.done.append(self.active.pop(seat))
                draws += self._turned(r)
        self.done = [r for r in self.done if frame - r.last_frame < 150]
        return self._once_a_visit(draws)

    def _once_a_visit(self, draws: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
        """Drop a seat's draw seen within ``ONE_DRAW`` frames of its last: the hand's tip
        jumping to another point of the arm for a frame at the stock looked like two turns
        (a film's Player 1 "drew" twice, 3 frames apart)."""
        kept = []
        for seat, f, t in draws:
            if f - self._drew.get(seat, -ONE_DRAW - 1) > ONE_DRAW:
                kept.append((seat, f, t))
                self._drew[seat] = f
        return kept

    def dwelt_at_stock(self, seat: int, frame: int, window: int = 45) -> bool:
        """Whether ``seat``'s hand stopped over the stock in the ``window`` frames up to
        ``frame`` (two sightings in a row there, ``STILL_MM`` apart at most; a hand on
        its way past moves farther a frame): a hand that then laid a card may have drawn
        it."""
        for r in [*self.active.values(), *self.done]:
            if r.seat != seat:
                continue
            for (f0, _, x0, y0), (f1, _, x1, y1) in zip(r.tips, r.tips[1:]):
                if frame - window <= f0 and f1 <= frame and f1 - f0 <= FLICKER_GAP + 1 \
                        and self._over_stock(x0, y0) and self._over_stock(x1, y1) \
                        and float(np.hypot(x1 - x0, y1 - y0)) <= STILL_MM:
                    return True
        return False

    def who_reached(self, zone_mm: tuple[float, float], frame: int, window: int = 90,
                    seen_at: int | None = None, over_mm: float | None = None) -> int | None:
        """The seat first in :meth:`reached`, or None."""
        near = self.reached(zone_mm, frame, window, seen_at, over_mm)
        return near[0][1] if near else None

    def reached(self, zone_mm: tuple[float, float], frame: int, window: int = 90,
                seen_at: int | None = None, over_mm: float | None = None
                ) -> list[tuple[float, int]]:
        """(score, seat) of each seat whose hand came to ``zone_mm`` in the ``window``
        frames up to ``frame``, best first: the most recent (score 0). ``seen_at``: the
        frame a card was first seen there; the hands that came nearest it then and there
        come first instead (score: mm, each frame before or after ``seen_at`` counting as
        ``FRAME_MM`` farther; of two as near, the later).
        ``over_mm``: also any hand seen within that distance of it, whether or not it was
        seen coming in (a quick hand may be first seen where it lays the card).

        Ruling *nearest-then-and-there*: at a brisk pace a hand passes 12-13 mm from a
        ring position on its way to or from another place, and the hand that lays a card
        there comes no nearer (it pauses over the place, unseen as it does not move).
        Player 4's hand passed over Position 6 back from the stock 20 frames before the
        card Player 1 laid there was seen (Player 1's hand 13 mm from it, 1-4 frames
        before), and a round of draws was inferred that nobody made."""
        best: dict[int, tuple[float, float]] = {}  # seat -> (mm, -frame), the least
        for r in list(self.active.values()) + self.done:
            shallowest = float("inf")
            for (f, _, x, y), depth in zip(r.tips, r.depths):
                shallowest = min(shallowest, depth)
                if self._over_stock(x, y):
                    continue  # drawing, not laying: ruling *a-hand-at-the-stock-lays-nothing*
                d = float(np.hypot(x - zone_mm[0], y - zone_mm[1]))
                at = (0.0 if seen_at is None else d + FRAME_MM * abs(f - seen_at), -f)
                # Only a hand that came in to the zone counts, not one resting near it.
                came = depth - shallowest >= self.came_in_mm and d <= self.reach_mm
                if frame - window <= f <= frame and at < best.get(r.seat, (float("inf"), 0.0)) \
                        and (came or (over_mm is not None and d <= over_mm)):
                    best[r.seat] = at
        return [(at[0], seat) for at, seat in sorted((at, seat) for seat, at in best.items())]


def rival(near: list[tuple[float, int]], seat: int | None) -> int | None:
    """Another seat whose hand came within ``RIVAL_MM`` as near the card as ``seat``'s, the
    nearest, when it was laid (``near``: ``Referee._laying_hands``), or None.

    Ruling *a-close-hand-is-asked*: the hand is then no sure sign of who laid it. On a brisk,
    hard five-player film with the Mughal deck, Player 4's hand, back from the stock, passed
    11 mm from Position 6 nine frames before Player 5's card was seen there; Player 5's hand
    was 26 mm from it two frames before (scores 20 and 28), and the card was taken for
    Player 4's drawn card. With another such card, 2 of the film's 61 moves were lost; the
    players, asked, put both right."""
    if seat is None or len(near) < 2 or near[0][1] != seat or near[1][0] - near[0][0] > RIVAL_MM:
        return None
    return near[1][1]
