"""The seeing pipeline: source -> calibrate -> detect -> classify -> track, timed per stage.

``Pipeline.process(frame)`` runs one frame through every stage and returns a
:class:`FrameResult`; ``Pipeline.run(source)`` does it for a whole source, seeing the next
frame (calibrate, rectify, detect, the motion gate: :meth:`Pipeline.see`) on a second
thread while it reads this one (classify, track: :meth:`Pipeline.read`). The classifier
is passed in (anything with ``classify(crops) -> Classifications``), so this module does
not load a model itself and tests can run it with an oracle.

Until the mat is found, frames are calibrated one after another (a hand may cover a
marker at first); afterwards a :class:`DriftMonitor` re-checks every few seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import cv2
import numpy as np

from companion.vision.calibration import (
    Calibration,
    CalibrationError,
    DriftMonitor,
    DriftReport,
    MatCalibrator,
)
from companion.vision.classify import ALWAYS_ASK
from companion.vision.cores import HALF_THE_CORES
from companion.vision.detect import CardDetector, Detections
from companion.vision.familiar import ArtFamiliarity, ArtVerdict
from companion.vision.motion import MotionGate, MotionMap
from companion.vision.reuse import ReadingReuse
from companion.vision.source import Frame, FrameSource
from companion.vision.track import TableTracker, TrackEvent

STAGES = ("calibrate", "rectify", "detect", "classify", "track")
# Unchanged doubtful cards read a frame when the classifier reads with a deck profile
# (see companion.vision.reuse); the model alone reads them all on every frame.
DOUBTFUL_PER_FRAME = 2


def doubtful_per_frame(classifier) -> int | None:
    """Unchanged doubtful cards read a frame (None: all of them), as served.

    A deck profile's reading costs milliseconds a crop, so with one doubtful cards take
    turns (``DOUBTFUL_PER_FRAME``). Not with a profile that names no card by itself (a deck
    the model does not know, enrolled from the camera: ``classify.ALWAYS_ASK``): every card
    is doubtful there, all the cards of a trick take turns, and a card laid on one the
    players named got too few readings to be told apart from it before the trick was
    gathered. With such a profile learnt from one game's answers, a second game of the
    real-art Ganjifa deck followed 101 of its 118 moves with turns, 115 with every card
    read on every frame (22.5 fps against 35.8; docs/benchmarks.md)."""
    if getattr(classifier, "profile", None) is None or asks_about_every_card(classifier):
        return None
    return DOUBTFUL_PER_FRAME


def asks_about_every_card(classifier) -> bool:
    """A profile that names no card by itself (art the model does not know, enrolled from
    the camera): every card is put to the players."""
    return getattr(classifier, "trust_bar", 0.0) >= ALWAYS_ASK


def served_reuse(classifier, max_doubtful: int | None) -> ReadingReuse:
    """The reading reuse as served. With a profile that asks about every card, readings
    cannot settle a card (the players name each one), so a card read ``patient_after``
    times while nothing happened to it is read only every few frames, whatever its
    reading: a still table of 15 real-art cards with a 120-card learnt profile ran at 16.6
    fps, every card read on every frame (docs/benchmarks.md)."""
    return ReadingReuse(max_doubtful=max_doubtful,
                        patient_every_doubt=asks_about_every_card(classifier))


class Classifier(Protocol):
    """Reads a batch of crops. One that reads at quarter turns (``rotations`` > 1) also
    takes ``turn`` and ``earlier``, as
    :meth:`~companion.vision.classify.CardClassifier.classify` does, to spread a still
    doubtful card's turns over frames (:class:`ReadingReuse`)."""

    def classify(self, crops: np.ndarray) -> Any: ...


@dataclass(frozen=True)
class StageTimings:
    """Milliseconds spent in each stage for one frame."""

    calibrate: float = 0.0
    rectify: float = 0.0  # warp to the table view + the motion gate
    detect: float = 0.0
    classify: float = 0.0
    track: float = 0.0

    @property
    def total(self) -> float:
        return self.calibrate + self.rectify + self.detect + self.classify + self.track

    def as_dict(self) -> dict[str, float]:
        return {s: getattr(self, s) for s in STAGES} | {"total": self.total}


@dataclass(frozen=True)
class FrameResult:
    frame_index: int
    timestamp: float
    calibrated: bool
    detections: Detections
    classifications: Any  # the classifier's Classifications (None when nothing to classify)
    events: tuple[TrackEvent, ...]
    timings: StageTimings
    motion: float = 0.0  # fraction of the table view that moved or holds a hand
    drift: DriftReport | None = None
    motion_map: MotionMap | None = field(default=None, repr=False)
    image: np.ndarray | None = field(default=None, repr=False)  # the frame's own picture
    art: ArtVerdict | None = None  # on the frame where the art was judged (familiar.py)
    # cards the players named, with their pictures (TableTracker.named), while the model
    # does not know the deck's art: see Pipeline.learnt
    learnt: tuple[tuple[str, np.ndarray], ...] = field(default=(), repr=False)


