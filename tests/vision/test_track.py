"""Tracker: temporal voting, removal, zones, the motion gate and unsure readings."""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import pytest

from companion.layouts import load_layout
from companion.vision.classify import Classifications
from companion.vision.detect import Detections
from companion.vision.motion import MotionGate, MotionMap
from companion.vision.track import TableTracker

LAYOUT = load_layout("kendra-kari")
POS = {z.id: z.center_mm for z in LAYOUT.zones}


@dataclass(frozen=True)
class Reading:
    """What the classifier says about one card (an oracle built in the test)."""

    card: str | None
    conf: float = 0.99
    face_down: bool = False
    topk: tuple = ()
    evidence: bool = True  # False: a reading given again (companion.vision.reuse)




def frame(cards: list[tuple[tuple[float, float], Reading]]) -> tuple[Detections, Classifications]:
    n = len(cards)
    centers = np.array([c for c, _ in cards], float).reshape(n, 2)
    det = Detections(centers, centers * 2, np.full(n, 60.0), np.ones(n),
                     np.zeros((n, 96, 96, 3), np.uint8), np.ones(n))
    cls = Classifications(
        [None if r.face_down else r.card for _, r in cards],
        np.array([r.conf for _, r in cards]),
        np.array([0.99 if r.face_down else 0.0 for _, r in cards]),
        np.array([0.0 if (r.face_down or r.card) else 0.99 for _, r in cards]),
        [list(r.topk or ((r.card, r.conf),)) if r.card else [] for _, r in cards],
        evidence=np.array([r.evidence for _, r in cards], bool))
    return det, cls


def still_and_hand_over(zone: str, px: float = 0.5) -> tuple[MotionMap, MotionMap]:
    """Motion maps of a still table, and of a hand over ``zone``."""
    mask = np.zeros((300, 400), bool)
    x, y = (np.asarray(POS[zone]) * px).astype(int)
    mask[y - 10:y + 10, x - 10:x + 10] = True
    return MotionMap.still(mask.shape, px), MotionMap.of(mask, px)


def run(tracker: TableTracker, frames: list, start: int = 0, motion=None) -> list:
    events = []
    for k, cards in enumerate(frames):
        det, cls = frame(cards)
        m = motion[k] if motion is not None else None
        events += tracker.update(start + k, (start + k) / 30, det, cls, m)
    return events


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
    """A card does not change by itself: readings that rank another card first, doubtfully,
    ask the players only once a hand has come near the card since it was read surely."""
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


def test_a_doubtful_card_a_hand_hides_for_a_second_is_asked_about_at_once():
    """A resting hand covered a card still being read (0.85 against a 0.9 bar) until its
    trick was gathered: the referee must hear of it before, or it refuses the next card."""
    from companion.vision.track import HIDDEN_FRAMES
    tr = TableTracker(LAYOUT, stable_frames=5, min_confidence=0.9)
    still, hand = still_and_hand_over("pos3")
    doubt = Reading("buddha-1", conf=0.85, topk=(("buddha-1", 0.85), ("buddha-4", 0.1)))
    assert run(tr, [[(POS["pos3"], doubt)]] * 8, motion=[still] * 8) == []  # still in doubt
    hidden = run(tr, [[]] * (HIDDEN_FRAMES + 20), start=8, motion=[hand] * (HIDDEN_FRAMES + 20))
    assert [(e.kind, e.candidates[0][0], e.since, e.last_frame) for e in hidden] == [
        ("unsure", "buddha-1", 0, 7)]
    gone = run(tr, [[]] * 10, start=HIDDEN_FRAMES + 28, motion=[still] * 10)
    assert [(e.kind, e.card_id) for e in gone] == [("removed", None), ("cleared", None)]
    # hidden for less than that, it is read again once the hand has gone
    tr.reset()
    run(tr, [[(POS["pos3"], doubt)]] * 8, motion=[still] * 8)
    assert run(tr, [[]] * (HIDDEN_FRAMES - 1), start=8, motion=[hand] * (HIDDEN_FRAMES - 1)) == []


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
    from companion.vision import track_views
    first, _ = _pictures()
    rng = np.random.default_rng(9)
    noise = cv2.GaussianBlur(rng.uniform(0, 255, (96, 96)).astype(np.float32), (0, 0), 3)
    other = cv2.cvtColor(cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8),
                         cv2.COLOR_GRAY2BGR)
    assert track_views.likeness(other, first) < track_views.OTHER_CARD
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
