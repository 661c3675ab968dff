"""Tracker: temporal voting, removal, zones, the motion gate and unsure readings."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from track_show import LAYOUT, POS, Reading, frame, run, still_and_hand_over

from companion.vision.detect import Detections
from companion.vision.motion import MotionGate, MotionMap
from companion.vision.track import TableTracker


def test_a_card_appears_only_once_it_is_stable():
    tr = TableTracker(LAYOUT, stable_frames=5)
    seen = [(POS["pos1"], Reading("surya-7"))]
    assert run(tr, [seen] * 4) == []
    (ev,) = run(tr, [seen], start=4)
    assert (ev.kind, ev.card_id, ev.zone) == ("appeared", "surya-7", "pos1")
    assert (ev.first_frame, ev.last_frame) == (0, 4)
    assert ev.confidence == pytest.approx(0.99)
    assert run(tr, [seen] * 10, start=5) == []  # no repeats while it lies there
    assert tr.table == {"pos1": ["surya-7"]}


def test_a_reading_given_again_keeps_the_card_seen_but_does_not_vote_twice():
    tr = TableTracker(LAYOUT, stable_frames=3)
    read = [(POS["pos1"], Reading("surya-7"))]
    again = [(POS["pos1"], Reading("surya-7", evidence=False))]
    assert run(tr, [read] + [again] * 10) == []  # one reading, however often it is given
    # The card was not lost meanwhile: two more readings make three, and it appears.
    (ev,) = run(tr, [read, again, read], start=11)
    assert (ev.kind, ev.card_id, ev.last_frame) == ("appeared", "surya-7", 13)


def test_flicker_and_jitter_make_no_events():
    tr = TableTracker(LAYOUT, stable_frames=5)
    frames = []
    for k in range(30):
        cards = [((POS["pos2"][0] + (k % 3) - 1, POS["pos2"][1]), Reading("barat-raja"))]
        if k % 7 == 3:  # a one-frame ghost somewhere else
            cards.append(((150.0, 380.0), Reading("phul-2")))
        if k % 5 == 2:  # a missed detection
            cards = cards[1:]
        frames.append(cards)
    events = run(tr, frames)
    assert [(e.kind, e.card_id) for e in events] == [("appeared", "barat-raja")]


def test_removal_and_zone_cleared():
    tr = TableTracker(LAYOUT, stable_frames=3, remove_frames=4)
    both = [(POS["pos1"], Reading("surya-1")), (POS["pos7"], Reading("chandra-5"))]
    run(tr, [both] * 5)
    events = run(tr, [[both[1]]] * 6, start=5)
    kinds = [(e.kind, e.card_id, e.zone) for e in events]
    assert kinds == [("removed", "surya-1", "pos1"), ("cleared", None, "pos1")]
    assert events[0].last_frame == 8  # the 4th frame without it


def test_a_hand_over_the_cards_is_not_a_removal():
    tr = TableTracker(LAYOUT, stable_frames=3, remove_frames=3)
    card = [(POS["pos3"], Reading("ghulam-vizier"))]
    run(tr, [card] * 5)
    mask = np.zeros((252, 356), bool)
    x, y = (np.array(POS["pos3"]) * 0.6).astype(int)
    mask[y - 30:y + 30, x - 30:x + 30] = True
    hand = MotionMap.of(mask, 0.6)
    still = MotionMap.still(mask.shape, 0.6)
    # 20 frames where the card is hidden under a moving hand: nothing is decided
    assert run(tr, [[]] * 20, start=5, motion=[hand] * 20) == []
    # and readings seen through the hand (fingers over the art) do not count either
    wrong = [(POS["pos3"], Reading("phul-3"))]
    assert run(tr, [wrong] * 10, start=25, motion=[hand] * 10) == []
    assert run(tr, [card] * 5, start=35, motion=[still] * 5) == []
    assert tr.table == {"pos3": ["ghulam-vizier"]}


def test_low_confidence_becomes_unsure_with_candidates_never_a_card():
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=0.8)
    top = (("kurma-9", 0.55), ("kurma-6", 0.30), ("varaha-9", 0.1))
    card = [(POS["pos4"], Reading("kurma-9", conf=0.55, topk=top))]
    events = run(tr, [card] * 12)
    assert [e.kind for e in events] == ["unsure"]
    assert events[0].card_id is None
    assert [c for c, _ in events[0].candidates] == ["kurma-9", "kurma-6", "varaha-9"]
    assert events[0].needed == 0.8  # what it would have taken (the referee may know more)
    assert tr.table == {}
    gone = run(tr, [[]] * 10, start=12)  # taken away: still no name given to it
    assert [(e.kind, e.card_id) for e in gone] == [("removed", None), ("cleared", None)]


def test_a_doubtful_card_taken_away_before_it_settled_is_asked_about_not_dropped():
    """A trick gathered while its doubtful cards still took turns to be read: each card
    read often enough to be voted on is asked about as it goes; a glimpse is not."""
    tr = TableTracker(LAYOUT, stable_frames=4)
    top = (("kurma-9", 0.55), ("kurma-6", 0.30))
    doubtful = (POS["pos4"], Reading("kurma-9", conf=0.55, topk=top))
    glimpse = (POS["pos2"], Reading("matsya-3", conf=0.6))
    events = run(tr, [[doubtful]] * 4 + [[doubtful, glimpse]] * 2)
    assert events == []  # still making up its mind (as many frames again to settle)
    events = run(tr, [[]] * 6, start=6)
    assert [(e.kind, e.card_id, e.zone) for e in events] == [("unsure", None, "pos4")]
    assert [c for c, _ in events[0].candidates] == ["kurma-9", "kurma-6"]
    assert (events[0].first_frame, events[0].last_frame) == (0, 5)
    assert tr.table == {}
    # read on every other frame only (its turns): it lay long enough all the same
    waiting = (POS["pos4"], replace(doubtful[1], evidence=False))
    events = run(tr, [[doubtful], [waiting]] * 3 + [[]] * 6, start=12)
    assert [(e.kind, e.zone) for e in events] == [("unsure", "pos4")]
    events = run(tr, [[doubtful], [waiting], [waiting]] + [[]] * 6, start=30)
    assert events == []  # three frames: a glimpse


def test_disagreeing_readings_are_unsure():
    tr = TableTracker(LAYOUT, stable_frames=4)
    frames = [[(POS["pos5"], Reading("matsya-3" if k % 2 else "matsya-8"))] for k in range(12)]
    events = run(tr, frames)
    assert events and all(e.kind == "unsure" for e in events)


def test_a_card_laid_on_another_covers_it():
    tr = TableTracker(LAYOUT, stable_frames=3)
    run(tr, [[(POS["pos6"], Reading("cheng-2"))]] * 4)
    events = run(tr, [[(POS["pos6"], Reading("cheng-vizier"))]] * 4, start=4)
    assert [(e.kind, e.card_id, e.covers) for e in events] == [
        ("appeared", "cheng-vizier", "cheng-2")]


def test_a_doubt_about_a_card_read_surely_says_which_card_lay_there():
    """The referee's ruling a-doubt-over-a-laid-card-is-asked rests on this."""
    tr = TableTracker(LAYOUT, stable_frames=3)
    run(tr, [[(POS["pos6"], Reading("cheng-2"))]] * 4)
    doubt = Reading("cheng-9", conf=0.5, topk=(("cheng-9", 0.5), ("cheng-8", 0.3)))
    events = run(tr, [[(POS["pos6"], doubt)]] * 8, start=4)
    assert [(e.kind, e.covers) for e in events] == [("unsure", "cheng-2")]


