"""The real seeing feed: frames -> :class:`~companion.vision.pipeline.Pipeline` ->
:class:`~companion.referee.Referee` -> observations for the table session.

The vision referee turns tracker events into the game's moves (who played, two-card turns,
draws seen at the stock) and asks when unsure; the table session then stores and judges
each move with the same rules engine. Answers typed on the dashboard come back through
:meth:`VisionFeed.answer`, and the referee's re-judgements arrive as ``correct``
observations, matched to the stored move by the frame it was seen in.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from companion.cards import Card, DeckKind
from companion.layouts import load_layout
from companion.referee.values import offer_label
from companion.web.capture import CardOverlay, FeedItem, Observation

if TYPE_CHECKING:
    from companion.vision.source import Frame

log = logging.getLogger(__name__)
REPO = Path(__file__).resolve().parent.parent.parent
VIDEO_FORMAT = "ganjifa-companion/synth-game@1"
VIDEO_SUFFIXES = (".mp4", ".avi", ".mkv", ".mov")


# Under the menu of every page while the deck on the table is one the model does not know
ART_STATUS = ("The camera's model does not know this deck's art: every card is asked about. "
              "Enrol the deck (Enrol a deck) and name its profile on Setup to have it read.")
ART_UNJUDGED = Observation("art", context={"text": ""})


class VisionUnavailable(RuntimeError):
    """No model, or no vision modules: the caller falls back and says why."""


@dataclass(frozen=True)
class GameVideo:
    meta: Path
    video: Path
    game: str
    players: int
    options: dict[str, Any]
    event_frames: tuple[tuple[str, int], ...]  # (event kind, frame) from the ground truth


def fixture_videos(root: Path = REPO / "fixtures") -> list[GameVideo]:
    """Filmed games with ground truth (``companion synth-game``), Kendra Kari first."""
    out = []
    for meta in sorted(root.rglob("*.json")):
        if meta.stat().st_size > 50_000_000:
            continue
        try:
            with meta.open() as f:
                head = f.read(200)
            if VIDEO_FORMAT not in head:
                continue
            d = json.loads(meta.read_text())
        except (OSError, ValueError):
            continue
        video = meta.parent / d.get("video", "")
        if not video.is_file() or video.suffix.lower() not in VIDEO_SUFFIXES or d.get("hard"):
            continue  # the hard videos are for the benchmarks, not for a first look
        rec = d.get("record", {})
        frames = tuple((e["kind"], int(e["frame"])) for m in d.get("moves", [])
                       for e in m.get("events", []) if "frame" in e)
        out.append(GameVideo(meta, video, d["game"], int(d["players"]),
                             dict(rec.get("options") or {}), frames))
    order = {"kendra-kari": 0, "ganjifa": 1}
    return sorted(out, key=lambda v: (order.get(v.game, 9), str(v.video)))


def card_reader(deck: DeckKind | None, profile: str | None = None):
    """The shipped model, with the deck ``profile`` (a saved .npz) when one is given and
    loads; a profile that cannot be used is logged and the model alone reads."""
    try:
        from companion.vision.classify import CardClassifier, ModelError, ProfileModelError
        from companion.vision.enroll import ProfileError, load_profile
    except ImportError as e:
        raise VisionUnavailable(f"the vision modules are incomplete: {e}") from None
    try:
        deck_profile = None
        if profile:
            try:
                deck_profile = load_profile(Path(profile))
            except ProfileError as e:  # the shipped model alone still reads the cards
                log.warning("deck profile %s not used: %s", profile, e)
        if deck_profile is not None and deck is not None and deck_profile.deck is not deck:
            log.warning("deck profile %s is a %s deck; this game is played with a %s deck: "
                        "not used", profile, deck_profile.deck.value, deck.value)
        elif deck_profile is not None:
            try:
                return CardClassifier(profile=deck_profile)
            except ProfileModelError as e:
                log.warning("deck profile %s not used: %s", profile, e)
                deck = deck_profile.deck
        return CardClassifier(deck=deck)
    except ModelError as e:
        raise VisionUnavailable(str(e)) from None


def vision_available() -> str | None:
    """None when the pipeline can run, else the reason it cannot."""
    try:
        card_reader(None)
        import companion.referee
        import companion.vision.pipeline  # noqa: F401
    except (VisionUnavailable, ImportError) as e:
        return str(e)
    return None


def judge(referee, tracker, events, frame_index: int, timestamp: float, motion_map) -> list:
    """The referee's outputs for a frame's tracker events (none without a game). A card it
    names by elimination is told the tracker as an answer is: the tracker holds that name,
    and with a deck the model does not know, its picture joins the draft. (The benchmarks'
    films are judged by this too.)"""
    if not referee:
        return []
    outs = referee.observe(list(events), frame_index, timestamp, motion_map)
    for out in outs:
        if out.kind == "named" and out.track >= 0 and tracker is not None:
            tracker.name(out.track, out.choices[0], out.frame)
    return outs


class VisionFeed:
    """One camera or one or more game videos through the pipeline and the vision referee."""

    def __init__(self, source: str, videos: list[GameVideo] | None = None,
                 game: str | None = None, players: int = 4, options: dict | None = None,
                 stages=None, speed: float = 1.0):
        if speed <= 0:
            raise ValueError(f"demo speed must be positive, got {speed}")
        self.source, self.videos = source, videos or []
        self.realtime = source.isdigit()
        self.label = "" if self.realtime else (
            "demo: the vision pipeline watching a filmed game" if self.videos
            else f"video: {Path(source).name}")
        self.game, self.players, self.options = game, players, options or {}
        # a recording is played ``speed`` times faster than filmed (its media time is
        # divided by it for the capture thread's pacing; the referee keeps the film's own)
        self.speed = speed
        self.fps = 30.0 * speed  # the fixture videos' rate; a camera runs at its own
        self._lock = threading.Lock()
        self.referee = None
        self.unrefereed = ""  # why the game set up is not judged from the camera, or ""
        self._tracker = None  # the pipeline's, told the cards the players name
        # () -> (game id, game, players, options, deck profile path or None, ask every
        # doubt) of the table's game, or None
        self.game_provider = None
        # () -> the four mat corners clicked on the Setup page, or None
        self.corners_provider = None
        self._last = (0, 0.0)
        self._offset = 0
        # (video or None, deck) -> (classifier, detector or None); the shipped model by
        # default. Tests and benchmarks pass the fixtures' ground-truth oracle here.
        self.stages = stages
        if stages is None:
            card_reader(None)  # fail now, in open_feed, when there is no model

    # ---- frames -------------------------------------------------------------------------

    def items(self) -> Iterator[FeedItem]:
        from companion.vision.source import open_source
        if self.videos:
            offset, media_t = 0, 0.0
            for v in self.videos:
                for item in self._run(open_source(str(v.video)), v.game, v.players, v.options,
                                      offset, media_t, v):
                    yield item
                    offset, media_t = item.index + 1, item.timestamp
                yield FeedItem(None, offset, media_t, observations=(Observation("end", context={
                    "text": "the film ended before the referee saw a winner"}),))
            return
        source = open_source(int(self.source) if self.source.isdigit() else self.source)
        yield from self._run(source, self.game, self.players, self.options, 0, 0.0)

    def _run(self, source, game: str | None, players: int, options: dict,
             offset: int, media_t: float, video: GameVideo | None = None
             ) -> Iterator[FeedItem]:
        start: tuple[Observation, ...] = (ART_UNJUDGED,)  # a new pipeline judges afresh
        if game:  # a filmed game: the feed says which game it is
            start += (Observation("start", context={"game": game, "players": players,
                                                    "options": options}),)
        pipeline, zones_mm = self._setup(game, players, options, video)
        start += self._unrefereed_note()
        self._offset = offset  # the referee counts this source's frames; the table all
        frames, held = source.frames(), []
        followed = switch = None

        def fed() -> Iterator[Frame]:
            """The source's frames for ``pipeline``, until a camera's game changes. This
            runs on the pipeline's seeing thread, a frame ahead of the referee."""
            nonlocal followed, switch
            while (frame := held.pop() if held else next(frames, None)) is not None:
                if not self.videos and self.game_provider is not None:
                    wanted = self.game_provider()  # a camera follows the game set up
                    if wanted != followed:
                        followed, switch = wanted, (wanted[1:] if wanted
                                                    else (None, 0, {}, None, False))
                        held.append(frame)  # the new game's first frame
                        return
                if frame.index % 30 == 0:
                    self._manual_corners(pipeline, frame.image.shape)
                if oracle:
                    pipeline.classifier.frame = frame.index
                yield frame

        try:
            while True:
                # an oracle reads the truth of the frame it was last told: not one ahead
                oracle = hasattr(pipeline.classifier, "frame")
                for fr in pipeline.stream(fed(), overlap=not oracle):
                    with self._lock:
                        self._last = (fr.frame_index, fr.timestamp)
                        outs = judge(self.referee, self._tracker, fr.events,
                                     fr.frame_index, fr.timestamp, fr.motion_map)
                        story = self._story(outs)
                    obs = start + _frame_notes(fr) + self._tracker_news(fr.events, offset) \
                        + tuple(o for out in outs for o in _convert(out, offset)) + story \
                        + tuple(Observation("learnt", context={"card": c, "picture": p})
                                for c, p in fr.learnt)
                    start = ()
                    yield FeedItem(fr.image, offset + fr.frame_index,
                                   media_t + fr.timestamp / self.speed,
                                   _zone_polygons(pipeline, zones_mm), _card_overlays(fr),
                                   obs, fr.calibrated)
                if switch is None:
                    return  # the source ended
                (game, players, options, profile, every_doubt), switch = switch, None
                pipeline, zones_mm = self._setup(game, players, options, profile=profile,
                                                 every_doubt=every_doubt)
                start = (ART_UNJUDGED,) + self._unrefereed_note()
        finally:
            source.close()

    def _tracker_news(self, events, offset: int) -> tuple[Observation, ...]:
        """Questions the tracker has since settled, and, with no game to judge (no
        referee), its unsure cards. With a game, the referee asks: it leaves out the piles
        (their cards decide no move), the cards it named by elimination, and the readings
        of cards already played."""
        out = []
        for ev in events:
            if ev.kind == "unsure" and self.referee is None:
                out.append(_which_card(f"Which card was laid on {ev.zone or 'the table'}?",
                                       ev.candidates, ev.zone, offset + ev.last_frame,
                                       track=ev.track_id, asked_at=ev.last_frame))
            elif ev.kind == "appeared" and ev.resolves and ev.zone:
                out.append(Observation("settled", context={
                    "zone": ev.zone, "track": ev.track_id, "card": ev.card_id}))
        return tuple(out)

    def _manual_corners(self, pipeline, shape) -> None:
        """Corners clicked on the Setup page calibrate the table while no mat marker does."""
        corners = self.corners_provider() if self.corners_provider is not None else None
        cal = pipeline.calibration
        if not corners or (cal is not None and (cal.method != "manual" or
                                                list(map(list, cal.corners_px)) == corners)):
            return
        from companion.vision.calibration import CalibrationError, manual_calibration
        try:
            pipeline.calibration = manual_calibration(corners, (shape[1], shape[0]))
        except CalibrationError:
            pass  # refused when saved; an old bad value is ignored

    def _setup(self, game: str | None, players: int, options: dict,
               video: GameVideo | None = None, profile: str | None = None,
               every_doubt: bool = False):
        """A fresh pipeline and vision referee for ``game`` (None: see, judge nothing),
        reading cards with the deck ``profile`` (a saved .npz) when one is given.
        ``every_doubt``: the players asked about every doubtful card (no elimination)."""
        from companion.games import get_game
        from companion.referee import Referee, RefereeError
        from companion.vision.pipeline import Pipeline
        from companion.vision.track import TableTracker
        layout = load_layout(game) if game else None
        deck = getattr(get_game(game), "DECK", None) if game else None
        if self.stages is not None:
            classifier, detector = self.stages(video, deck)
        else:
            classifier, detector = card_reader(deck, profile), None
        pipeline = Pipeline(classifier, TableTracker(layout), detector=detector)
        self.unrefereed = ""
        try:
            referee = Referee(game, players, options, layout,
                              by_elimination=not every_doubt) if game else None
        except RefereeError as e:  # the camera still sees the cards; nothing is judged
            referee, self.unrefereed = None, str(e)
        with self._lock:
            self.referee = referee
            self._tracker = pipeline.tracker
        zones_mm = [(z.label, z.center_mm) for z in layout.zones] if layout else []
        return pipeline, zones_mm

    def _unrefereed_note(self) -> tuple[Observation, ...]:
        """Why the game set up is not judged from the camera, said once as it starts."""
        return (Observation("note", text=self.unrefereed, context={"prominent": True}),) \
            if self.unrefereed else ()

    def close(self) -> None:
        pass

    # ---- answers from the dashboard -----------------------------------------------------

    def answer(self, kind: str, context: dict[str, Any], choice: Any) -> list[Observation]:
        from companion.referee import RefereeError
        with self._lock:
            if self.referee is None:
                return []
            frame, ts = self._last
            try:
                if kind == "question" and "question_id" in context:
                    outs = self.referee.answer(int(context["question_id"]), int(choice))
                elif kind == "unsure" and context.get("zone") and choice == "none":
                    outs = self.referee.dismiss(context["zone"], int(context.get("track", -1)))
                elif kind == "unsure" and context.get("zone"):
                    track = int(context.get("track", -1))
                    outs = self.referee.confirm(str(choice), context["zone"], frame, ts, track)
                    if track >= 0:  # see TableTracker.name
                        self._tracker.name(track, str(choice), int(context["asked_at"]))
                elif kind == "draw":
                    outs = self.referee.tell_draw(choice, frame, ts)
                elif kind == "shown":
                    outs = self.referee.tell_shown(frame, ts)
                else:
                    return []
            except (RefereeError, ValueError) as e:
                return [Observation("note", text=f"Could not use that answer: {e}")]
            story = self._story(outs)
        return [o for out in outs for o in _convert(out, self._offset)] + list(story)

    def _story(self, outs) -> tuple[Observation, ...]:
        """When the referee's rulings changed, the whole list of moves as it now stands:
        a two-card turn replaces its first card, an answer re-tells what followed."""
        if self.referee is None or not any(o.kind in ("ruling", "correction", "superseded")
                                           for o in outs):
            return ()
        rulings = [o for o in self.referee.outputs if o.kind == "ruling" and o.ruling]
        return (Observation("sync", context={
            "moves": [o.ruling.move.to_json() for o in rulings],
            "frames": [o.frame + self._offset for o in rulings]}),)


