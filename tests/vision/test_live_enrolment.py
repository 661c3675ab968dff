"""A deck enrolled from the camera's own crops (the dashboard's live enrolment)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from companion.cards import DeckKind, deck_cards
from companion.synth.faces import render_face
from companion.vision.classify import (
    ALWAYS_ASK,
    DEFAULT_MODEL,
    KNOWN_ART,
    UNKNOWN_ART_BAR,
    CardClassifier,
)
from companion.vision.crops import GENTLE, place_card
from companion.vision.enroll import card_crop, enroll_images, load_profile, save_profile
from companion.vision.match import polar_templates
from companion.vision.track import TableTracker

pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")


def _camera_crops(style: int = 2, seed: int = 4) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {c.id: place_card(render_face(c, style, 1, 112), rng, GENTLE)
            for c in deck_cards(DeckKind.MUGHAL)[:12]}


def test_a_crop_the_detector_cut_is_enrolled_as_it_is():
    """Live enrolment keeps the detector's crops, the disc spanning the square. Searched for
    their largest circle like photos, some were cut again inside the card (at a border
    ring), and the profile learnt the card at the wrong scale."""
    crops = _camera_crops()
    recut = [cid for cid, c in crops.items() if not np.array_equal(card_crop(c), c)]
    assert recut, "no crop here that the photo path cuts again: the test shows nothing"
    profile = enroll_images(crops, "live", CardClassifier(), cut=True)
    assert np.allclose(profile.templates,
                       polar_templates(np.stack([crops[c] for c in profile.card_ids])))
    assert profile.from_camera



def test_a_suit_named_court_first_is_turned_onto_one_of_its_number_cards():
    """At the table the first card named of a suit is often the court that led a trick,
    and the suit's cards were turned onto the first one named: number cards do not line
    up on a court's figure. The reference is now the number card the others match best,
    whatever the order the players named them in."""
    crops = _camera_crops()
    model = CardClassifier()
    court_first = dict(sorted(crops.items(), key=lambda kv: not kv[0].endswith("raja")))
    assert next(iter(court_first)) == "surya-raja"
    refs = set()
    for order in (crops, court_first, dict(reversed(list(crops.items())))):
        profile = enroll_images(order, "live", model, cut=True)
        assert sorted(profile.card_ids) == sorted(crops)
        refs.add(profile.card_ids[0])
    assert len(refs) == 1, refs
    assert refs.pop().rpartition("-")[2].isdigit()

def test_unfamiliar_art_enrolled_from_the_camera_names_no_card_by_itself(tmp_path):
    """Such a profile's readings are all put to the players (classify.ALWAYS_ASK), best
    guess first; the same cards enrolled from pictures keep the unknown-art bar."""
    crops = _camera_crops()
    clf = CardClassifier()
    live = enroll_images(crops, "live", clf, cut=True)
    save_profile(dataclasses.replace(live, model_agreement=0.0), tmp_path / "live.npz")
    live = load_profile(tmp_path / "live.npz")  # from_camera survives the file
    assert live.from_camera and live.model_agreement < KNOWN_ART
    reader = CardClassifier(profile=live)
    assert reader.trust_bar == ALWAYS_ASK > 1.0
    res = reader.classify(np.stack(list(crops.values())))
    assert res.confidence.max() < ALWAYS_ASK
    assert sum(a == t for a, t in zip(res.card_ids, crops)) >= 6  # a useful first guess
    tracker = TableTracker()
    tracker.raise_bar(reader.trust_bar)
    assert tracker.min_confidence == ALWAYS_ASK
    pictures = dataclasses.replace(live, from_camera=False)
    assert CardClassifier(profile=pictures).trust_bar == UNKNOWN_ART_BAR


def test_our_own_deck_enrolled_from_the_camera_is_read_by_the_model():
    """The model knows our printed art. Camera crops of it, each scanned under its own blur
    and light, only add noise to the model's reading, so such a profile reads with the model
    (within the enrolled cards): its image comparisons do not change a reading."""
    crops = _camera_crops(style=6)
    clf = CardClassifier()
    live = enroll_images(crops, "live", clf, cut=True)
    assert live.model_agreement >= KNOWN_ART
    batch = np.stack(list(crops.values()))
    rng = np.random.default_rng(0)
    scrambled = dataclasses.replace(
        live, templates=rng.permutation(live.templates), grey=rng.permutation(live.grey),
        view_embeddings=rng.permutation(live.view_embeddings))
    read = CardClassifier(profile=live).classify(batch)
    assert read.card_ids == CardClassifier(profile=scrambled).classify(batch).card_ids
    assert sum(a == t for a, t in zip(read.card_ids, crops)) >= 11
    pictures = dataclasses.replace(scrambled, from_camera=False)  # compared: scrambled, wrong
    assert CardClassifier(profile=pictures).classify(batch).card_ids != read.card_ids
