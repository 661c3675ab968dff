"""The one capture-and-referee thread of a table session, and the frame hub it feeds.

A *feed* turns a frame source into :class:`FeedItem` values: the frame, what to draw on it
(zone outlines, each card's name and confidence) and what the table saw happen (moves,
unsure readings, questions). :class:`CaptureThread` consumes one feed, hands observations
to the :class:`~companion.web.table.TableSession` (which stores, judges and signals) and
the annotated frame to the :class:`FrameHub`, which every MJPEG viewer shares: a frame is
JPEG-encoded once, and only while somebody watches.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from companion.cards import Card, deck_cards
from companion.games.base import Move
from companion.web.draft import Draft
from companion.web.table import TableError, TableSession

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CardOverlay:
    center_px: tuple[float, float]
    radius_px: float
    label: str
    confidence: float


@dataclass(frozen=True)
class Observation:
    # "move", "unsure", "question", "settled" (the camera named a card it asked about),
    # "start", "end", "correct", "sync", "note", "learnt" (context "card" and "picture": a
    # card the players named, for the enrolment draft), "art" (context "text": the deck's
    # art is new to the model and what to do, shown on every page; "" when that no longer
    # holds)
    kind: str
    move: Move | None = None
    text: str = ""
    choices: tuple[dict[str, Any], ...] = ()
    context: dict[str, Any] = field(default_factory=dict)


def named_profile(settings: dict[str, Any], profiles_dir: str | Path) -> str | None:
    """Where the deck profile the Setup page named is saved (the Enrol page and
    `companion enroll` write them to the profiles folder), or None when none is named."""
    name = str(settings.get("deck_profile", "") or "")
    return str(Path(profiles_dir) / f"{name}.npz") if name and Path(name).name == name else None


@dataclass(frozen=True)
class FeedItem:
    frame: np.ndarray | None
    index: int
    timestamp: float  # seconds, media time of the frame
    zones_px: tuple[tuple[str, np.ndarray], ...] = ()  # (label, polygon Nx2)
    cards: tuple[CardOverlay, ...] = ()
    observations: tuple[Observation, ...] = ()
    calibrated: bool = True


class Feed(Protocol):
    label: str  # shown on the dashboard, e.g. "demo: replaying a recorded game"
    realtime: bool  # True for a camera; False for a file, which is paced at its frame rate

    def items(self) -> Iterator[FeedItem]: ...

    def close(self) -> None: ...


class FrameHub:
    """The latest annotated frame, shared by every viewer."""

    def __init__(self, quality: int = 75):
        self._cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._raw: np.ndarray | None = None  # the camera's own picture, without overlays
        self._seq = 0
        self._jpeg: tuple[int, bytes] | None = None
        self.quality = quality
        self.viewers = 0

    def publish(self, frame: np.ndarray, raw: np.ndarray | None = None) -> None:
        with self._cond:
            self._frame = frame
            self._raw = raw
            self._seq += 1
            self._cond.notify_all()

    def wait(self, seen: int, timeout: float) -> int:
        with self._cond:
            self._cond.wait_for(lambda: self._seq != seen, timeout)
            return self._seq

    def jpeg(self) -> tuple[int, bytes] | None:
        with self._cond:
            if self._frame is None:
                return None
            if self._jpeg is None or self._jpeg[0] != self._seq:
                ok, buf = cv2.imencode(".jpg", self._frame,
                                       [int(cv2.IMWRITE_JPEG_QUALITY), self.quality])
                if not ok:
                    return None
                self._jpeg = (self._seq, buf.tobytes())
            return self._jpeg

    def latest(self) -> np.ndarray | None:
        with self._cond:
            return None if self._frame is None else self._frame.copy()

    def latest_raw(self) -> np.ndarray | None:
        """The newest frame as the camera gave it: cards cut from it carry no drawn labels."""
        with self._cond:
            return None if self._raw is None else self._raw.copy()


def draw_overlays(item: FeedItem) -> np.ndarray | None:
    if item.frame is None:
        return None
    img = item.frame.copy()
    for label, poly in item.zones_px:
        pts = np.asarray(poly, dtype=np.int32).reshape(-1, 1, 2)
        cv2.polylines(img, [pts], True, (90, 200, 255), 2, cv2.LINE_AA)
        x, y = pts[:, 0, :].min(axis=0)
        cv2.putText(img, label, (int(x) + 4, int(y) + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (90, 200, 255), 1, cv2.LINE_AA)
    for c in item.cards:
        cx, cy = int(c.center_px[0]), int(c.center_px[1])
        colour = (60, 220, 60) if c.confidence >= 0.8 else (0, 190, 255)
        cv2.circle(img, (cx, cy), int(c.radius_px), colour, 2, cv2.LINE_AA)
        text = f"{c.label} {c.confidence:.0%}"
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 0.5, 1)
        org = (cx - w // 2, cy + int(c.radius_px) + h + 6)
        cv2.rectangle(img, (org[0] - 3, org[1] - h - 4), (org[0] + w + 3, org[1] + 4),
                      (20, 20, 20), -1)
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    return img


class CaptureThread(threading.Thread):
    """Reads one feed forever: reopens it when it fails (a camera unplugged), loops demos."""

    def __init__(self, table: TableSession, hub: FrameHub, open_feed: Callable[[], Feed],
                 loop: bool = False, retry_s: float = 0.5, profiles_dir: str = "profiles",
                 draft: Draft | None = None):
        super().__init__(name="capture", daemon=True)
        self.table, self.hub, self.open_feed = table, hub, open_feed
        self.profiles_dir = Path(profiles_dir)
        self.draft = draft  # where the cards named at the table go (Observation "learnt")
        self._learning = False  # a card named at the table joined the draft since it opened
        self._art = ""  # the feed's line on the deck's art, before any count of named cards
        self.loop, self.retry_s = loop, retry_s
        self._halt = threading.Event()
        self.frames = 0
        # wall-clock arrival of recent frames, so that a move the referee reports a few
        # frames late is timed from the frame it was seen in (benchmarks/bench_web.py)
        self.frame_walls: dict[int, float] = {}

    def stop(self) -> None:
        self._halt.set()

    def run(self) -> None:
        while not self._halt.is_set():
            try:
                feed = self.open_feed()
            except Exception as e:  # noqa: BLE001 - no camera yet: say so, and try again soon
                self.table.set_camera(ok=False, text=f"no picture: {e}")
                self._halt.wait(self.retry_s)
                continue
            self.table.set_camera(ok=True, text="live", demo_label=feed.label, art="")
            self._attach(feed)
            finished = False
            try:
                self._consume(feed)
                finished = not self._halt.is_set()
            except Exception as e:  # noqa: BLE001 - any failure of a source: reopen it
                log.warning("capture: %s", e)
                self.table.set_camera(ok=False, text=f"camera lost: {e}")
            finally:
                feed.close()
            if finished and not feed.realtime and not self.loop:
                # a video is judged once: replaying it would repeat its moves
                self.table.set_camera(ok=False, text="the recording has ended")
                return
            self._halt.wait(0.05)

    def _consume(self, feed: Feed) -> None:
        start_wall, start_media = time.monotonic(), None
        last_fps_t, last_fps_n = time.monotonic(), self.frames
        for item in feed.items():
            if self._halt.is_set():
                return
            if not feed.realtime:  # play a recording at its own speed
                if start_media is None:
                    start_media = item.timestamp
                ahead = (item.timestamp - start_media) - (time.monotonic() - start_wall)
                if ahead > 0:
                    self._halt.wait(ahead)
            self.frames += 1
            self.frame_walls[item.index] = time.time()
            if len(self.frame_walls) > 900:
                for old in list(self.frame_walls)[:300]:
                    del self.frame_walls[old]
            for obs in item.observations:
                self._handle(obs, item.index)
            self.table.camera.frame = item.index
            annotated = draw_overlays(item)
            if annotated is not None:
                self.hub.publish(annotated, item.frame)
            now = time.monotonic()
            if now - last_fps_t >= 1.0:
                self.table.camera.fps = (self.frames - last_fps_n) / (now - last_fps_t)
                last_fps_t, last_fps_n = now, self.frames
                if not self.table.camera.ok:
                    self.table.set_camera(ok=True, text="live")

    def _attach(self, feed: Feed) -> None:
        """Let the dashboard's answers reach the feed's referee, and a camera feed follow the
        game chosen on the Setup page."""
        if hasattr(feed, "answer"):
            def answer(kind: str, context: dict, choice) -> None:
                for obs in feed.answer(kind, context, choice):
                    self._handle(obs)
            self.table.answer_hook = answer
        if hasattr(feed, "corners_provider"):
            feed.corners_provider = lambda: self.table.settings.get("manual_corners")
        if hasattr(feed, "game_provider"):
            def current():
                live = self.table.live
                if live is None or live.manual_state is not None:
                    return None
                row = self.table.store.game(live.game_id)
                return (row.id, row.game, row.players,
                        {k: v for k, v in row.options.items() if k != "__table__"},
                        self._profile_path(),
                        bool(self.table.settings.get("ask_every_doubt", False)))
            feed.game_provider = current

    def _profile_path(self) -> str | None:
        """Asked on every frame, so it touches no disk: the feed loads the profile once per
        game and falls back to the model alone when it is missing."""
        return named_profile(self.table.settings, self.profiles_dir)

    def _handle(self, obs: Observation, index: int | None = None) -> None:
        if obs.kind == "learnt":  # the draft has its own lock, and writes a file
            note = self._learn(obs.context["card"], obs.context["picture"])
            if note is None:
                return
            obs = note
        # under the table's lock: a game set up on the dashboard meanwhile is seen here
        with self.table.lock:
            self._handle_locked(obs, index)

    def _learn(self, card_id: str, picture) -> Observation | None:
        """A card the players named, with its picture, joins the enrolment draft; the table
        is told the first time and when the deck is whole."""
        live = self.table.live  # read without the table's lock: only its id is kept
        game = live.game_id if live is not None else None
        have = self.draft.learn(card_id, picture, game) if self.draft is not None else None
        if have is None:
            return None
        deck = Card.parse(card_id).deck
        total = len(deck_cards(deck))
        first, self._learning = not self._learning, True
        if self._art:  # the line on every page counts them too
            self.table.set_camera(art=f"{self._art} Cards named so far, to enrol it: {have} "
                                      f"of {total}.")
        if have == total:
            return Observation("note", text=(
                f"Every card of this {deck.value} deck has now been named: save them as a "
                "deck profile on the Enrol page and name it on Setup, and each question "
                "offers its best guesses first (a picture of each card, companion enroll, "
                "has the cards read without asking)."), context={"prominent": True})
        if first:
            in_use = str(self.table.settings.get("deck_profile", "") or "")
            if in_use:  # a profile learnt from the camera reads: the answers add to it
                return Observation("note", text=(
                    f"Each card you name is kept as a picture of this deck ({have} so far): "
                    f"add them to the deck profile {in_use!r} on the Enrol page (save under "
                    "its name, ticking \"add these cards\"), and the next game offers them "
                    "first too."))
            return Observation("note", text=(
                f"Each card you name is kept as a picture of this deck, to enrol it ({have} of "
                f"its {total} cards so far). Once every card is named, save them as a deck "
                "profile on the Enrol page."))
        return None

    def _handle_locked(self, obs: Observation, index: int | None) -> None:
        if obs.kind == "art":  # shown on every page, with or without a game
            self._art = obs.context.get("text", "")
            self.table.set_camera(art=self._art)
            return
        live = self.table.live
        if live is not None and live.manual_state is not None:
            return  # the manual board is in use: the camera's table waits
        try:
            if obs.kind == "move" and obs.move is not None:
                extra = {"frame": obs.context["frame"]} if "frame" in obs.context else {}
                seen = self.frame_walls.get(obs.context.get("frame", index))
                extra["seen_at"] = seen if seen is not None else time.time()
                self.table.observe(obs.move, source="camera", extra=extra)
            elif obs.kind in ("unsure", "question"):
                self.table.ask(obs.kind, obs.text, list(obs.choices), obs.context)
            elif obs.kind == "settled":
                self.table.settle(obs.context["zone"], obs.context["card"],
                                  obs.context.get("track", -1))
            elif obs.kind == "start":
                c = obs.context
                self.table.start_game(c["game"], c["players"], c.get("seats"), c.get("options"))
            elif obs.kind == "end" and self.table.live is not None:
                c = obs.context
                self.table.end_game(c.get("winners"), c.get("text", ""))
            elif obs.kind == "correct" and obs.move is not None:
                self.table.correct_seen_at(obs.context.get("frame"), obs.move)
            elif obs.kind == "sync":
                frames = obs.context["frames"]
                seen = [self.frame_walls.get(f, time.time()) for f in frames]
                self.table.sync_moves(obs.context["moves"], frames, seen)
            elif obs.kind == "note" and self.table.live is not None:
                self.table.note(obs.text, bool(obs.context.get("prominent")))
        except TableError as e:  # e.g. no game started yet: the move is not lost, just unused
            log.info("capture: %s", e)
