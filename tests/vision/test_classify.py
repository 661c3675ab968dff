"""The shipped classifier: interface, deck mask, bad input, and accuracy on held-out crops.

The accuracy floors sit a little below what ``benchmarks/bench_accuracy.py`` measured (see
``models/card_classifier.md``); the crops here are rendered from seeds the model never saw.
"""

from __future__ import annotations

import json
from dataclasses import astuple
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cards import Card, DeckKind, deck_cards, suits_of
from companion.vision.classify import (
    CROP_PX,
    DEFAULT_MODEL,
    INPUT_PX,
    TOP_K,
    CardClassifier,
    Classifications,
    CropError,
    ModelError,
    _sureness,
    preprocess,
)
from companion.vision.crops import eval_crop, not_a_card
from companion.vision.track import TableTracker

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")

HELD_OUT_SEED = 1000  # training renders seeds 0-2
# The shipped model, read as served: 98.0% on 4800 held-out crops in the benchmark (98.5% /
# 99.0% on the 200 per deck drawn here). On the face-up cards of all 300 fixture scenes,
# 97.6% read with the table's deck (97.1% on the first 120 scenes, none wrong at the
# tracker's bar) and 92.4% with no deck given (91.2% on the first 120). The floors leave
# room for small retraining changes.
CARD_FLOOR = 0.95
KIND_FLOOR = 0.95
FIXTURE_SCENES = 120  # of the 300 committed scenes (every style and light appears)
FIXTURE_FLOOR = 0.95
FIXTURE_NO_DECK_FLOOR = 0.88
FIXTURE_SURE_WRONG_MAX = 1
SURE = TableTracker().min_confidence  # above it the tracker does not ask


@pytest.fixture(scope="module")
def clf() -> CardClassifier:
    return CardClassifier()


