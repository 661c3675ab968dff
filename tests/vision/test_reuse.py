"""Reading only what changed: unchanged crops keep their reading, changed ones are read."""

from __future__ import annotations

import numpy as np

from companion.vision.classify import UNREAD, Classifications
from companion.vision.detect import Detections
from companion.vision.reuse import ReadingReuse


class CountingOracle:
    """Names a crop by its mean brightness and counts the crops it was asked to read."""

    def __init__(self):
        self.read = 0

    def classify(self, crops: np.ndarray) -> Classifications:
        self.read += len(crops)
        ids = [f"surya-{1 + int(c.mean()) // 26}" for c in crops]
        n = len(ids)
        return Classifications(ids, np.full(n, 0.9), np.zeros(n), np.zeros(n),
                               [[(i, 0.9)] for i in ids], np.ones((n, 4), np.float32))


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