def test_an_event_says_since_when_its_card_lay_there():
    tr = TableTracker(LAYOUT, stable_frames=3)
    doubtful = [[(POS["pos2"], Reading("surya-4", conf=0.3))]] * 2  # doubtful at first
    sure = [[(POS["pos2"], Reading("surya-4"))]] * 3
    (ev,) = run(tr, doubtful + sure, start=10)
    assert ev.kind == "appeared" and (ev.since, ev.first_frame, ev.last_frame) == (10, 12, 14)
    # a card laid on it later: since its own readings began, not since the spot's first card
    (on_top,) = run(tr, [[(POS["pos2"], Reading("surya-5"))]] * 3, start=40)
    assert (on_top.card_id, on_top.covers, on_top.since) == ("surya-5", "surya-4", 40)


def test_face_down_cards_are_tracked_without_a_name():
    tr = TableTracker(LAYOUT, stable_frames=3)
    events = run(tr, [[(POS["stock"], Reading(None, face_down=True))]] * 4)
    assert [(e.kind, e.card_id, e.zone) for e in events] == [("appeared", None, "stock")]
    assert tr.table == {}


def test_a_face_read_as_a_back_more_often_than_not_is_asked_about():
    """Ruling *a-face-is-no-back*: three readings in five of a back and two of a face are
    a doubt about the face, not a back (which the referee lets be). Four in five, or backs
    read unsurely with no face among the readings, are a back."""
    tr = TableTracker(LAYOUT, stable_frames=5)
    back, face = Reading(None, face_down=True), Reading("cheng-10", conf=0.9)
    events = run(tr, [[(POS["pos7"], r)] for r in [back, face, back, back, face] * 3])
    assert [(e.kind, e.zone, e.candidates[0][0]) for e in events] == [
        ("unsure", "pos7", "cheng-10")]
    tr.reset()
    events = run(tr, [[(POS["stock"], back)]] * 4 + [[(POS["stock"], face)]] + [
        [(POS["stock"], back)]] * 4)
    assert [(e.kind, e.card_id) for e in events] == [("appeared", None)]
    tr.reset()
    dim = Reading(None, conf=0.6, face_down=True)
    events = run(tr, [[(POS["stock"], r)] for r in [back, dim] * 8])
    assert [(e.kind, e.card_id) for e in events] == [("appeared", None)]


