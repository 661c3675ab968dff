"""Feeds for the capture thread: the vision pipeline on a camera or a video, and the demo.

``open_feed(spec)`` picks one: ``"0"`` (a webcam index) or a video path run through the
real vision pipeline (:mod:`companion.vision.pipeline`) when it is installed. The demo
without the pipeline, :class:`RecordFeed`, replays game records (the fixture's ground
truth, or simulated games) and draws the table itself; it is labelled on the dashboard
as "demo: replaying a recorded game" so nobody mistakes it for the camera.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.cards import Card
from companion.games import get_game
from companion.games.base import Move, options_from_json
from companion.layouts import Layout, LayoutError, load_layout, load_mat
from companion.web.capture import CardOverlay, FeedItem, Observation
from companion.web.cardinfo import zone_cards

REPO = Path(__file__).resolve().parent.parent.parent
FIXTURES = REPO / "fixtures"
DEMO_LABEL = "demo: replaying a recorded game"


def has_pipeline() -> bool:
    try:
        return importlib.util.find_spec("companion.vision.pipeline") is not None
    except ModuleNotFoundError:
        return False


@dataclass(frozen=True)
class DemoGame:
    """One game of the demo playlist: who plays what, and the moves in order."""

    game: str
    players: int
    seats: tuple[str, ...]
    options: dict[str, Any]
    moves: tuple[Move, ...]
    move_frames: tuple[int, ...] = ()  # frame of each move in the fixture video, if known
    result: dict[str, Any] | None = None


def demo_playlist(seed: int = 7) -> list[DemoGame]:
    """Kendra Kari then Ganjifa: the games filmed in fixtures/ when present, else simulated."""
    from companion.web.vision_feed import VIDEO_FORMAT
    out = []
    for path in sorted(FIXTURES.rglob("*.json")):
        try:
            if VIDEO_FORMAT not in path.open().read(200):
                continue
            d = json.loads(path.read_text())
            if d.get("hard"):
                continue
            rec = d["record"]
            n = int(d.get("filmed_moves", len(rec["moves"])))
            moves = tuple(Move.from_json(m) for m in rec["moves"][:n])
            frames = tuple(int(m["frame"]) for m in d.get("moves", ()))
            out.append(DemoGame(rec["game"], int(rec["players"]),
                                tuple(rec.get("seats") or ()), dict(rec.get("options") or {}),
                                moves, frames, rec.get("result") if d.get("complete") else None))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    order = {"kendra-kari": 0, "ganjifa": 1}
    out.sort(key=lambda g: order.get(g.game, 9))
    if out:
        return out
    from companion.games import game_names
    from companion.record import simulate
    for name, players in (("kendra-kari", 4), ("ganjifa", 4)):
        if name in game_names():
            rec = simulate(name, players, {}, seed)
            out.append(DemoGame(name, players, ("Asha", "Ben", "Chitra", "Dev"), {},
                                rec.moves, (), rec.result))
    return out


class TableDrawing:
    """Draws a game's zones and the cards lying on them, as a camera would see the mat."""

    def __init__(self, layout: Layout | None, width: int = 960):
        mat = load_mat()
        self.layout = layout
        self.scale = width / mat.size_mm[0]
        self.size = (width, int(mat.size_mm[1] * self.scale))
        self.card_r = mat.card_diameter_mm / 2 * self.scale

    def px(self, mm: tuple[float, float]) -> tuple[float, float]:
        return (mm[0] * self.scale, mm[1] * self.scale)

    def zone_polygons(self) -> tuple[tuple[str, np.ndarray], ...]:
        if self.layout is None:
            return ()
        out = []
        for z in self.layout.zones:
            cx, cy = self.px(z.center_mm)
            r = self.card_r * 1.15
            out.append((z.label, np.array([[cx - r, cy - r], [cx + r, cy - r], [cx + r, cy + r],
                                           [cx - r, cy + r]], dtype=np.float32)))
        return tuple(out)

    def render(self, placed: dict[str, Card]) -> tuple[np.ndarray, tuple[CardOverlay, ...]]:
        w, h = self.size
        img = np.full((h, w, 3), (48, 92, 40), np.uint8)  # green baize
        noise = np.random.default_rng(0).integers(0, 12, (h, w, 1), dtype=np.uint8)
        img = cv2.add(img, np.repeat(noise, 3, axis=2))
        overlays = []
        if self.layout is None:
            return img, ()
        for z in self.layout.zones:
            card = placed.get(z.id)
            if card is None:
                continue
            cx, cy = (int(v) for v in self.px(z.center_mm))
            r = int(self.card_r)
            rgb = card.suit.info.rgb
            cv2.circle(img, (cx, cy), r, (235, 240, 245), -1, cv2.LINE_AA)
            cv2.circle(img, (cx, cy), r - 4, rgb[::-1], 3, cv2.LINE_AA)
            text = card.rank.english if card.rank.is_face else str(int(card.rank))
            cv2.putText(img, text, (cx - 9 * len(text), cy + 10), cv2.FONT_HERSHEY_SIMPLEX, 0.9,
                        rgb[::-1], 2, cv2.LINE_AA)
            overlays.append(CardOverlay((cx, cy), r, card.name, 1.0))
        return img, tuple(overlays)