def _which_card(text: str, readings, zone: str | None, frame: int,
                offered: tuple[str, ...] | None = None, track: int = -1,
                asked_at: int = -1, why: tuple[tuple[str, str], ...] = (),
                could: tuple[str, ...] = ()) -> Observation:
    """A question about the card on ``zone``: one button per offered card (all the
    ``readings`` (card, probability) by default), and "none of these"; the answer goes to
    ``Referee.confirm`` or ``dismiss``. The readings are kept with the question, and the
    players' answer is stored beside them (``corrections``; nothing learns from it yet).
    ``track``: the tracker's track of the card, asked about at its frame ``asked_at`` (the
    answer names that card)."""
    p = dict(readings)
    cards = offered if offered is not None else tuple(c for c, _ in readings)
    because = dict(why)
    choices = tuple({"value": c, "label": offer_label(c, because.get(c), p.get(c))}
                    for c in cards)
    return Observation("unsure", text=text,
                       choices=choices + ({"value": "none", "label": "none of these"},),
                       context={"zone": zone, "via": "vision", "frame": frame,
                                "reading": [[c, q] for c, q in readings],
                                **({"track": track, "asked_at": asked_at}
                                   if track >= 0 else {}),
                                **({"could": list(could)} if could else {})})


def _convert(out, offset: int = 0) -> list[Observation]:
    """Questions and notes; the moves themselves travel as the whole story (``sync``)."""
    if out.kind == "question":
        return [Observation("question", text=out.text,
                            choices=tuple({"value": i, "label": c}
                                          for i, c in enumerate(out.choices)),
                            context={"question_id": out.question_id, "via": "vision"})]
    if out.kind == "unsure":
        return [_which_card(f"Which card was laid on {out.place or out.zone}?", out.readings,
                            out.zone, offset + out.frame, out.choices, out.track, out.frame,
                            out.why, out.could)]
    if out.kind in ("doubt", "unseen"):  # a reading the game cannot accept, or a card
        # the trick lacked when it was gathered: asked like an unsure card
        return [_which_card(out.text, (), out.zone, offset + out.frame, out.choices,
                            out.track, out.frame, out.why, out.could)]
    if out.kind in ("draw", "desync", "resync", "named"):
        return [Observation("note", text=out.text, context={"prominent": out.kind == "desync"})]
    return []