def _held_out(n: int, deck: DeckKind, seed: int) -> tuple[np.ndarray, list[Card]]:
    from companion.synth.faces import N_STYLES, render_face
    rng = np.random.default_rng(seed)
    cards = deck_cards(deck)
    poses, lights = ("flat", "skewed", "overlapped"), ("even", "dim", "warm", "shadow")
    crops, truth = [], []
    for i in range(n):
        card = cards[int(rng.integers(len(cards)))]
        face = render_face(card, i % N_STYLES, HELD_OUT_SEED + int(rng.integers(20)), 112)
        other = render_face(cards[int(rng.integers(len(cards)))], i % N_STYLES, 0, 112)
        crops.append(eval_crop(face, poses[i % 3], lights[(i // 3) % 4], rng, [other]))
        truth.append(card)
    return np.stack(crops), truth


def test_model_is_small_and_its_card_describes_it():
    assert DEFAULT_MODEL.stat().st_size <= 5_000_000
    card = json.loads(DEFAULT_MODEL.with_suffix(".json").read_text())
    assert card["classes"]["kinds"] == ["card", "face_down", "not_card"]
    assert card["input"]["shape"][1:] == [3, 64, 64]
    assert "never shared/decks" in card["training"]["data"]
    assert DEFAULT_MODEL.with_suffix(".md").is_file()


def test_classifications_are_parallel_arrays(clf):
    crops, _ = _held_out(7, DeckKind.MUGHAL, seed=1)
    res = clf.classify(crops)
    assert isinstance(res, Classifications) and len(res) == 7
    for arr in (res.confidence, res.face_down, res.not_card):
        assert arr.shape == (7,) and arr.dtype == np.float32
        assert ((arr >= 0) & (arr <= 1)).all()
    assert res.embeddings.shape[0] == 7 and len(res.topk) == 7
    assert all(len(t) == TOP_K for t in res.topk)
    assert all(t[0][1] >= t[1][1] >= t[2][1] for t in res.topk)
    assert {"preprocess", "inference", "decode"} <= set(res.timing_ms)


def test_only_crops_read_unsurely_are_read_again_turned():
    crops, _ = _held_out(6, DeckKind.MUGHAL, seed=3)
    noise = np.random.default_rng(3).integers(0, 255, (2, CROP_PX, CROP_PX, 3), dtype=np.uint8)
    crops = np.concatenate([crops, noise])
    once = CardClassifier(rotations=1).heads(crops)[0]
    always = CardClassifier(rotations=4, reread_below=1.0).heads(crops)[0]
    clf = CardClassifier(rotations=4, reread_below=0.95)
    batches = []
    run = clf.session.run
    clf.session = type("Spy", (), {"run": lambda self, *a: batches.append(
        len(a[1]["crops"])) or run(*a)})()
    mixed = clf.heads(crops)[0]
    unsure = np.flatnonzero(_sureness(once) < 0.95)
    sure = np.setdiff1d(np.arange(len(crops)), unsure)
    assert 0 < len(unsure) < len(crops)
    assert batches == [len(crops), 3 * len(unsure)]
    for got, one, four in zip(astuple(mixed), astuple(once), astuple(always)):
        assert np.allclose(got[sure], one[sure], atol=1e-5)
        assert np.allclose(got[unsure], four[unsure], atol=1e-5)


def test_a_crop_read_again_gets_two_turns_and_is_averaged_with_its_two_latest():
    crops, _ = _held_out(4, DeckKind.MUGHAL, seed=5)
    clf = CardClassifier(rotations=4, reread_below=1.0, turns_again=2)
    batches = []
    run = clf.session.run
    clf.session = type("Spy", (), {"run": lambda self, *a: batches.append(
        len(a[1]["crops"])) or run(*a)})()
    before = clf.classify(crops).readings  # every crop at its four quarter turns
    assert batches == [4, 12] and all(len(r.kind) == 4 for r in before)
    earlier = [before[0], None, before[2], None]
    out = clf.classify(crops, turn=1, earlier=earlier)
    # crops 0 and 2 at turns 1 and 3, in the first pass; 1 and 3 at all four turns
    assert batches[2:] == [4 + 2, 2 * 3]
    for i in (0, 2):
        got, old = out.readings[i], before[i]
        assert len(got.kind) == 4
        for now, was in zip(astuple(got), astuple(old)):
            assert np.allclose(now, was[[2, 3, 1, 3]], atol=1e-6)  # the newest four
        suit, rank, kind = (a.mean(axis=0) for a in (got.suit, got.rank, got.kind))
        probs = (suit[:, None] * rank[None, :]).ravel() * kind[0]  # the four turns' average
        assert out.confidence[i] == pytest.approx(probs.max(), abs=1e-5)
    for i in (1, 3):
        for now, was in zip(astuple(out.readings[i]), astuple(before[i])):
            assert np.allclose(now, was, atol=1e-6)


def test_an_empty_batch_is_fine(clf):
    res = clf.classify(np.zeros((0, 96, 96, 3), np.uint8))
    assert len(res) == 0 and res.embeddings.shape[0] == 0


def test_deck_mask_restricts_suits():
    crops, _ = _held_out(12, DeckKind.DASHAVATARA, seed=2)
    res = CardClassifier(deck=DeckKind.MUGHAL).classify(crops)
    allowed = {s.value for s in suits_of(DeckKind.MUGHAL)}
    for top in res.topk:
        assert all(cid.rpartition("-")[0] in allowed for cid, _ in top)


def test_bad_crops_and_missing_model_give_clear_errors(clf, tmp_path):
    with pytest.raises(CropError, match="uint8 BGR"):
        clf.classify(np.zeros((2, 96, 96), np.uint8))
    with pytest.raises(CropError):
        clf.classify(np.zeros((2, 96, 96, 3), np.float32))
    with pytest.raises(ModelError, match="companion train"):
        CardClassifier(tmp_path / "none.onnx")


def test_preprocess_accepts_any_crop_size():
    big = np.random.default_rng(0).integers(0, 255, (3, 130, 130, 3), dtype=np.uint8)
    x = preprocess(big)
    assert x.shape == (3, 3, 64, 64) and x.dtype == np.float32 and x.max() <= 255


def test_the_batched_resize_of_detector_crops_equals_resizing_each_crop_alone():
    crops = np.random.default_rng(1).integers(0, 255, (5, CROP_PX, CROP_PX, 3), dtype=np.uint8)
    one_by_one = np.stack([cv2.resize(c, (INPUT_PX, INPUT_PX), interpolation=cv2.INTER_AREA)
                           for c in crops]).transpose(0, 3, 1, 2)
    assert np.array_equal(preprocess(crops), one_by_one.astype(np.float32))


@pytest.mark.parametrize("deck", list(DeckKind))
def test_held_out_card_accuracy_is_above_the_floor(deck):
    crops, truth = _held_out(200, deck, seed=10 + len(deck.value))
    res = CardClassifier(deck=deck).classify(crops)
    right = sum(cid == card.id for cid, card in zip(res.card_ids, truth))
    assert right / len(truth) >= CARD_FLOOR, f"{right}/{len(truth)} right"


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"


@pytest.mark.skipif(not (FIXTURES / "index.json").is_file(), reason="no fixture scenes")
def test_fixture_scene_cards_are_read_above_the_floor(clf):
    """Face-up cards at least 70% visible in the committed held-out scenes, cut from the
    frame at their true table position (as the detector cuts them). Each scene holds one
    deck, and a game's deck is known, so they are read as served: with their deck's mask.
    Read with no deck given, they must still clear a lower floor."""
    from companion.vision.crops import crop_from_scene
    crops, truth = [], []
    for js in sorted(FIXTURES.glob("scene_*.json"))[:FIXTURE_SCENES]:
        d = json.loads(js.read_text())
        img = cv2.imread(str(FIXTURES / d["image"]))
        for c in d["cards"]:
            if c["face_up"] and c["visible_fraction"] >= 0.7:
                crops.append(crop_from_scene(img, d, c))
                truth.append(c["card_id"])
    crops = np.stack(crops)
    no_deck = clf.classify(crops).card_ids
    right = sum(a == b for a, b in zip(no_deck, truth))
    assert right / len(truth) >= FIXTURE_NO_DECK_FLOOR, f"no deck given: {right}/{len(truth)}"
    right = sure_wrong = 0
    for deck in DeckKind:
        idx = [i for i, t in enumerate(truth) if Card.parse(t).deck is deck]
        res = CardClassifier(deck=deck).classify(crops[idx])
        for j, i in enumerate(idx):
            right += res.card_ids[j] == truth[i]
            sure_wrong += res.card_ids[j] not in (None, truth[i]) and res.confidence[j] >= SURE
    assert right / len(truth) >= FIXTURE_FLOOR, f"{right}/{len(truth)} right"
    assert sure_wrong <= FIXTURE_SURE_WRONG_MAX


def test_face_down_and_not_a_card_are_recognised(clf):
    from companion.synth.faces import N_STYLES, render_back, render_face
    rng = np.random.default_rng(4)
    backs = np.stack([eval_crop(render_back(i % N_STYLES, HELD_OUT_SEED + i, 112), "flat",
                                "even", rng) for i in range(60)])
    faces = [render_face(c, 0, HELD_OUT_SEED, 112) for c in deck_cards(DeckKind.MUGHAL)[::8]]
    empty = np.stack([not_a_card(rng, faces) for _ in range(60)])
    rb, re_ = clf.classify(backs), clf.classify(empty)
    assert np.mean([c is None for c in rb.card_ids]) >= KIND_FLOOR
    assert np.mean(rb.face_down > 0.5) >= KIND_FLOOR
    assert np.mean([c is None for c in re_.card_ids]) >= KIND_FLOOR


def test_classifier_never_imports_torch_or_training_code():
    import subprocess
    import sys
    code = ("import sys, numpy as np; from companion.vision.classify import CardClassifier; "
            "CardClassifier().classify(np.zeros((1, 96, 96, 3), np.uint8)); "
            "sys.exit(1 if any(m.split('.')[0] in ('torch', 'onnx') or "
            "m.startswith('companion.train') for m in sys.modules) else 0)")
    run = subprocess.run([sys.executable, "-c", code], check=False, cwd=Path(__file__).parents[2])
    assert run.returncode == 0


def test_reading_with_rotations_does_not_depend_on_a_quarter_turn_of_the_crop():
    crops, _ = _held_out(6, DeckKind.MUGHAL, seed=5)
    four = CardClassifier(deck=DeckKind.MUGHAL, rotations=4, reread_below=1.0)  # turn them all
    a = four.classify(crops)
    b = four.classify(np.ascontiguousarray(np.rot90(crops, 1, axes=(1, 2))))
    assert a.card_ids == b.card_ids
    assert np.allclose(a.confidence, b.confidence, atol=1e-4)
    one = CardClassifier(deck=DeckKind.MUGHAL, rotations=1).classify(crops)
    assert not np.allclose(one.confidence, a.confidence)  # it does read four crops
    with pytest.raises(ValueError, match="rotations"):
        CardClassifier(rotations=3)