def _layout_zone(layout: Layout | None, key: str) -> str | None:
    if layout is None:
        return None
    ids = {z.id for z in layout.zones}
    return next((k for k in (key, f"pos{key}") if k in ids), None)


class RecordFeed:
    """Replays demo games move by move, drawing the table: the demo without the pipeline."""

    label = DEMO_LABEL
    realtime = False

    def __init__(self, playlist: list[DemoGame], fps: float = 10.0, seconds_per_move=1.2,
                 pause_s: float = 4.0, speed: float = 1.0):
        if not playlist:
            raise ValueError("the demo has no games to replay")
        if speed <= 0:
            raise ValueError(f"demo speed must be positive, got {speed}")
        self.playlist, self.rate, self.speed = playlist, fps, speed
        self.frames_per_move = max(1, int(seconds_per_move * fps))
        self.fps = fps * speed  # nominal frames per wall-clock second
        self.pause_frames = int(pause_s * fps)

    def items(self) -> Iterator[FeedItem]:
        index = 0
        for demo in self.playlist:
            try:
                layout = load_layout(demo.game)
            except LayoutError:
                layout = None
            drawing = TableDrawing(layout)
            zones = drawing.zone_polygons()
            module = get_game(demo.game)
            referee = module.TableReferee(demo.players, options_from_json(module.Options,
                                                                          demo.options))
            placed: dict[str, Card] = {}
            start = Observation("start", context={
                "game": demo.game, "players": demo.players, "seats": list(demo.seats),
                "options": demo.options})
            for n, move in enumerate((None, *demo.moves, None)):
                obs: tuple[Observation, ...] = ()
                if n == 0:
                    obs = (start,)
                elif move is not None:
                    obs = (Observation("move", move),)
                    # the picture shows what the referee knows lies on the table
                    referee.observe(module.public_move(move))
                    placed = {}
                    for key, ids in zone_cards([], referee, module).items():
                        zone_id = _layout_zone(layout, key)
                        if zone_id and ids:
                            placed[zone_id] = Card.parse(ids[-1])
                else:
                    obs = (Observation("end", context=dict(demo.result or {})),)
                frame, cards = drawing.render(placed)
                steps = self.frames_per_move if move is not None or n == 0 else self.pause_frames
                for k in range(steps):
                    yield FeedItem(frame, index, index / self.fps, zones, cards,
                                   obs if k == 0 else ())
                    index += 1

    def close(self) -> None:
        pass


class FramesOnlyFeed:
    """A camera or video without the vision pipeline: the picture, and nothing judged."""

    realtime = True

    def __init__(self, spec: str):
        from companion.vision.source import open_source
        self.source = open_source(int(spec) if spec.isdigit() else spec)
        self.realtime = spec.isdigit()
        self.label = "" if self.realtime else f"video: {Path(spec).name}"

    def items(self) -> Iterator[FeedItem]:
        for f in self.source.frames():
            yield FeedItem(f.image, f.index, f.timestamp, calibrated=False)

    def close(self) -> None:
        self.source.close()