@dataclass(frozen=True)
class SeenFrame:
    """A frame after :meth:`Pipeline.see` (calibrate, rectify, detect, the motion gate):
    what :meth:`Pipeline.read` classifies and tracks."""

    frame: Frame
    calibrated: bool
    detections: Detections
    motion: MotionMap | None
    drift: DriftReport | None
    timings: StageTimings  # calibrate, rectify and detect; classify and track are read's


class Pipeline:
    def __init__(self, classifier: Classifier, tracker: TableTracker | None = None,
                 calibration: Calibration | None = None,
                 calibrator: MatCalibrator | None = None,
                 detector: CardDetector | None = None, drift_interval_s: float = 3.0,
                 gate_motion: bool = True, reuse: ReadingReuse | None = None,
                 reuse_readings: bool = True, familiarity: ArtFamiliarity | None = None):
        self.classifier = classifier
        if reuse is None and reuse_readings:
            reuse = served_reuse(classifier, doubtful_per_frame(classifier))
        self.reuse = reuse if reuse_readings else None
        self.tracker = tracker or TableTracker()
        # a classifier whose sure readings are less often right asks for surer ones
        self.tracker.raise_bar(getattr(classifier, "trust_bar", 0.0))
        if familiarity is None and getattr(classifier, "may_not_know_the_art", False):
            familiarity = ArtFamiliarity(self.tracker.min_confidence)
        self.familiarity = familiarity
        # a profile that names no card by itself (a deck of unknown art enrolled from the
        # camera) has every card named by the players: each answer may add to it
        self._adds_to_profile = asks_about_every_card(classifier)
        # Pictures of the cards named, while they may teach a deck (see _learnt), or while
        # a profile reads art the model does not know: its readings under the bar of a card
        # laid on a named one may be those the named card was asked about on, and only the
        # crops tell (track_views.unlike). On a hard five-player film with the Mughal
        # deck's profile, a Cheng 9 the players named was read as the Kumancha 8 (0.5);
        # the Kumancha 8 later laid on it, read 0.85 (the bar 0.9), passed for the Cheng 9.
        self.tracker.keep_pictures = (familiarity is not None or self._adds_to_profile
                                      or getattr(classifier, "trust_bar", 0.0) > 0)
        self._named_unjudged: list[tuple[str, np.ndarray]] = []
        self.calibrator = calibrator or MatCalibrator()
        self.detector = detector or CardDetector(self.calibrator.mat)
        self.calibration = calibration
        self.drift_interval_s = drift_interval_s
        self._monitor = (DriftMonitor(self.calibrator, calibration, drift_interval_s)
                         if calibration is not None and calibration.method == "aruco" else None)
        self._gate = MotionGate(self.detector.px_per_mm,
                                card_radius_mm=self.detector.card_radius_mm) if gate_motion else None

    def reset(self) -> None:
        """A new game on the same table: the art verdict stands (it is about the deck)."""
        self.tracker.reset()
        if self.reuse is not None:
            self.reuse.reset()
        if self._gate is not None:
            self._gate.reset()

    def _calibrate(self, frame: Frame) -> DriftReport | None:
        if self.calibration is None:
            try:
                self.calibration = self.calibrator.calibrate(frame.image)
            except CalibrationError:
                return None
            self._monitor = DriftMonitor(self.calibrator, self.calibration,
                                         self.drift_interval_s)
            self._monitor.check(frame.image, frame.timestamp)  # starts its clock
            return None
        if self._monitor is None:
            return None
        report = self._monitor.check(frame.image, frame.timestamp)
        if report is not None and report.replaced:
            self.calibration = self._monitor.calibration
        return report

    def see(self, frame: Frame) -> SeenFrame:
        """The first half of :meth:`process`: calibrate, rectify, detect, the motion gate."""
        t0 = time.perf_counter()
        drift = self._calibrate(frame)
        t1 = time.perf_counter()
        cal = self.calibration
        if cal is None:
            return SeenFrame(frame, False, Detections.empty(), None, None,
                             StageTimings(calibrate=(t1 - t0) * 1e3))
        view = self.detector.rectify(frame.image, cal)
        t2 = time.perf_counter()
        det = self.detector.detect(frame.image, cal, view)
        t3 = time.perf_counter()
        motion = self._gate.update(view, det) if self._gate is not None else None
        t4 = time.perf_counter()
        return SeenFrame(frame, True, det, motion, drift,
                         StageTimings((t1 - t0) * 1e3, ((t2 - t1) + (t4 - t3)) * 1e3,
                                      (t3 - t2) * 1e3))

    def read(self, seen: SeenFrame) -> FrameResult:
        """The second half of :meth:`process`: classify the crops, then track."""
        frame, det, motion = seen.frame, seen.detections, seen.motion
        if not seen.calibrated:
            return FrameResult(frame.index, frame.timestamp, False, det, None, (),
                               seen.timings, image=frame.image)
        t4 = time.perf_counter()
        if self.reuse is None:
            cls = self.classifier.classify(det.crops)
        else:
            moving = (motion.near(det.centers_mm, self.tracker.motion_radius_mm,
                                  moving_only=True) if motion is not None and len(det) else None)
            cls = self.reuse.classify(self.classifier, det, frame.index, moving)
        t5 = time.perf_counter()
        art = self.familiarity.update(cls) if self.familiarity is not None else None
        if art is not None and not art.familiar:
            # no card on the word of a model that guesses
            self._bars_before_asking = self.tracker.raise_bar(ALWAYS_ASK)
        elif art is not None and art.again:  # it reads the cards after all
            self.tracker.restore_bar(self._bars_before_asking)
        if art is not None and art.familiar:  # no deck to learn
            self.tracker.keep_pictures = False
        events = self.tracker.update(frame.index, frame.timestamp, det, cls, motion)
        t6 = time.perf_counter()
        timings = replace(seen.timings, classify=(t5 - t4) * 1e3, track=(t6 - t5) * 1e3)
        return FrameResult(frame.index, frame.timestamp, True, det, cls, tuple(events),
                           timings, motion.fraction if motion is not None else 0.0,
                           seen.drift, motion, frame.image, art, self._learnt())

    def _learnt(self) -> tuple[tuple[str, np.ndarray], ...]:
        """The cards the players named, with their pictures, while the model does not know
        the deck's art: labelled pictures of a deck to enrol (every such card is asked
        about). Answers given before the art is judged wait for the verdict; with a deck
        the model knows, or read with a profile that names cards, the pictures are dropped:
        the few cards asked about are no deck to enrol. Read with a profile that names no
        card by itself (one learnt from the camera), every card is asked about, and each
        answer is a picture to add to it: one game of Kendra Kari lays a fifth of its deck."""
        named = self.tracker.named()
        if self._adds_to_profile:
            return tuple(named)
        verdict = self.familiarity.verdict if self.familiarity is not None else None
        if self.familiarity is None or (verdict is not None and verdict.familiar):
            self._named_unjudged.clear()
            return ()
        self._named_unjudged += named
        if verdict is None:
            return ()
        out, self._named_unjudged = tuple(self._named_unjudged), []
        return out

    def process(self, frame: Frame) -> FrameResult:
        return self.read(self.see(frame))

    def stream(self, frames: Iterable[Frame], overlap: bool = True) -> Iterator[FrameResult]:
        """Every frame's result, in order. ``overlap``: frame n+1 is taken from ``frames``
        and seen (:meth:`see`) on a second thread while frame n is read (:meth:`read`).
        The two halves share no state, and each still takes its frames one after another,
        so the results are those of :meth:`process`, frame for frame; only more frames
        go through a second (OpenCV and onnxruntime work outside Python's lock, so one
        half's work fills the core the other half's Python leaves idle)."""
        it = iter(frames)
        if not overlap:
            for frame in it:
                yield self.process(frame)
            return

        def see_next() -> SeenFrame | None:
            frame = next(it, None)
            return None if frame is None else self.see(frame)

        # Each half has half the cores: OpenCV's own thread pool would only add overhead
        # (2-core box: 58-62 fps with two OpenCV threads, 68-70 with one, and the model on
        # one thread, classify.THREADS; docs/benchmarks.md).
        before = cv2.getNumThreads()
        cv2.setNumThreads(HALF_THE_CORES)
        try:
            # ``frames`` is only ever advanced on the worker, one frame at a time; leaving
            # the ``with`` waits for a frame still being seen (a consumer that stopped early).
            with ThreadPoolExecutor(1, thread_name_prefix="pipeline-see") as worker:
                ahead = worker.submit(see_next)
                while (seen := ahead.result()) is not None:
                    ahead = worker.submit(see_next)
                    yield self.read(seen)
        finally:
            cv2.setNumThreads(before)

    def run(self, source: FrameSource, overlap: bool = True) -> Iterator[FrameResult]:
        """:meth:`stream` over a whole source, which is closed at the end."""
        try:
            yield from self.stream(source.frames(), overlap)
        finally:
            source.close()