def _frame_notes(fr) -> tuple[Observation, ...]:
    """What the players should know about the seeing itself: a deck whose art the model
    does not know, and a camera or mat that moved."""
    out = []
    if fr.art is not None and not fr.art.familiar:
        out.append(Observation("note", text=(
            f"The camera sees that {fr.art.words()}. Every card will be put to you, best "
            "guesses first. To have the cards read, enrol the deck (Enrol page, or "
            "companion enroll) and name its profile on the Setup page."),
            context={"prominent": True, "art": fr.art.to_json()}))
        out.append(Observation("art", context={"text": ART_STATUS}))
    elif fr.art is not None and fr.art.again:
        out.append(Observation("note", text=(
            f"The camera sees that {fr.art.words()}: its sure readings name cards again."),
            context={"prominent": True, "art": fr.art.to_json()}))
        out.append(ART_UNJUDGED)
    if fr.drift is not None and fr.drift.drifted:
        out.append(Observation("note", text=(
            f"The camera or the mat moved ({fr.drift.drift_mm:.0f} mm): the table was "
            "calibrated again."), context={"drift_mm": round(fr.drift.drift_mm, 1)}))
    return tuple(out)


def _zone_polygons(pipeline, zones_mm) -> tuple[tuple[str, np.ndarray], ...]:
    cal = pipeline.calibration
    if cal is None or not zones_mm:
        return ()
    r = pipeline.detector.card_radius_mm * 1.15
    out = []
    for label, (x, y) in zones_mm:
        square = np.array([[x - r, y - r], [x + r, y - r], [x + r, y + r], [x - r, y + r]])
        out.append((label, cal.to_px(square).astype(np.float32)))
    return tuple(out)


def _card_overlays(fr) -> tuple[CardOverlay, ...]:
    cls, det = fr.classifications, fr.detections
    if cls is None or len(det) == 0:
        return ()
    out = []
    for i in range(len(det)):
        cid = cls.card_ids[i] if i < len(cls.card_ids) else None
        label = cid or ("face down" if cls.face_down[i] > 0.5 else "?")
        if cid:
            label = Card.parse(cid).name
        out.append(CardOverlay(tuple(det.centers_px[i]), float(det.radii_px[i]), label,
                               float(cls.confidence[i])))
    return tuple(out)
