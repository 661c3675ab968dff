"""A profile of a deck the model knows (our own printed art) on a real camera scene."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cards import Card, deck_cards
from companion.synth.faces import render_face
from companion.synth.sceneset import scene_print
from companion.vision.classify import DEFAULT_MODEL, KNOWN_ART, CardClassifier
from companion.vision.crops import crop_from_scene
from companion.vision.enroll import enroll_images

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_a_known_deck_enrolled_reads_the_card_both_the_profile_and_the_model_find_likely():
    """Fixture scene 0 (a tilted camera) with its own deck enrolled, one face per card. Its
    Narasimha 6 is matched best by the profile as another card of the suit (the pip and
    detail comparisons are made for art the model never saw); the model alone reads the 6
    surely. Together they read the 6."""
    d = json.loads((SCENES / "scene_00000.json").read_text())
    style, seed = scene_print(d)
    shown = [c for c in d["cards"] if c["visible_fraction"] >= 0.7]
    img = cv2.imread(str(SCENES / d["image"]))
    crops = np.stack([crop_from_scene(img, d, c) for c in shown])
    deck = Card.parse("narasimha-6").deck
    faces = {c.id: render_face(c, style, seed, 112) for c in deck_cards(deck)}
    profile = enroll_images(faces, "scene-0", CardClassifier(deck=deck))
    assert profile.model_agreement >= KNOWN_ART
    i = next(i for i, c in enumerate(shown) if c["card_id"] == "narasimha-6")
    alone = CardClassifier(deck=deck).classify(crops)
    heads, _ = CardClassifier(deck=deck).heads(crops)
    ids, profile_p, _ = profile.card_probabilities(crops, heads)
    assert ids[profile_p[i].argmax()] != "narasimha-6"  # the profile alone misreads it
    assert alone.card_ids[i] == "narasimha-6"
    enrolled = CardClassifier(profile=profile).classify(crops)
    assert enrolled.card_ids[i] == "narasimha-6"
    right = [a == c["card_id"] for a, c in zip(enrolled.card_ids, shown) if c["face_up"]]
    assert all(right), list(zip(enrolled.card_ids, [c["card_id"] for c in shown]))