def test_a_back_read_surely_as_a_face_with_no_hand_near_is_that_face_laid_then():
    """Ruling *no-back-turns-by-itself*: a card read as a back, then surely as one face
    with no hand near since, is that face, laid when the back was first seen (a dim Cheng
    vizier read as a back, then as itself). Unsure readings of a face leave the back be."""
    tr = TableTracker(LAYOUT, stable_frames=5)
    still, _ = still_and_hand_over("pos2")
    back = [[(POS["pos2"], Reading(None, face_down=True))]]
    (ev,) = run(tr, back * 6, start=10, motion=[still] * 6)
    assert (ev.kind, ev.card_id, ev.since) == ("appeared", None, 10)
    unsure = [[(POS["pos2"], Reading("cheng-vizier", conf=0.85))]]
    assert run(tr, unsure * 10, start=16, motion=[still] * 10) == []
    face = [[(POS["pos2"], Reading("cheng-vizier", conf=0.99))]]
    (ev,) = run(tr, face * 6, start=26, motion=[still] * 6)
    assert (ev.kind, ev.card_id, ev.zone, ev.since) == ("appeared", "cheng-vizier", "pos2", 10)
    assert tr.table == {"pos2": ["cheng-vizier"]}
    # a face that is no misread back: read surely as another with no hand near, it stays
    assert run(tr, [[(POS["pos2"], Reading("cheng-9", conf=0.99))]] * 8, start=32,
               motion=[still] * 8) == []
    assert tr.table == {"pos2": ["cheng-vizier"]}


def test_a_face_first_read_a_while_after_a_back_there_was_laid_when_it_was_read():
    """Ruling *a-back-in-a-hand*: a drawn card carried face down over a position is read as
    a back for a few frames; the hand then hides the spot until the next player's card is
    laid there. That card was laid when it was first read, not when the back was: the
    referee asks which hand was near then. A back read just before (a card landing, read
    as a back for a frame or two) does not move when the card was laid."""
    tr = TableTracker(LAYOUT, stable_frames=5, remove_frames=8)
    back = [(POS["pos5"], Reading(None, face_down=True, conf=0.8))]
    face = [(POS["pos5"], Reading("surya-3", conf=0.95))]
    still, hand = still_and_hand_over("pos5")
    frames = [back] * 3 + [[]] * 15 + [face] * 6
    motion = [still] * 3 + [hand] * 15 + [still] * 6
    (ev,) = run(tr, frames, start=100, motion=motion)
    assert (ev.kind, ev.card_id, ev.since, ev.first_frame) == ("appeared", "surya-3", 118, 118)
    tr.reset()
    frames = [back] * 2 + [[]] * 3 + [face] * 6
    (ev,) = run(tr, frames, start=100, motion=[still] * 2 + [hand] * 3 + [still] * 6)
    assert (ev.card_id, ev.since) == ("surya-3", 100)


