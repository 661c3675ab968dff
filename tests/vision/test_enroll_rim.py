"""A deck enrolled from the camera's crops at any turn: where a suit's number cards differ
is found at their numeral, not on the rim (``enroll._RIMLESS``)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from companion.cards import Card, DeckKind, deck_cards
from companion.synth import decks
from companion.synth.camera import random_pose
from companion.synth.scene import MAT_SIZE_MM, CardPlacement, random_scene_spec, render_scene
from companion.train_scenes import CARD_RADIUS_MM
from companion.vision.crops import crop_from_frame
from companion.vision.enroll import _suit_references
from companion.vision.match import grey

pytestmark = pytest.mark.skipif(not decks.pysol_available("pysol-mughal"),
                                reason="real-art decks not found in ../shared/decks")


def scanned_at_any_turn(deck: DeckKind, seed: int = 7):
    """Card id -> (camera crop, the turn it lay at): the deck laid out 20 cards a scan on
    the mat at any turn, seen by a webcam over the whole mat, as the Enrol page scans."""
    rng = np.random.default_rng(seed)
    w, h = MAT_SIZE_MM
    xs, ys = np.linspace(70, w - 70, 5), np.linspace(70, h - 70, 4)
    cards = list(deck_cards(deck))
    out = {}
    for start in range(0, len(cards), 20):
        spec = random_scene_spec(rng, 1280, 720, source=f"pysol-{deck.value}", mat=True,
                                 placement="anywhere", n_cards=1, hands=0,
                                 lighting="neutral", face_down_rate=0.0)
        places = [CardPlacement(card, True, (float(xs[k % 5]), float(ys[k // 5])),
                                float(rng.uniform(0, 360)), spec.cards[0].source,
                                spec.cards[0].seed, None)
                  for k, card in enumerate(cards[start:start + 20])]
        camera = random_pose(rng, 1280, 720, (w / 2, h / 2), w * 1.7, 20.0)
        scene = render_scene(dataclasses.replace(spec, cards=tuple(places), camera=camera))
        for p in places:
            crop = crop_from_frame(scene.image, p.center_mm, CARD_RADIUS_MM,
                                   scene.homography, scene.camera.K, scene.camera.k1)
            out[p.card.id] = (crop, p.rotation_deg)
    return out


def test_a_suits_telling_region_is_its_numeral_at_any_turn():
    """PySolFC prints a number card's numeral at the top of its rim. Turned onto its suit's
    first card, the numerals lie where that card's lies: the top, turned by the turn it lay
    at. Inside 0.92 of the disc, the rim's card-to-card misregistration outweighed the
    numeral for Phul (35 px away; the others' within 4 px), and the fine comparison looked
    at a blank arc of its rim."""
    scans = scanned_at_any_turn(DeckKind.MUGHAL)
    ids = tuple(scans)
    _, weights = _suit_references(ids, np.stack([grey(scans[c][0]) for c in ids]), cut=True)
    at_numeral = []
    for su, wmap in weights.items():
        first = next(c for c in ids if c.rpartition("-")[0] == su)
        assert not Card.parse(first).rank.is_face
        turn = math.radians(scans[first][1])
        # the numeral's place (row, column): 37 px above the centre of an upright 96 px
        # crop, turned clockwise on the screen as the card lay
        want = np.array([47.5 - 37 * math.cos(turn), 47.5 + 37 * math.sin(turn)])
        ys, xs = np.nonzero(wmap > 0.5 * wmap.max())
        at_numeral.append(np.hypot(ys.mean() - want[0], xs.mean() - want[1]) < 8)
    assert sum(at_numeral) == len(weights), at_numeral
