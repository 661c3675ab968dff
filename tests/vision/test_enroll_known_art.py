"""A profile of a deck the model knows (our own printed art) on a real camera scene."""

from __future__ import annotations

import dataclasses
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


needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")


def _scene_with_its_deck(k: int):
    """Fixture scene ``k``'s cards at least 70% in view, their crops, and a profile of
    the scene's deck enrolled from one face per card."""
    d = json.loads((SCENES / f"scene_{k:05d}.json").read_text())
    style, seed = scene_print(d)
    shown = [c for c in d["cards"] if c["visible_fraction"] >= 0.7]
    img = cv2.imread(str(SCENES / d["image"]))
    crops = np.stack([crop_from_scene(img, d, c) for c in shown])
    deck = Card.parse(next(c["card_id"] for c in shown if c["face_up"])).deck
    faces = {c.id: render_face(c, style, seed, 112) for c in deck_cards(deck)}
    profile = enroll_images(faces, f"scene-{k}", CardClassifier(deck=deck))
    assert profile.model_agreement >= KNOWN_ART
    return shown, crops, profile


@needs_model
def test_a_known_deck_enrolled_reads_the_card_both_the_profile_and_the_model_find_likely():
    """Fixture scene 0 (a tilted camera) with its own deck enrolled, one face per card. Its
    Narasimha 6 is matched best by the profile as another card of the suit (the pip and
    detail comparisons are made for art the model never saw); the model alone reads the 6
    surely. Together they read the 6."""
    shown, crops, profile = _scene_with_its_deck(0)
    deck = profile.deck
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


@needs_model
def test_a_sure_card_of_a_known_deck_is_confirmed_by_one_pass_of_the_model():
    """A sure card's periodic re-reading (vision.reuse) is confirmed by one pass of the
    model where it knows the art (scene 4: four cards read surely), never under another
    card's name, and never where the model does not know the art: there it names hardly
    any card right, and the card is read again in full."""
    _, crops, profile = _scene_with_its_deck(4)
    clf = CardClassifier(profile=profile)
    enrolled = clf.classify(crops)
    named = np.array([cid is not None for cid in enrolled.card_ids])
    sure = named & (enrolled.confidence >= 0.85)
    held = [cid or "surya-1" for cid in enrolled.card_ids]
    assert sure.sum() >= 4
    assert clf.confirms(crops, held, 0.85)[sure].all()
    others = held[1:] + held[:1]  # each crop given its neighbour's card
    assert not clf.confirms(crops, others, 0.85).any()
    unknown = CardClassifier(profile=dataclasses.replace(profile, model_agreement=0.05))
    assert not unknown.confirms(crops, held, 0.0).any()
    assert not CardClassifier(deck=profile.deck).confirms(crops, held, 0.0).any()
