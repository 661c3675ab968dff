"""Reading only what changed: unchanged crops keep their reading, changed ones are read."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from companion.vision.classify import UNREAD, Classifications, HeadOutputs
from companion.vision.detect import Detections
from companion.vision.reuse import ReadingReuse


class CountingOracle:
    """Names a crop by its mean brightness and counts the crops it was asked to read."""

    def __init__(self, confidence: float = 0.9):
        self.read = 0
        self.confidence = confidence
        self.batches: list[list[str]] = []

    def classify(self, crops: np.ndarray) -> Classifications:
        self.read += len(crops)
        ids = [f"surya-{1 + int(c.mean()) // 26}" for c in crops]
        self.batches.append(ids)
        n = len(ids)
        return Classifications(ids, np.full(n, self.confidence), np.zeros(n), np.zeros(n),
                               [[(i, self.confidence)] for i in ids],
                               np.ones((n, 4), np.float32))


def _det(centers, levels, rng) -> Detections:
    n = len(centers)
    crops = np.stack([np.clip(np.full((96, 96, 3), lv) + rng.normal(0, 2, (96, 96, 3)), 0, 255)
                      for lv in levels]).astype(np.uint8).reshape(n, 96, 96, 3)
    c = np.array(centers, float).reshape(n, 2)
    return Detections(c, c * 2, np.full(n, 40.0), np.ones(n), crops, np.ones(n))


def test_unchanged_crops_keep_their_reading_until_a_refresh():
    rng = np.random.default_rng(0)
    reuse, oracle = ReadingReuse(refresh_frames=10), CountingOracle()
    first = reuse.classify(oracle, _det([(100, 100), (200, 100)], [30, 200], rng), 0)
    assert oracle.read == 2 and first.card_ids == ["surya-2", "surya-8"]
    for f in range(1, 10):  # camera noise only, and a card nudged by a millimetre
        out = reuse.classify(oracle, _det([(100, 101), (200, 100)], [30, 200], rng), f)
        assert out.card_ids == first.card_ids and out.embeddings.shape == (2, 4)
    assert oracle.read == 2
    reuse.classify(oracle, _det([(100, 101), (200, 100)], [30, 200], rng), 10)
    assert oracle.read == 4  # read afresh after refresh_frames


def test_a_changed_crop_or_a_new_place_is_read_and_a_moving_hand_is_not():
    rng = np.random.default_rng(1)
    reuse, oracle = ReadingReuse(), CountingOracle()
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 0)
    out = reuse.classify(oracle, _det([(100, 100)], [120], rng), 1)  # another card laid there
    assert oracle.read == 2 and out.card_ids == ["surya-5"]
    reuse.classify(oracle, _det([(100, 100), (300, 300)], [120, 60], rng), 2)
    assert oracle.read == 3  # only the new place
    moving = np.array([False, True, True])
    out = reuse.classify(oracle, _det([(100, 100), (300, 300), (50, 300)], [120, 90, 90], rng),
                         3, moving)
    assert oracle.read == 3  # nothing under the hand was read
    assert out.card_ids[1] == "surya-3"  # (the last reading there, for the labels)
    row = out.row(2)  # never read: neither a card, nor a back, nor nothing
    assert (row.card_id, row.confidence, row.face_down, row.not_card) == (
        UNREAD.card_id, 0.0, 0.0, 0.0)
    reuse.reset()
    reuse.classify(oracle, _det([(100, 100)], [120], rng), 4)
    assert oracle.read == 4


def test_a_card_a_moving_hand_came_near_is_read_again_once_the_hand_has_gone():
    rng = np.random.default_rng(2)
    reuse, oracle = ReadingReuse(), CountingOracle()
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 0)
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 1, np.array([True]))
    assert oracle.read == 1
    # the same look (a similar card may have been swapped in): read again all the same
    out = reuse.classify(oracle, _det([(103, 101)], [34], rng), 2)
    assert oracle.read == 2 and out.card_ids == ["surya-2"]
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 3)
    assert oracle.read == 2  # a wobble of the detected centre is the same card


def test_doubtful_cards_are_read_on_every_frame_unless_they_must_take_turns():
    rng = np.random.default_rng(3)
    places, levels = [(100, 100), (200, 100), (300, 100)], [30, 120, 200]
    every, oracle = ReadingReuse(), CountingOracle(confidence=0.5)
    for f in range(3):
        out = every.classify(oracle, _det(places, levels, rng), f)
        assert out.evidence.all()
    assert oracle.read == 9  # each crop is new evidence while the card is doubtful

    turns, oracle = ReadingReuse(max_doubtful=1), CountingOracle(confidence=0.5)
    first = turns.classify(oracle, _det(places, levels, rng), 0)
    assert oracle.read == 3 and first.evidence.all()  # new cards are read at once
    read = []
    for f in range(1, 7):
        out = turns.classify(oracle, _det(places, levels, rng), f)
        assert out.card_ids == first.card_ids  # the others give their last reading again
        assert out.evidence.sum() == 1  # ... which is no new evidence
        read += oracle.batches[-1]
    assert read == [read[0], read[1], read[2]] * 2 and sorted(read[:3]) == sorted(
        first.card_ids)  # in turn, the longest unread first
    out = turns.classify(oracle, _det(places + [(400, 100)], levels + [90], rng), 7)
    assert oracle.batches[-1][-1] == "surya-4" and len(oracle.batches[-1]) == 2


def test_a_card_read_low_for_long_is_read_less_often_until_a_hand_comes_near():
    rng = np.random.default_rng(5)
    reuse = ReadingReuse(max_doubtful=2, patient_after=3, patient_frames=4)
    oracle = CountingOracle(confidence=0.5)
    read_on = []
    for f in range(12):
        out = reuse.classify(oracle, _det([(100, 100)], [30], rng), f)
        if out.evidence[0]:
            read_on.append(f)
    assert read_on == [0, 1, 2, 6, 10] and oracle.read == 5
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 12, np.array([True]))
    read_on = [f for f in range(13, 17)
               if reuse.classify(oracle, _det([(100, 100)], [30], rng), f).evidence[0]]
    assert read_on == [13, 14, 15]  # afresh after the hand, as a card just laid
    every = ReadingReuse(patient_after=3, patient_frames=4)  # the model alone: no turns
    near_the_bar = ReadingReuse(max_doubtful=2, patient_after=3, patient_frames=4)
    hovering = CountingOracle(confidence=0.8)
    for f in range(8):
        assert every.classify(oracle, _det([(100, 100)], [30], rng), f).evidence[0]
        assert near_the_bar.classify(hovering, _det([(100, 100)], [30], rng), f).evidence[0]



def test_with_a_profile_that_asks_about_every_card_a_still_card_waits_whatever_its_reading():
    """Readings cannot settle such a card (the players name every one): read
    ``patient_after`` times while nothing happened, it waits its turn even when every card
    is read each frame and its reading is near the bar."""
    from companion.vision.classify import ALWAYS_ASK
    from companion.vision.pipeline import served_reuse

    class Asking:
        trust_bar = ALWAYS_ASK
    rng = np.random.default_rng(5)
    reuse = served_reuse(Asking(), None)
    reuse.patient_after, reuse.patient_frames = 3, 4
    oracle = CountingOracle(confidence=0.8)
    read_on = [f for f in range(12)
               if reuse.classify(oracle, _det([(100, 100)], [30], rng), f).evidence[0]]
    assert read_on == [0, 1, 2, 6, 10] and oracle.read == 5
    assert not served_reuse(object(), None).patient_every_doubt  # the model alone: as before

class TurningOracle(CountingOracle):
    """A classifier that reads crops at quarter turns: records what it was asked."""

    rotations = 4

    def __init__(self):
        super().__init__(confidence=0.5)
        self.asked: list[tuple[int, list[bool]]] = []

    def classify(self, crops: np.ndarray, turn: int = 0, earlier=None) -> Classifications:
        self.asked.append((turn, [e is not None for e in earlier or [None] * len(crops)]))
        out = super().classify(crops)
        one = HeadOutputs(*(np.full((1, k), 0.5, np.float32) for k in (18, 12, 3, 4)))
        return replace(out, readings=[one] * len(crops))


def test_a_doubtful_card_lying_still_is_read_a_turn_further_on_top_of_its_readings():
    rng = np.random.default_rng(4)
    reuse, oracle = ReadingReuse(), TurningOracle()
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 0)
    reuse.classify(oracle, _det([(100, 100)], [30], rng), 1)
    reuse.classify(oracle, _det([(100, 100), (300, 100)], [30, 200], rng), 2)
    assert oracle.asked == [(0, [False]), (1, [True]), (2, [True, False])]  # a new card: afresh
    plain = ReadingReuse(cycle_turns=False)
    plain.classify(oracle, _det([(100, 100)], [30], rng), 0)
    plain.classify(oracle, _det([(100, 100)], [30], rng), 1)
    assert oracle.asked[-1] == (0, [False])
    oracle.profile = object()  # a deck profile's readings are not averaged over frames
    with_profile = ReadingReuse(max_doubtful=2)
    with_profile.classify(oracle, _det([(100, 100)], [30], rng), 0)
    with_profile.classify(oracle, _det([(100, 100)], [30], rng), 1)
    assert oracle.asked[-1] == (0, [False])


class ConfirmingOracle(CountingOracle):
    """Confirms a card's held reading when its crop is still as bright as that card."""

    def __init__(self):
        super().__init__()
        self.asked: list[list[str]] = []

    def confirms(self, crops: np.ndarray, card_ids: list[str], at: float) -> np.ndarray:
        self.asked.append(list(card_ids))
        return np.array([f"surya-{1 + int(c.mean()) // 26}" == cid
                         for c, cid in zip(crops, card_ids)])


def test_a_sure_card_due_for_reading_keeps_it_when_the_classifier_confirms_it_cheaply():
    rng = np.random.default_rng(6)
    reuse, oracle = ReadingReuse(refresh_frames=5), ConfirmingOracle()
    first = reuse.classify(oracle, _det([(100, 100), (200, 100)], [30, 200], rng), 0)
    for f in range(1, 11):
        out = reuse.classify(oracle, _det([(100, 100), (200, 100)], [30, 200], rng), f)
        assert out.card_ids == first.card_ids
    assert oracle.read == 2  # confirmed at frames 5 and 10, never read again
    assert oracle.asked == [first.card_ids, first.card_ids] and reuse.confirmed == 4
    # a look that changed slowly, within the thumbnail's tolerance: not confirmed, read
    out = reuse.classify(oracle, _det([(100, 100), (200, 100)], [30, 225], rng), 15)
    assert oracle.read == 3 and out.card_ids == ["surya-2", "surya-9"]