def test_mismatched_inputs_are_an_error():
    det, _ = frame([(POS["pos1"], Reading("surya-7"))])
    _, cls = frame([])
    with pytest.raises(ValueError, match="1 detections but 0 classifications"):
        TableTracker().update(0, 0.0, det, cls)


def test_motion_gate_sees_movement_and_a_resting_hand_but_not_cards():
    gate = MotionGate(px_per_mm=0.6)
    view = np.full((252, 356, 3), 200, np.uint8)
    assert not gate.update(view).mask.any()
    moved = view.copy()
    moved[100:140, 200:260] = 40  # something arrives
    m = gate.update(moved)
    assert m.near(np.array([[230 / 0.6, 120 / 0.6]]), 10)[0]
    assert not m.near(np.array([[50.0, 50.0]]), 10)[0]
    for _ in range(5):  # it rests there: still marked (a hand over the table)
        m = gate.update(moved)
    assert m.near(np.array([[230 / 0.6, 120 / 0.6]]), 10)[0]
    # a card laid and detected is not a hand, and leaves no ghost when it is taken away
    card = view.copy()
    cv2.circle(card, (80, 80), 20, (30, 60, 200), -1)
    det = Detections(np.array([[80 / 0.6, 80 / 0.6]]), np.zeros((1, 2)), np.ones(1),
                     np.ones(1), np.zeros((1, 96, 96, 3), np.uint8), np.ones(1))
    gate.update(card, det)
    for _ in range(3):
        m = gate.update(card, det)
    assert not m.near(np.array([[80 / 0.6, 80 / 0.6]]), 10)[0]
    gate.update(view)
    m = gate.update(view)
    assert not m.near(np.array([[80 / 0.6, 80 / 0.6]]), 10)[0]


def test_motion_gate_sees_a_resting_hand_in_dim_light(monkeypatch):
    """In a dim room a hand differs from the mat by less than the background threshold,
    unless the view is brightened like the detector's."""
    def rested(gate: MotionGate) -> bool:
        view = np.full((252, 356, 3), 70, np.uint8)  # a dim mat
        gate.update(view)
        hand = view.copy()
        hand[100:150, 180:260] = 48  # a dark hand arrives, then rests
        for _ in range(8):
            m = gate.update(hand)
        return bool(m.near(np.array([[220 / 0.6, 125 / 0.6]]), 10)[0])

    assert rested(MotionGate(px_per_mm=0.6))
    monkeypatch.setattr(MotionGate, "_brightened", lambda self, gray: gray)
    assert not rested(MotionGate(px_per_mm=0.6))  # why the view is brightened


def test_a_settled_card_keeps_its_name_through_doubtful_readings_of_it():
    tr = TableTracker(LAYOUT, stable_frames=4)
    run(tr, [[(POS["pos2"], Reading("kalki-2"))]] * 5)
    # a hand beside it spoils the readings, but kalki-2 still ranks first: no event
    blurred = (("kalki-2", 0.39), ("kalki-1", 0.19), ("varaha-1", 0.06))
    doubt = [[(POS["pos2"], Reading("kalki-1", conf=0.2, topk=blurred))]] * 12
    assert run(tr, doubt, start=5) == []
    assert tr.table == {"pos2": ["kalki-2"]}
    # doubtful readings that rank another card first are a change: the players are asked
    other = (("kalki-1", 0.5), ("kalki-2", 0.2))
    events = run(tr, [[(POS["pos2"], Reading("kalki-1", conf=0.5, topk=other))]] * 12, start=17)
    assert [e.kind for e in events] == ["unsure"]


