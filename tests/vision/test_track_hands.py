"""Tracker: hands over cards, and what a card's crops tell of what the hand did (a card
laid on another, or the same card, untouched; see companion.vision.track_views)."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from track_show import LAYOUT, POS, Reading, frame, run, still_and_hand_over

from companion.vision.motion import MotionMap
from companion.vision.track import TableTracker


def seen_as(tr: TableTracker, reading: Reading, crop: np.ndarray, n: int, start: int,
            motion: MotionMap, zone: str = "pos1") -> list:
    """``n`` frames of one card on ``zone``, read as ``reading``, its crop ``crop``."""
    events = []
    for k in range(n):
        det, cls = frame([(POS[zone], reading)])
        events += tr.update(start + k, (start + k) / 30, replace(det, crops=crop[None]), cls,
                            motion)
    return events


def _pictures() -> tuple[np.ndarray, np.ndarray]:
    """Two crops of cards alike as two number cards of one suit are (a likeness between
    the bars of track_views.unlike)."""
    rng = np.random.default_rng(4)
    base = cv2.GaussianBlur(rng.uniform(0, 255, (96, 96)).astype(np.float32), (0, 0), 3)
    other = cv2.GaussianBlur(rng.uniform(0, 255, (96, 96)).astype(np.float32), (0, 0), 3)
    a = cv2.normalize(base, None, 0, 255, cv2.NORM_MINMAX)
    b = cv2.normalize(base + 0.75 * other, None, 0, 255, cv2.NORM_MINMAX)
    return tuple(cv2.cvtColor(x.astype(np.uint8), cv2.COLOR_GRAY2BGR) for x in (a, b))


def _another_card() -> np.ndarray:
    """A crop of a card unlike the first of ``_pictures`` (under track_views.OTHER_CARD)."""
    from companion.vision import track_views
    rng = np.random.default_rng(9)
    noise = cv2.GaussianBlur(rng.uniform(0, 255, (96, 96)).astype(np.float32), (0, 0), 3)
    other = cv2.cvtColor(cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8),
                         cv2.COLOR_GRAY2BGR)
    assert track_views.likeness(other, _pictures()[0]) < track_views.OTHER_CARD
    return other


@pytest.mark.parametrize("hidden_frames, laid", [(40, "another"), (40, "the same"),
                                                 (10, "another")])
def test_a_named_card_hidden_long_under_a_hand_is_asked_about_unless_it_looks_the_same(
        hidden_frames, laid):
    """A bridge's sweep kept a hand over Position 1 for 56 frames: its card was taken away
    and another of the suit laid there, read as the first had been. A card hidden that long
    is held to look the same (track_views.SAME_CARD), not merely not unlike."""
    from companion.vision import track_views
    first, second = _pictures()
    like = track_views.likeness(second, first)
    assert track_views.OTHER_CARD < like < track_views.SAME_CARD
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=1.001, keep_pictures=True)
    still, hand = still_and_hand_over("pos1")
    reading = Reading("kalki-7", conf=0.6, topk=(("kalki-7", 0.6), ("kalki-2", 0.3)))

    (asked,) = seen_as(tr, reading, first, 12, 0, still)
    tr.name(asked.track_id, "kalki-2", asked.last_frame)
    assert seen_as(tr, reading, first, 8, 12, still) == []
    run(tr, [[]] * hidden_frames, start=20, motion=[hand] * hidden_frames)
    events = seen_as(tr, reading, second if laid == "another" else first, 12,
                     20 + hidden_frames, still)
    if laid == "another" and hidden_frames > 30:
        assert [(e.kind, e.covers) for e in events] == [("unsure", "kalki-2")]
    else:
        assert events == [] and tr.table == {"pos1": ["kalki-2"]}


def test_a_doubtful_card_a_hand_comes_over_is_asked_about_at_once():
    """A resting hand covered a card still being read (0.85 against a 0.9 bar) until its
    trick was gathered: the referee must hear of it before, or it refuses the next card.
    Ruling *doubt-before-the-next-hand*: a doubt already begun is asked as the hand comes
    (the hand may lay another card on it, as a Deni's 2 on its raja); a card not yet read
    often enough to doubt is asked about once a hand has hidden it for a second."""
    from companion.vision.track import HIDDEN_FRAMES
    tr = TableTracker(LAYOUT, stable_frames=5, min_confidence=0.9)
    still, hand = still_and_hand_over("pos3")
    doubt = Reading("buddha-1", conf=0.85, topk=(("buddha-1", 0.85), ("buddha-4", 0.1)))
    assert run(tr, [[(POS["pos3"], doubt)]] * 8, motion=[still] * 8) == []  # still in doubt
    hidden = run(tr, [[]], start=8, motion=[hand])
    assert [(e.kind, e.candidates[0][0], e.since, e.last_frame) for e in hidden] == [
        ("unsure", "buddha-1", 0, 7)]
    run(tr, [[]] * HIDDEN_FRAMES, start=9, motion=[hand] * HIDDEN_FRAMES)
    gone = run(tr, [[]] * 10, start=HIDDEN_FRAMES + 9, motion=[still] * 10)
    assert [(e.kind, e.card_id) for e in gone] == [("removed", None), ("cleared", None)]
    # read every other frame (taking turns with other cards): no doubt yet, so it is read
    # again once a hand hiding it for less than a second has gone
    tr.reset()
    turns = [[(POS["pos3"], replace(doubt, evidence=k % 2 == 0))] for k in range(8)]
    assert run(tr, turns, motion=[still] * 8) == []
    assert run(tr, [[]] * (HIDDEN_FRAMES - 1), start=8, motion=[hand] * (HIDDEN_FRAMES - 1)) == []
    tr.reset()
    run(tr, turns, motion=[still] * 8)
    hidden = run(tr, [[]] * (HIDDEN_FRAMES + 5), start=8, motion=[hand] * (HIDDEN_FRAMES + 5))
    assert [(e.kind, e.candidates[0][0]) for e in hidden] == [("unsure", "buddha-1")]


def test_a_card_laid_on_another_is_dated_from_when_its_doubt_began_not_its_last_votes():
    """A doubtful card laid on a settled one, read for a few frames, then hidden under a
    resting hand before its doubt settled: it was laid before that hand came, not when its
    votes were at last enough. Dated by its last votes, it went after the next player's
    card, and the referee inferred draws nobody made."""
    tr = TableTracker(LAYOUT, stable_frames=5)
    still, hand = still_and_hand_over("pos6")
    doubt = Reading("kumancha-7", conf=0.6, topk=(("kumancha-7", 0.6), ("kumancha-2", 0.3)))
    sure = [(POS["pos6"], Reading("cheng-2"))]
    run(tr, [sure] * 6, motion=[still] * 6)
    shown = [[]] * 4 + [[(POS["pos6"], doubt)]] * 4 + [[]] * 20 + [[(POS["pos6"], doubt)]] * 6
    motion = [hand] * 4 + [still] * 4 + [hand] * 20 + [still] * 6
    (ev,) = run(tr, shown, start=6, motion=motion)
    assert (ev.kind, ev.covers) == ("unsure", "cheng-2")
    assert 10 <= ev.since < 14 and ev.last_frame > 34  # the resting hand came at frame 14


@pytest.mark.parametrize("laid", ["another", "the same"])
def test_a_card_laid_on_a_named_one_and_read_as_it_is_asked_about(laid):
    """The players named the card as the reader reads it (the 2 of Shamsher, read 0.54);
    a hand then lays the 1 on it, read as the 2 again (0.45). Only its crops tell: unlike
    the card before the hand came, it is asked about at once. A hand passing over the same
    card asks nothing."""
    first, other = _pictures()[0], _another_card()
    tr = TableTracker(LAYOUT, stable_frames=4, keep_pictures=True)
    still, hand = still_and_hand_over("pos1")
    reading = Reading("shamsher-2", conf=0.5, topk=(("shamsher-2", 0.5), ("shamsher-3", 0.2)))

    (asked,) = seen_as(tr, reading, first, 12, 0, still)
    tr.name(asked.track_id, "shamsher-2", asked.last_frame)
    assert seen_as(tr, reading, first, 8, 12, still) == []
    run(tr, [[]] * 4, start=20, motion=[hand] * 4)  # a hand lays a card there, or passes
    events = seen_as(tr, reading, other if laid == "another" else first, 12, 24, still)
    if laid == "another":
        assert [(e.kind, e.covers) for e in events] == [("unsure", "shamsher-2")]
        assert 20 <= events[0].since <= 24  # laid by the hand there at frames 20-23
    else:
        assert events == [] and tr.table == {"pos1": ["shamsher-2"]}


@pytest.mark.parametrize("read", ["doubtful", "sure"])
@pytest.mark.parametrize("laid", ["another", "the same"])
def test_readings_after_a_hand_passed_change_the_card_only_when_the_crops_show_another(
        laid, read):
    """Ruling *alike-after-the-hand*: a card read surely, a hand over it, then readings of
    another card. Its crops as before the hand came: the same card, untouched (the hard
    films asked 13 such questions; a profile read a Barat 7 surely as the 1, 0.99 like
    itself). Unlike them: a card laid on it, asked about or, read surely, named."""
    first, other = _pictures()[0], _another_card()
    tr = TableTracker(LAYOUT, stable_frames=4, keep_pictures=True)
    still, hand = still_and_hand_over("pos1")
    sure = Reading("shamsher-2", conf=0.99)
    assert [e.kind for e in seen_as(tr, sure, first, 8, 0, still)] == ["appeared"]
    run(tr, [[]] * 4, start=8, motion=[hand] * 4)
    conf = 0.6 if read == "doubtful" else 0.97
    after = Reading("shamsher-3", conf=conf, topk=(("shamsher-3", conf), ("shamsher-2", 0.02)))
    events = seen_as(tr, after, other if laid == "another" else first, 12, 12, still)
    if laid == "another":
        kind = "unsure" if read == "doubtful" else "appeared"
        assert [(e.kind, e.covers) for e in events] == [(kind, "shamsher-2")]
    else:
        assert events == [] and tr.table == {"pos1": ["shamsher-2"]}
