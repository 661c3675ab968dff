"""The whole pipeline on drawn frames, with a colour oracle standing in for the model."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest
from table_drawing import PALETTE, DrawnCard, render

from companion.layouts import load_layout
from companion.vision.classify import ALWAYS_ASK, Classifications
from companion.vision.cores import HALF_THE_CORES
from companion.vision.pipeline import DOUBTFUL_PER_FRAME, STAGES, Pipeline
from companion.vision.source import FakeSource, Frame, SourceError
from companion.vision.track import TableTracker

LAYOUT = load_layout("kendra-kari")
POS = {z.id: z.center_mm for z in LAYOUT.zones}
NAMES = {PALETTE[0]: "surya-3", PALETTE[1]: "kurma-raja", PALETTE[2]: "barat-9"}




class ColourOracle:
    """Test-only: the drawn cards differ by pip colour, so the colour names the card."""

    def __init__(self, names: dict | None = None):
        self.calls = 0
        self.names = names or NAMES

    def classify(self, crops: np.ndarray) -> Classifications:
        self.calls += 1
        ids, conf = [], []
        for crop in crops:
            px = crop[30:66, 30:66].reshape(-1, 3).astype(int)
            coloured = px[(px.max(1) - px.min(1)) > 60]
            if len(coloured) < 20:
                ids.append(None)
                conf.append(0.9)
                continue
            med = np.median(coloured, axis=0)
            best = min(self.names, key=lambda c: np.abs(np.array(c) - med).sum())
            ids.append(self.names[best])
            conf.append(0.97)
        n = len(ids)
        return Classifications(ids, np.array(conf), np.zeros(n),
                                     np.array([0.9 if i is None else 0.0 for i in ids]),
                                     [[(i, c)] if i else [] for i, c in zip(ids, conf)])


def _frames() -> list[np.ndarray]:
    a = DrawnCard(POS["pos1"], PALETTE[0])
    b = DrawnCard(POS["pos2"], PALETTE[1])
    frames = [render([], seed=1).image] * 3
    frames += [render([a], seed=1, noise_seed=k).image for k in range(8)]
    # a hand reaches in, lays card b, moves away (moving over the ring)
    for k, tip in enumerate([(520, 300), (450, 220), (400, 170), (430, 230)]):
        frames.append(render([a, b] if k >= 2 else [a], hand_mm=tip, seed=1,
                             noise_seed=20 + k).image)
    frames += [render([a, b], seed=1, noise_seed=30 + k).image for k in range(8)]
    frames += [render([b], seed=1, noise_seed=40 + k).image for k in range(12)]
    return frames


def test_pipeline_turns_frames_into_events_with_stage_timings():
    oracle = ColourOracle()
    pipe = Pipeline(oracle, TableTracker(LAYOUT, stable_frames=4, remove_frames=5))
    results = list(pipe.run(FakeSource(_frames(), fps=10)))
    assert all(r.calibrated for r in results)
    events = [(e.kind, e.card_id, e.zone) for r in results for e in r.events]
    assert events == [("appeared", "surya-3", "pos1"), ("appeared", "kurma-raja", "pos2"),
                      ("removed", "surya-3", "pos1"), ("cleared", None, "pos1")]
    first = next(e for r in results for e in r.events)
    assert first.first_frame >= 3 and first.last_frame - first.first_frame == 3
    t = results[-1].timings
    assert set(t.as_dict()) == set(STAGES) | {"total"}
    assert t.total > 0 and t.detect > 0
    assert any(r.motion > 0 for r in results[11:15])  # the hand was seen
    # unchanged crops keep their reading: the model ran on a few frames, not all 35
    assert 0 < oracle.calls < len(results) // 2
    assert pipe.reuse.reads >= oracle.calls


def test_reading_every_crop_afresh_gives_the_same_events():
    def events(reuse: bool):
        oracle = ColourOracle()
        pipe = Pipeline(oracle, TableTracker(LAYOUT, stable_frames=4, remove_frames=5),
                        reuse_readings=reuse)
        out = [(e.kind, e.card_id, e.zone, e.last_frame) for r in pipe.run(
            FakeSource(_frames(), fps=10)) for e in r.events]
        return out, oracle.calls
    fresh, calls = events(False)
    assert calls == len(_frames())
    assert events(True)[0] == fresh


def test_doubtful_cards_take_turns_only_when_read_with_a_profile_that_names_cards():
    class ProfileOracle(ColourOracle):
        profile = "a deck profile"  # its readings cost milliseconds a crop

    class AskingProfileOracle(ProfileOracle):
        trust_bar = ALWAYS_ASK  # names no card by itself: every card is doubtful

    assert Pipeline(ColourOracle()).reuse.max_doubtful is None
    assert Pipeline(ProfileOracle()).reuse.max_doubtful == DOUBTFUL_PER_FRAME
    # every card of a trick taking turns, a card laid on a named one went unseen
    assert Pipeline(AskingProfileOracle()).reuse.max_doubtful is None


def test_a_classifier_that_asks_for_surer_readings_gets_questions_not_cards():
    """A profile of art the model never saw raises the tracker's bar (``trust_bar``): the
    oracle's 0.97 readings, cards at the tracker's own bar, are then only candidates."""
    class Demanding(ColourOracle):
        trust_bar = 0.98

    def kinds(oracle):
        pipe = Pipeline(oracle, TableTracker(LAYOUT, stable_frames=4, remove_frames=5))
        return pipe.tracker, [(e.kind, e.card_id) for r in pipe.run(
            FakeSource(_frames(), fps=10)) for e in r.events]
    tracker, plain = kinds(ColourOracle())
    assert tracker.min_confidence == 0.8 and ("appeared", "surya-3") in plain
    assert not tracker.keep_pictures
    tracker, demanding = kinds(Demanding())
    assert tracker.min_confidence == 0.98 and tracker.resolve_confidence == 0.98
    # its doubtful readings of a card laid on a named one may be the readings the named
    # card was asked about on: whether another card lies there is told by the crops
    assert tracker.keep_pictures
    assert [k for k, _ in demanding if k != "cleared"] == ["unsure", "unsure", "removed"]
    assert all(card is None for _, card in demanding)


def test_pipeline_waits_for_the_mat():
    blank = np.full((720, 1280, 3), 90, np.uint8)
    pipe = Pipeline(ColourOracle(), TableTracker(LAYOUT, stable_frames=2))
    frames = [blank, blank] + [render([DrawnCard(POS["pos7"], PALETTE[2])], seed=k).image
                               for k in range(4)]
    results = list(pipe.run(FakeSource(frames)))
    assert [r.calibrated for r in results] == [False, False, True, True, True, True]
    assert [(e.kind, e.card_id) for r in results for e in r.events] == [("appeared", "barat-9")]


def test_pipeline_reports_a_bumped_camera():
    still = render([], seed=2).image
    bumped = render([], seed=2, shift=(30.0, 0.0)).image
    pipe = Pipeline(ColourOracle(), drift_interval_s=1.0)
    frames = [still] * 3 + [bumped] * 15
    drifts = [r.drift for r in pipe.run(FakeSource(frames, fps=10)) if r.drift]
    assert any(d.drifted and d.drift_mm > 10 for d in drifts)
    assert cv2.norm(pipe.calibration.homography) > 0


def _outcome(results) -> list:
    return [(r.frame_index, r.calibrated, r.classifications.card_ids if r.classifications else
             None, [(e.kind, e.card_id, e.zone, e.last_frame) for e in r.events],
             r.detections.centers_mm.round(3).tolist(), round(r.motion, 6)) for r in results]


def test_seeing_the_next_frame_while_reading_this_one_changes_no_result():
    seen_on, read_on, opencv_threads = set(), set(), set()

    class Recording(Pipeline):
        def see(self, frame):
            seen_on.add(threading.get_ident())
            opencv_threads.add(cv2.getNumThreads())
            return super().see(frame)

        def read(self, seen):
            read_on.add(threading.get_ident())
            return super().read(seen)

    frames = list(FakeSource(_frames(), fps=10).frames())

    def results(overlap: bool):
        pipe = Recording(ColourOracle(), TableTracker(LAYOUT, stable_frames=4, remove_frames=5))
        return list(pipe.stream(iter(frames), overlap))
    own = cv2.getNumThreads()
    alone = results(False)
    assert seen_on == read_on == {threading.get_ident()} and opencv_threads == {own}
    opencv_threads.clear()
    overlapped = results(True)
    assert len(seen_on) == 2 and read_on == {threading.get_ident()}  # a second thread saw
    # each half has half the cores, and OpenCV its own count again afterwards
    assert opencv_threads == {HALF_THE_CORES} and cv2.getNumThreads() == own
    assert _outcome(overlapped) == _outcome(alone)
    assert [r.frame_index for r in overlapped] == list(range(len(frames)))
    assert all(r.image is f.image for r, f in zip(overlapped, frames))


class _BrokenSource:
    """Three frames, then the camera fails."""

    def __init__(self):
        self.closed = False
        self.taken = 0

    def frames(self):
        for i in range(3):
            self.taken += 1
            yield Frame(i, i / 10, render([], seed=1).image)
        raise SourceError("camera 0 stopped delivering frames")

    def close(self):
        self.closed = True


def test_a_source_failing_while_the_next_frame_is_seen_stops_the_run_with_its_error():
    source = _BrokenSource()
    got = []
    with pytest.raises(SourceError, match="stopped delivering"):
        for r in Pipeline(ColourOracle()).run(source):
            got.append(r.frame_index)
    assert got == [0, 1, 2] and source.closed


def test_a_run_stopped_early_closes_its_source_and_leaves_no_thread():
    def seeing() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("pipeline-see")]
    source = _BrokenSource()
    run = Pipeline(ColourOracle()).run(source)
    assert next(run).frame_index == 0
    assert seeing()  # the next frame is being seen meanwhile
    run.close()
    assert source.closed and source.taken <= 2
    assert not seeing()