def test_a_card_no_hand_came_near_is_not_doubted_by_readings_of_another():
    """A card does not change by itself: readings that rank another card first, doubtfully
    or surely, count only once a hand has come near the card since it was read surely."""
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=0.9)  # a profile of new art
    still, hand = still_and_hand_over("pos3")
    sure = [[(POS["pos3"], Reading("kumancha-6", conf=0.91))]]
    assert [e.kind for e in run(tr, sure * 5, motion=[still] * 5)] == ["appeared"]
    other = (("kumancha-8", 0.83), ("kumancha-6", 0.14))
    misread = [[(POS["pos3"], Reading("kumancha-8", conf=0.83, topk=other))]]
    assert run(tr, misread * 12, start=5, motion=[still] * 12) == []
    assert tr.table == {"pos3": ["kumancha-6"]}
    # a hand over it, then the same doubtful readings: now it may be another card
    run(tr, [[]] * 2, start=17, motion=[hand] * 2)
    events = run(tr, misread * 12, start=19, motion=[still] * 12)
    assert [e.kind for e in events] == ["unsure"]
    assert events[0].candidates[0][0] == "kumancha-8"
    # read surely as itself again, it is settled (undisturbed) once more
    tr.reset()
    run(tr, sure * 5, motion=[still] * 5)
    run(tr, [[]] * 2, start=5, motion=[hand] * 2)
    run(tr, sure * 4, start=7, motion=[still] * 4)
    assert run(tr, misread * 12, start=11, motion=[still] * 12) == []
    # nor do sure ones (no-card-without-a-hand)
    assert run(tr, [[(POS["pos3"], Reading("kumancha-8", conf=0.97))]] * 8, start=23,
               motion=[still] * 8) == []
    assert tr.table == {"pos3": ["kumancha-6"]}


def test_a_doubted_card_needs_stronger_readings_to_be_named_later():
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=0.8, resolve_confidence=0.9)
    top = (("chandra-10", 0.79), ("chandra-9", 0.06))
    run(tr, [[(POS["pos6"], Reading("chandra-10", conf=0.79, topk=top))]] * 10)
    hovering = [[(POS["pos6"], Reading("chandra-10", conf=0.85))]] * 10
    assert run(tr, hovering, start=10) == []  # enough at first, not after a doubt
    sure = run(tr, [[(POS["pos6"], Reading("chandra-10", conf=0.95))]] * 5, start=20)
    assert [(e.kind, e.card_id) for e in sure] == [("appeared", "chandra-10")]


def test_a_card_laid_on_an_unsure_one_is_a_new_card_not_its_name():
    tr = TableTracker(LAYOUT, stable_frames=4)
    top = (("kalki-3", 0.6), ("varaha-3", 0.09))
    run(tr, [[(POS["pos1"], Reading("kalki-3", conf=0.6, topk=top))]] * 10)
    new = run(tr, [[(POS["pos1"], Reading("parashurama-10", conf=0.85))]] * 5, start=10)
    assert [(e.kind, e.card_id, e.resolves) for e in new] == [
        ("appeared", "parashurama-10", False)]
    # a doubt that settles on one of its own candidates names that card
    tr.reset()
    run(tr, [[(POS["pos1"], Reading("kalki-3", conf=0.6, topk=top))]] * 10)
    named = run(tr, [[(POS["pos1"], Reading("varaha-3", conf=0.85))]] * 5, start=10)
    assert [(e.kind, e.card_id, e.resolves) for e in named] == [("appeared", "varaha-3", True)]


def test_a_card_the_players_named_holds_its_name_until_another_is_laid_on_it():
    """A deck no reading is sure of (enrolled live): each card is asked about, and the
    players' answer is its name. A second card of the same suit laid on it, read first
    among the cards asked about before, is a new card to ask about, not the same doubt."""
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=1.001)  # classify.ALWAYS_ASK
    still, hand = still_and_hand_over("pos2")
    first = (("kalki-7", 0.6), ("kalki-2", 0.3), ("kalki-4", 0.1))
    lying = [[(POS["pos2"], Reading("kalki-7", conf=0.6, topk=first))]]
    (asked,) = run(tr, lying * 12, motion=[still] * 12)
    assert (asked.kind, asked.candidates[0][0]) == ("unsure", "kalki-7")
    # the players: it is the 2 (its readings rank the 7 first)
    tr.name(asked.track_id, "kalki-2", asked.last_frame)
    assert run(tr, lying * 12, start=12, motion=[still] * 12) == []
    assert tr.table == {"pos2": ["kalki-2"]}
    # a hand passes over it, and its readings still rank the 7 first: it is the 2 still
    run(tr, [[]] * 2, start=24, motion=[hand] * 2)
    assert run(tr, lying * 12, start=26, motion=[still] * 12) == []
    assert tr.table == {"pos2": ["kalki-2"]}
    # a hand lays the 4 of the suit on it
    run(tr, [[]] * 2, start=38, motion=[hand] * 2)
    second = (("kalki-4", 0.7), ("kalki-7", 0.2), ("kalki-2", 0.1))
    laid = [[(POS["pos2"], Reading("kalki-4", conf=0.7, topk=second))]]
    events = run(tr, laid * 12, start=40, motion=[still] * 12)
    assert [(e.kind, e.candidates[0][0]) for e in events] == [("unsure", "kalki-4")]
    assert events[0].since >= 40
    tr.name(events[0].track_id, "kalki-4", events[0].last_frame)
    gone = run(tr, [[]] * 10, start=52)  # taken away with the trick, under its name
    assert [(e.kind, e.card_id) for e in gone] == [("removed", "kalki-4"), ("cleared", None)]


