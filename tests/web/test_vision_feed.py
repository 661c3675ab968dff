"""The dashboard's seeing feed: a frame is seen on a second thread while the one before is
read and judged, and a camera still follows the game set up on the dashboard."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import cv2
import numpy as np

from companion.cards import DeckKind
from companion.vision.classify import Classifications
from companion.vision.source import ImageFolderSource
from companion.web.vision_feed import VisionFeed

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from table_drawing import PALETTE, DrawnCard, render


class NothingSeen:
    """Reads every crop as "not a card"; no ``frame`` attribute, so the feed reads ahead."""

    def classify(self, crops: np.ndarray) -> Classifications:
        n = len(crops)
        return Classifications([None] * n, np.full(n, 0.9), np.zeros(n), np.full(n, 0.9),
                               [[] for _ in range(n)])


def test_a_camera_feed_reads_ahead_and_follows_the_game_set_up(tmp_path):
    for k in range(10):
        cards = [DrawnCard((300.0 + 10 * k, 200.0), PALETTE[0])] if k >= 3 else []
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render(cards, seed=1, noise_seed=k).image)
    decks, asked_on = [], []

    def stages(video, deck):
        decks.append(deck)
        return NothingSeen(), None

    def game_set_up():  # asked frame by frame: the game is set up from frame 4 on
        asked_on.append(threading.get_ident())
        return (7, "kendra-kari", 4, {}, None) if len(asked_on) > 4 else None

    feed = VisionFeed(str(tmp_path), stages=stages)
    feed.game_provider = game_set_up
    items = list(feed.items())
    want = [f.image for f in ImageFolderSource(tmp_path).frames()]
    assert [i.index for i in items] == list(range(10))
    assert all(np.array_equal(i.frame, w) for i, w in zip(items, want))
    assert all(i.calibrated for i in items)
    assert decks == [None, DeckKind.MUGHAL]  # the pipeline was set up again for the game
    assert feed.referee is not None and feed.referee.game == "kendra-kari"
    assert [bool(i.zones_px) for i in items] == [False] * 4 + [True] * 6  # its zones shown
    assert asked_on and threading.get_ident() not in asked_on  # asked on the seeing thread
