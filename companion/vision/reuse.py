"""Reading only what changed: a card lying still is not read again on every frame.

Between detection and the tracker, most cards on a table look exactly as they did a frame
ago. Reading them again costs model time and adds no evidence, so a detection keeps its
last reading while nothing has happened to it: it is in the same place (within
``match_mm``: the detector's centre wobbles by a few millimetres from frame to frame, so
the crop itself is not compared pixel for pixel), no moving hand came near it since it was
read (a card only changes under a hand), and a coarse grey thumbnail has not changed
grossly (over ``max_diff`` levels: a card turned over, a light switched). Only a sure
reading is kept (confidence at least ``keep_above``): a doubtful card is read afresh on
every frame, since the detector's wobble gives each reading a slightly different crop,
and that is evidence the tracker's vote can use. A new doubtful card is read at four
quarter turns at once; read again, it gets two more (the next two turns) averaged with its
two latest readings (``cycle_turns``; :meth:`~companion.vision.classify.CardClassifier.classify`'s
``earlier``), so its reading is still four turns' average at half the cost (the model
alone; with a deck profile the card is read afresh). Every
``refresh_frames`` frames a card is read afresh anyway (at most ``max_refresh`` cards a
frame, the longest unread first, so a full table does not come due all at once), so a slow
change cannot hide a card swapped under a steady hand. With a profile of a deck the model
knows, that reading is first one pass of the model alone (``CardClassifier.confirms``): a
card it reads as the same card, surely, keeps its reading without the profile's comparisons.
Crops under a moving hand are not read at all: the tracker
ignores them (see :class:`~companion.vision.track.TableTracker`), so they get
:data:`~companion.vision.classify.UNREAD`, or their last reading for the dashboard's labels.

With a deck profile a reading costs a few milliseconds a crop (the detail comparisons of
:mod:`companion.vision.enroll`), against a fraction of one for the model alone, and a table
with a few partly covered cards would spend most of each frame re-reading them. So a
pipeline with a profile reads at most ``max_doubtful`` unchanged doubtful cards a frame, the
longest unread first (not with a profile that names no card by itself:
:func:`~companion.vision.pipeline.doubtful_per_frame`). The others give their last reading
again, marked as no new evidence (``Classifications.evidence``): the tracker counts the card
as seen but does not vote twice with one reading. Each doubtful card is then read every few
frames, and the tracker gets as many independent readings a second as the classifier can
afford. A card read below ``patient_below`` through ``patient_after`` readings in a row
while nothing happened to it (a card half under another) has given what the detector's
wobble can give: it is read only every ``patient_frames`` frames from then on, so that it
does not take the turns of cards just laid. A hand near it, or a changed look, starts it
afresh. A card read near the bar is not made to wait: on the real-art Ganjifa film such
cards, read at 0.85-0.9, were still settling, and making every card doubtful for 8 readings
wait cost 11 of its 120 moves. After 8 low readings, the real-art Kendra Kari films asked
one question more and named one card fewer; after 16, all six films give the same events as
without. With a profile that names no card by itself (``patient_every_doubt``, see
:func:`~companion.vision.pipeline.served_reuse`) readings cannot settle a card at all, so
every card still for 16 readings waits so, whatever they say.
Tried and dropped (2026-11-27): making every doubtful card wait after 16 readings below
``keep_above`` (0.85) took the 20-card table with a profile from 2 reads a frame to 1,
but the real-art Ganjifa film asked 28 questions instead of 25. Reading a card the players
had named only every ``refresh_frames`` while its reading still ranked that name first
counted the readings that disagreed and skipped those that agreed: the real-art Kendra Kari
film asked again about its Kumancha 6 (9 questions instead of 8).

This is what lets the pipeline read new cards with test-time rotations and still keep up
with the camera.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.vision.classify import UNREAD, Classifications, ReadingRow
from companion.vision.detect import Detections

THUMB_PX = 12


@dataclass
class _Remembered:
    center_mm: np.ndarray
    thumb: np.ndarray  # float32 (THUMB_PX, THUMB_PX) grey
    row: ReadingRow
    read_at: int  # frame index of the reading
    disturbed: bool = False  # a moving hand came near it since the reading
    low_reads: int = 0  # readings in a row below ReadingReuse.patient_below, undisturbed


def _thumbs(crops: np.ndarray) -> np.ndarray:
    if not len(crops):
        return np.zeros((0, THUMB_PX, THUMB_PX), np.float32)
    n, h, w = crops.shape[:3]
    grey = cv2.cvtColor(crops.reshape(n * h, w, 3), cv2.COLOR_BGR2GRAY)
    # stacked as one tall image: one resize for the batch, borders map onto whole rows
    small = cv2.resize(grey, (THUMB_PX, n * THUMB_PX), interpolation=cv2.INTER_AREA)
    return small.reshape(n, THUMB_PX, THUMB_PX).astype(np.float32)


class ReadingReuse:
    """``classify(classifier, detections, frame_index, skip) -> Classifications``."""

    def __init__(self, match_mm: float = 6.0, max_diff: float = 30.0,
                 refresh_frames: int = 15, max_refresh: int = 3, keep_above: float = 0.85,
                 max_doubtful: int | None = None, cycle_turns: bool | None = None,
                 patient_after: int = 16, patient_frames: int = 8,
                 patient_below: float = 0.6, patient_every_doubt: bool = False):
        # cycle_turns None: only for the model alone. With a deck profile a reading is
        # mostly the profile's comparisons, and the real-art Ganjifa film lost 3 of its 120
        # moves to readings averaged over frames (117/120, 4 illegal rulings).
        self.keep_above = keep_above
        self.cycle_turns = cycle_turns
        self.match_mm = match_mm
        self.max_diff = max_diff
        self.refresh_frames = refresh_frames
        self.max_refresh = max_refresh
        self.max_doubtful = max_doubtful
        self.patient_after = patient_after
        self.patient_frames = patient_frames
        self.patient_below = patient_below
        # every doubtful reading counts as low, and waits even where no card takes turns
        # (a profile that asks about every card: see pipeline.served_reuse)
        self.patient_every_doubt = patient_every_doubt
        self.reads = 0  # crops sent to the classifier (for benchmarks and tests)
        self.confirmed = 0  # sure cards the classifier confirmed rather than read again
        self.reset()

    def reset(self) -> None:
        self._memory: list[_Remembered] = []

    def classify(self, classifier, det: Detections, frame_index: int,
                 skip: np.ndarray | None = None) -> Classifications:
        n = len(det)
        thumbs = _thumbs(det.crops)
        rows: list[ReadingRow | None] = [None] * n
        kept: list[_Remembered | None] = [None] * n
        evidence = [True] * n
        due, doubtful = [], []
        for i, old in enumerate(self._nearest(det.centers_mm)):
            if old is None:
                continue
            if skip is not None and skip[i]:
                old.disturbed = True
                rows[i], kept[i] = old.row, old  # not evidence: the tracker skips it
            elif not old.disturbed and \
                    float(np.abs(thumbs[i] - old.thumb).mean()) < self.max_diff:
                if old.row.confidence >= self.keep_above:
                    rows[i], kept[i] = old.row, old
                    if frame_index - old.read_at >= self.refresh_frames:
                        due.append((old.read_at, i))
                else:
                    rows[i], kept[i] = old.row, old
                    if self._patient(old, frame_index):
                        evidence[i] = False
                    else:
                        doubtful.append((old.read_at, i))
        due = [i for _, i in sorted(due)[:self.max_refresh]]
        held = [kept[i].row.card_id for i in due]
        for i, still in zip(due, self._confirmed(classifier, det.crops[due], held)):
            if still:
                kept[i].read_at = frame_index
            else:
                rows[i] = kept[i] = None
        doubtful.sort()
        waiting = doubtful[self.max_doubtful:] if self.max_doubtful is not None else []
        doubtful = doubtful[:self.max_doubtful]  # its turn: the longest unread first
        kept_before = {i: kept[i] for _, i in doubtful}  # read again, a turn further
        for i in kept_before:
            rows[i] = kept[i] = None
        for _, i in waiting:
            evidence[i] = False
        todo = [i for i in range(n) if rows[i] is None and not (skip is not None and skip[i])]
        timing: dict[str, float] = {}
        if todo:
            before = [kept_before.get(i) for i in todo]
            read = self._read(classifier, det.crops[todo], [b and b.row for b in before],
                              frame_index)
            timing = dict(getattr(read, "timing_ms", {}) or {})
            self.reads += len(todo)
            for j, (i, b) in enumerate(zip(todo, before)):
                rows[i] = read.row(j)
                low = 0
                if rows[i].confidence < self.patient_below or self.patient_every_doubt:
                    low = (b.low_reads if b else 0) + 1
                kept[i] = _Remembered(det.centers_mm[i], thumbs[i], rows[i], frame_index,
                                      low_reads=low)
        rows = [UNREAD if r is None else r for r in rows]
        # Only what was seen this frame is remembered: a card taken away is forgotten.
        self._memory = [m for m in kept if m is not None]
        return Classifications.from_rows(rows, timing, evidence)

    def _confirmed(self, classifier, crops: np.ndarray, held: list[str]) -> np.ndarray:
        """Which sure cards due for a fresh reading (their ``held`` names) the classifier
        confirms cheaply (``CardClassifier.confirms``): those keep their reading another
        ``refresh_frames``."""
        confirms = getattr(classifier, "confirms", None)
        if confirms is None or not held:
            return np.zeros(len(held), bool)
        still = confirms(crops, held, self.keep_above)
        self.confirmed += int(np.sum(still))
        return still

    def _patient(self, old: _Remembered, frame_index: int) -> bool:
        """A card read low for long waits for its slower turn (only where cards take turns)."""
        return ((self.max_doubtful is not None or self.patient_every_doubt)
                and old.low_reads >= self.patient_after
                and frame_index - old.read_at < self.patient_frames)

    def _read(self, classifier, crops: np.ndarray, before: list[ReadingRow | None],
              frame_index: int) -> Classifications:
        """Crops read before (``before``) are read at the frame's turns and averaged with
        their latest readings (see ``cycle_turns``); the others as the classifier reads."""
        earlier = [b.readings if b is not None else None for b in before]
        cycle = self.cycle_turns
        if cycle is None:  # see __init__
            cycle = getattr(classifier, "profile", None) is None
        if cycle and any(e is not None for e in earlier) and \
                getattr(classifier, "rotations", 1) > 1:
            return classifier.classify(crops, turn=frame_index, earlier=earlier)
        return classifier.classify(crops)

    def _nearest(self, centers_mm: np.ndarray) -> list[_Remembered | None]:
        """For each centre, the remembered card within ``match_mm`` of it (nearest)."""
        if not self._memory or not len(centers_mm):
            return [None] * len(centers_mm)
        known = np.array([m.center_mm for m in self._memory], float).reshape(-1, 2)
        d = np.linalg.norm(np.asarray(centers_mm, float)[:, None] - known[None], axis=2)
        j = np.argmin(d, axis=1)
        return [self._memory[k] if d[i, k] <= self.match_mm else None for i, k in enumerate(j)]