def test_a_late_answer_names_only_the_card_it_was_asked_about():
    tr = TableTracker(LAYOUT, stable_frames=4, min_confidence=1.001)
    first = (("kalki-7", 0.6), ("kalki-2", 0.3))
    (asked,) = run(tr, [[(POS["pos2"], Reading("kalki-7", conf=0.6, topk=first))]] * 12)
    # another card is laid on it and asked about before the players answer the first
    on_top = (("vamana-raja", 0.9), ("kurma-raja", 0.1))
    (again,) = run(tr, [[(POS["pos2"], Reading("vamana-raja", conf=0.9, topk=on_top))]] * 12,
                   start=12)
    assert again.track_id == asked.track_id and again.last_frame > asked.last_frame
    tr.name(asked.track_id, "kalki-2", asked.last_frame)
    tr.name(99, "kalki-3", 20)  # a track long gone
    run(tr, [[(POS["pos2"], Reading("vamana-raja", conf=0.9, topk=on_top))]], start=24)
    assert tr.table == {}  # still unnamed: the answer was about the card beneath
    tr.name(again.track_id, "vamana-raja", again.last_frame)
    run(tr, [[(POS["pos2"], Reading("vamana-raja", conf=0.9, topk=on_top))]], start=25)
    assert tr.table == {"pos2": ["vamana-raja"]}


def test_a_card_seen_as_two_tracks_is_not_removed_while_one_still_holds_it():
    """The detector's circle for one card can jump between two spots (a card laid a little
    off the one beneath): the spot farther off becomes a second track of the same card.
    Each card exists once, so the first track going is no card taken away."""
    tr = TableTracker(LAYOUT, stable_frames=3, remove_frames=4)
    here = (POS["pos3"], Reading("surya-vizier"))
    there = ((POS["pos3"][0] + 30.0, POS["pos3"][1]), Reading("surya-vizier"))
    events = run(tr, [[here]] * 5 + [[here, there]] * 5 + [[there]] * 8)
    assert [e.kind for e in events] == ["appeared", "appeared"]
    # a card taken away for good still goes
    assert [e.kind for e in run(tr, [[]] * 6, start=18)] == ["removed", "cleared"]


def test_a_doubt_begun_before_a_card_went_unseen_for_long_does_not_date_the_next_card():
    """Ruling *a-doubt-lapses-unseen*: a hand comes and goes, the card is read in doubt
    for four frames, then hands keep the spot covered for 40 frames, and the next card is
    read there, in doubt too. It was laid when its readings began, not when that doubt began: on a
    three-player 2011-book film the Shamsher 3 "lay" on Position 2 from before the new
    phase's two cards, and the phase was judged illegal."""
    tr = TableTracker(LAYOUT, stable_frames=5, remove_frames=8)
    old = [(POS["pos2"], Reading("cheng-5", conf=0.95))]
    doubt = [(POS["pos2"], Reading("cheng-4", conf=0.55, topk=(("cheng-4", 0.55),
                                                               ("cheng-3", 0.3))))]
    new = [(POS["pos2"], Reading("shamsher-3", conf=0.5, topk=(("shamsher-3", 0.5),
                                                               ("shamsher-2", 0.3))))]
    still, hand = still_and_hand_over("pos2")
    frames = [old] * 6 + [[]] + [doubt] * 4 + [[]] * 40 + [new] * 8
    motion = [still] * 6 + [hand] + [still] * 4 + [hand] * 40 + [still] * 8
    events = run(tr, frames, start=100, motion=motion)
    assert [(e.kind, e.card_id) for e in events] == [("appeared", "cheng-5"), ("unsure", None)]
    assert events[1].since >= 150  # (its readings began at 151; the doubt at 110)