def open_feed(spec: str, demo_seed: int = 7, demo_speed: float = 1.0):
    """The feed for ``--source``: ``demo``, ``replay``, a webcam index, or a video file.
    The vision pipeline runs when it can (a model is shipped); otherwise the demo replays
    the filmed games' ground truth and a camera or video is only shown, each labelled with
    the reason. ``replay`` is always the ground-truth replay."""
    from companion.web.vision_feed import VisionFeed, fixture_videos
    reason = vision_reason() if spec != "replay" else "asked for the recorded games"
    if spec in ("demo", "replay"):
        videos = fixture_videos()
        if reason is None and videos:
            return VisionFeed("demo", videos, speed=demo_speed)
        feed = GroundTruthFeed(videos, demo_speed) if videos else \
            RecordFeed(demo_playlist(demo_seed), speed=demo_speed)
        feed.label = f"{DEMO_LABEL} (the filmed games' ground truth)" if spec == "replay" \
            else f"{DEMO_LABEL} (the vision pipeline is off: " \
                 f"{reason or 'no filmed games in fixtures/'})"
        return feed
    if reason is None:
        return VisionFeed(spec)
    feed = FramesOnlyFeed(spec)
    feed.label = f"{feed.label + ': ' if feed.label else ''}nothing is judged ({reason})"
    return feed


_vision_reason: list[str | None] = []


def vision_reason() -> str | None:
    """Why the vision pipeline cannot run (None: it can); asked once per process."""
    if not _vision_reason:
        from companion.web.vision_feed import vision_available
        _vision_reason.append(vision_available())
    return _vision_reason[0]


class GroundTruthFeed:
    """The filmed fixture games with their ground truth as the "reading": the real video,
    the cards drawn where the renderer put them, and each move at the frame it became true.
    This is the demo when no model is shipped; it is labelled so."""

    realtime = False

    def __init__(self, videos, speed: float = 1.0):
        if not videos:
            raise ValueError("no filmed games in fixtures/")
        self.videos, self.speed = videos, speed
        self.label = DEMO_LABEL
        self.fps = 30.0 * speed  # nominal frames per wall-clock second

    def items(self) -> Iterator[FeedItem]:
        offset, media_t = 0, 0.0
        for v in self.videos:
            d = json.loads(v.meta.read_text())
            fps = float(d.get("fps", 30)) * self.speed
            h = np.array(d["camera"]["homography_mm_to_px"], float)
            zones = _video_zones(v.game, h)
            at: dict[int, list[Observation]] = {}
            for m in d["moves"]:
                at.setdefault(int(m["frame"]), []).append(
                    Observation("move", Move.from_json(m["move"]), context={"frame": m["frame"]
                                                                            + offset}))
            cap = cv2.VideoCapture(str(v.video))
            try:
                i = 0
                start = (Observation("start", context={"game": v.game, "players": v.players,
                                                       "options": v.options}),)
                while True:
                    ok, img = cap.read()
                    if not ok:
                        break
                    truth = d["frame_truth"][i] if i < len(d["frame_truth"]) else []
                    cards = tuple(CardOverlay((r[2], r[3]), r[4], Card.parse(r[0]).name, 1.0)
                                  for r in truth if r[0] and r[6] and r[5] > 0.5)
                    obs = start + tuple(at.get(i, ()))
                    start = ()
                    yield FeedItem(img, offset + i, media_t + i / fps, zones, cards, obs)
                    i += 1
            finally:
                cap.release()
            offset, media_t = offset + i, media_t + i / fps
            result = d["record"].get("result") if d.get("complete") else {
                "text": f"the film stops here, after {d.get('filmed_moves')} moves"}
            yield FeedItem(None, offset, media_t,
                           observations=(Observation("end", context=dict(result or {})),))
            offset += 1

    def close(self) -> None:
        pass


def _video_zones(game: str, h: np.ndarray) -> tuple[tuple[str, np.ndarray], ...]:
    try:
        layout = load_layout(game)
    except LayoutError:
        return ()
    r = load_mat().card_diameter_mm / 2 * 1.15
    out = []
    for z in layout.zones:
        x, y = z.center_mm
        sq = np.array([[x - r, y - r, 1], [x + r, y - r, 1], [x + r, y + r, 1],
                       [x - r, y + r, 1]]).T
        px = h @ sq
        out.append((z.label, (px[:2] / px[2]).T.astype(np.float32)))
    return tuple(out)
