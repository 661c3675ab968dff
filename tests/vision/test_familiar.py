"""Telling a deck whose art the model knows from one it never saw (vision.familiar)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_pipeline import LAYOUT, ColourOracle, _frames

from companion.cards import DeckKind, deck_cards
from companion.vision.classify import ALWAYS_ASK, DEFAULT_MODEL, CardClassifier, Classifications
from companion.vision.crops import eval_crop
from companion.vision.familiar import ArtFamiliarity
from companion.vision.pipeline import Pipeline
from companion.vision.source import FakeSource
from companion.vision.track import TableTracker

MUGHAL_DIR = Path(__file__).resolve().parents[3] / "shared" / "decks" / "pysol-mughal-ganjifa-xl"


def _read(conf: list[float], ids: list[str | None] | None = None,
          evidence: list[bool] | None = None) -> Classifications:
    n = len(conf)
    ids = ids if ids is not None else ["surya-3"] * n
    return Classifications(ids, np.array(conf, np.float32), np.zeros(n), np.zeros(n),
                           [[] for _ in range(n)],
                           evidence=np.array(evidence if evidence is not None else [], bool))


def test_the_verdict_comes_once_when_enough_cards_were_read():
    watch = ArtFamiliarity(bar=0.8, min_readings=10, unfamiliar_below=0.25)
    assert watch.update(_read([0.9] * 2 + [0.3] * 7)) is None  # 9 readings: too few
    verdict = watch.update(_read([0.3] * 3))
    assert verdict is not None and not verdict.familiar
    assert (verdict.readings, verdict.sure) == (12, 2) and verdict.share == pytest.approx(1 / 6)
    assert verdict.words() == ("the model does not know this deck's art (sure of 2 of the "
                               "first 12 card readings)")
    assert watch.update(_read([0.99] * 50)) is None  # the verdict stands
    assert watch.verdict == verdict
    watch.reset()
    assert watch.update(_read([0.99] * 10)).familiar


def test_backs_blanks_and_readings_given_again_are_not_counted():
    watch = ArtFamiliarity(bar=0.8, min_readings=4)
    # a face-down card or no card has no card id; a doubtful card waiting its turn gives
    # its last reading again (evidence False): neither says how surely cards are read
    assert watch.update(_read([0.9, 0.2, 0.2, 0.2], ids=[None, None, "surya-3", "surya-3"],
                              evidence=[True, True, True, False])) is None
    assert watch.readings == 1
    verdict = watch.update(_read([0.9, 0.9, 0.1]))
    assert (verdict.readings, verdict.sure, verdict.familiar) == (4, 2, True)


class Guessing(ColourOracle):
    """Reads the drawn cards right, unsurely for its first ``doubtful`` calls and surely
    after: like the model on art it never saw, which is now and then sure of a card."""

    may_not_know_the_art = True

    def __init__(self, doubtful: int):
        super().__init__()
        self.doubtful = doubtful

    def classify(self, crops):
        c = super().classify(crops)
        if self.calls <= self.doubtful:
            c.confidence[:] = np.minimum(c.confidence, 0.5)
        return c


def _events(oracle, familiarity=None):
    pipe = Pipeline(oracle, TableTracker(LAYOUT, stable_frames=4, remove_frames=5),
                    familiarity=familiarity)
    results = list(pipe.run(FakeSource(_frames(), fps=10)))
    return pipe, results, [(e.kind, e.card_id) for r in results for e in r.events]


def test_on_art_the_model_does_not_know_no_card_is_taken_on_its_word():
    """The same readings, the pipeline watching how surely cards are read or not: the sure
    readings that follow a run of guesses name a card only when nobody watches."""
    pipe, _, blind = _events(Guessing(doubtful=14), ArtFamiliarity(min_readings=10**9))
    assert pipe.tracker.min_confidence == 0.8
    assert ("appeared", "kurma-raja") in blind
    pipe, results, watched = _events(Guessing(doubtful=14), ArtFamiliarity(min_readings=8))
    verdicts = [r.art for r in results if r.art is not None]
    assert len(verdicts) == 1 and not verdicts[0].familiar and verdicts[0].sure == 0
    assert pipe.tracker.min_confidence == ALWAYS_ASK
    assert watched and all(card is None for _, card in watched)
    assert "unsure" in {k for k, _ in watched}


def test_the_model_alone_is_watched_and_a_sure_reader_keeps_its_bar():
    class Sure(ColourOracle):
        may_not_know_the_art = True

    pipe, results, events = _events(Sure())
    assert pipe.familiarity is not None and pipe.familiarity.min_readings == 60
    assert Pipeline(ColourOracle()).familiarity is None  # a stand-in that does not say so
    pipe, results, events = _events(Sure(), ArtFamiliarity(min_readings=8))
    assert [r.art.familiar for r in results if r.art is not None] == [True]
    assert pipe.tracker.min_confidence == 0.8 and ("appeared", "kurma-raja") in events


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
@pytest.mark.skipif(not MUGHAL_DIR.is_dir(), reason="no ../shared/decks")
def test_the_shipped_model_knows_our_art_and_not_a_real_deck():
    """80 camera crops of our own art and of the PySolFC Mughal deck (art the model never
    saw), read 20 a frame as the pipeline does."""
    import cv2

    from companion.synth.faces import N_STYLES, render_face
    from companion.vision.enroll import read_manifest
    clf = CardClassifier(deck=DeckKind.MUGHAL)
    assert clf.may_not_know_the_art
    rng = np.random.default_rng(5)
    cards = deck_cards(DeckKind.MUGHAL)
    ours = [render_face(cards[int(rng.integers(len(cards)))], i % N_STYLES, 1000 + i, 112)
            for i in range(80)]
    rows = [(f, c) for f, c in read_manifest(MUGHAL_DIR / "manifest.csv") if c != "back"]
    theirs = [cv2.imread(str(MUGHAL_DIR / rows[int(rng.integers(len(rows)))][0]),
                         cv2.IMREAD_UNCHANGED) for _ in range(80)]

    def verdict(faces):
        watch = ArtFamiliarity()
        crops = np.stack([eval_crop(f, ("flat", "skewed")[i % 2], ("even", "dim")[i // 2 % 2],
                                    rng) for i, f in enumerate(faces)])
        out = [watch.update(clf.classify(crops[s:s + 20])) for s in range(0, len(crops), 20)]
        return next(v for v in out if v is not None)

    ours_v, theirs_v = verdict(ours), verdict(theirs)
    assert ours_v.familiar and ours_v.share > 0.6
    assert not theirs_v.familiar and theirs_v.share < 0.1


def test_new_art_is_judged_again_on_the_readings_that_follow():
    watch = ArtFamiliarity(bar=0.8, min_readings=10, recheck_readings=20, familiar_above=0.5)
    assert not watch.update(_read([0.3] * 10)).familiar
    assert watch.update(_read([0.9] * 9 + [0.3] * 11)) is None  # 9 of 20: still new
    assert watch.update(_read([0.9] * 19)) is None
    again = watch.update(_read([0.9]))  # 20 of the last 20
    assert again.familiar and again.again and (again.readings, again.sure) == (20, 20)
    assert "sure of 20 of the last 20" in again.words()
    assert watch.update(_read([0.1] * 500)) is None  # trusted again, for good


def test_a_table_first_seen_badly_is_trusted_again_when_its_readings_are_sure():
    """The guessing reader turns sure after 14 calls: with a recheck after 10 readings the
    pipeline lowers its bar back to the tracker's own, and the later card is taken."""
    pipe, results, events = _events(Guessing(doubtful=14),
                                    ArtFamiliarity(min_readings=8, recheck_readings=10))
    verdicts = [(r.art.familiar, r.art.again) for r in results if r.art is not None]
    assert verdicts == [(False, False), (True, True)]
    assert (pipe.tracker.min_confidence, pipe.tracker.resolve_confidence) == (0.8, 0.9)
    assert ("appeared", "kurma-raja") in events
