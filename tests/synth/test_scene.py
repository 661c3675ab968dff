"""Scene ground truth checked against the rendered pixels, not against itself."""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest

from companion.cards import Card, Rank, Suit
from companion.layouts import load_mat
from companion.synth import decks
from companion.synth.camera import CameraPose, project
from companion.synth.effects import Lighting, Sensor
from companion.synth.scene import CardPlacement, SceneSpec, random_scene_spec, render_scene
from companion.synth.table import Hand

CLEAN_LIGHT = Lighting("neutral", 1.0, (1.0, 1.0, 1.0), None, (), 0.0, 0.0)
CLEAN_SENSOR = Sensor(0.0, 0.0, 0.0, 0.0, (1.0, 1.0, 1.0), 0)


def _spec(cards, tilt=0.0, k1=0.0, mat=None, hands=(), az=0.0, size=(960, 540)):
    cam = CameraPose(size[0], size[1], 800.0, tilt, az, 0.0, 1000.0, (297.0, 210.0), k1)
    return SceneSpec(cam, "plain", 3, (-500, -400, 1600, 1200), mat, tuple(cards), tuple(hands),
                     CLEAN_LIGHT, CLEAN_SENSOR, 0)


def _card(x, y, suit=Suit.SHAMSHER, rank=Rank.RAJA, style=4, face_up=True, source=None):
    return CardPlacement(Card(suit, rank), face_up, (x, y), 17.0, source or f"style-{style}", 0)


def _blobs(spec):
    """Connected regions where the scene differs from the same scene without cards."""
    with_cards = render_scene(spec).image.astype(np.int16)
    empty = render_scene(dataclasses.replace(spec, cards=())).image.astype(np.int16)
    mask = (np.abs(with_cards - empty).max(2) > 20).astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
    return [(centroids[i], stats[i, cv2.CC_STAT_AREA]) for i in range(1, n)
            if stats[i, cv2.CC_STAT_AREA] > 200]


@pytest.mark.parametrize("tilt,k1,az", [(0.0, 0.0, 0.0), (35.0, 0.12, 20.0), (45.0, -0.02, 200.0)])
def test_projected_centres_and_radii_match_the_rendered_discs(tilt, k1, az):
    spec = _spec([_card(150, 120), _card(430, 110, Suit.PHUL, Rank.TWO),
                  _card(200, 320, Suit.CHENG, Rank.NINE), _card(460, 310, Suit.SURYA, Rank.ONE)],
                 tilt, k1, az=az)
    truth = render_scene(spec).truth
    blobs = _blobs(spec)
    assert len(blobs) == len(truth)
    for t in truth:
        centroid, area = min(blobs, key=lambda b: math.dist(b[0], t.center_px))
        # The centroid of a projected circle is not exactly the projected centre; under
        # these poses the two agree to well under a pixel plus blur at the rim.
        assert math.dist(centroid, t.center_px) < 1.5, (t, centroid)
        assert abs(math.sqrt(area / math.pi) - t.radius_px) < 0.06 * t.radius_px
        assert t.visible_fraction > 0.97


@pytest.mark.skipif(not decks.pysol_available("pysol-mughal"),
                    reason="real-art decks not found in ../shared/decks")
def test_real_art_cards_are_pasted_where_the_truth_says():
    cards = [_card(150, 120, source="pysol-mughal"),
             _card(430, 300, Suit.PHUL, Rank.TWO, source="pysol-mughal")]
    spec = _spec(cards, 30.0, 0.08, az=10.0)
    truth = render_scene(spec).truth
    blobs = _blobs(spec)
    assert len(blobs) == 2
    for t in truth:
        centroid, area = min(blobs, key=lambda b: math.dist(b[0], t.center_px))
        assert math.dist(centroid, t.center_px) < 1.5, (t, centroid)
        assert abs(math.sqrt(area / math.pi) - t.radius_px) < 0.06 * t.radius_px


def test_visible_fraction_of_an_overlapped_card_matches_the_geometry():
    d = load_mat().card_diameter_mm
    offset = 0.5 * d  # the top card covers part of the bottom one
    spec = _spec([_card(297, 210), _card(297 + offset, 210, Suit.BARAT, Rank.FIVE)])
    bottom, top = render_scene(spec).truth
    r = d / 2
    lens = 2 * r * r * math.acos(offset / (2 * r)) - offset / 2 * math.sqrt(4 * r * r - offset**2)
    expected = 1 - lens / (math.pi * r * r)
    assert abs(bottom.visible_fraction - expected) < 0.03
    assert top.visible_fraction > 0.97 and top.layer > bottom.layer


def test_hands_occlude_cards_and_cards_off_frame_are_partly_visible():
    card = _card(297, 210)
    hand = Hand((297.0, 700.0), (297.0, 215.0), (90, 130, 190), (40, 40, 40))
    covered = render_scene(_spec([card], hands=[hand])).truth[0]
    assert covered.visible_fraction < 0.6
    # Straight down, 0.8 px/mm: x = -103 mm is the left edge of a 640 px frame.
    edge = render_scene(_spec([_card(-103, 210)], size=(640, 360))).truth[0]
    assert abs(edge.center_px[0]) < 0.5
    assert abs(edge.visible_fraction - 0.5) < 0.03


def test_face_down_cards_have_no_id_but_a_position():
    scene = render_scene(_spec([_card(200, 200, face_up=False), _card(400, 200)]))
    down, up = scene.truth
    assert down.card_id is None and not down.face_up
    assert up.card_id == "shamsher-raja" and up.face_up


@pytest.mark.parametrize("tilt,k1", [(0.0, 0.0), (30.0, 0.1)])
def test_mat_markers_are_where_the_camera_model_says(tilt, k1):
    spec = _spec([], tilt, k1, mat="kendra-kari", size=(1280, 720))
    spec = dataclasses.replace(spec, camera=dataclasses.replace(spec.camera, distance_mm=850))
    scene = render_scene(spec)
    mat = load_mat()
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, mat.dictionary))
    detector = cv2.aruco.ArucoDetector(dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]
    assert sorted(scene.markers_visible) == [0, 1, 2, 3]
    for c, i in zip(corners, ids.ravel()):
        marker = next(m for m in mat.markers if m.id == i)
        want = project(scene.camera, mat.marker_corners_mm(marker))
        assert np.abs(c.reshape(4, 2) - want).max() < 2.0


def test_rendering_is_deterministic():
    spec = random_scene_spec(np.random.default_rng(5), 640, 360)
    assert spec == random_scene_spec(np.random.default_rng(5), 640, 360)
    a, b = render_scene(spec), render_scene(spec)
    assert np.array_equal(a.image, b.image)
    assert a.truth == b.truth


def test_random_scenes_render_at_1280x720_with_consistent_truth():
    for seed in range(4):
        scene = render_scene(random_scene_spec(np.random.default_rng(seed)))
        assert scene.image.shape == (720, 1280, 3)
        for t in scene.truth:
            assert 0.0 <= t.visible_fraction <= 1.0
            assert (t.card_id is None) == (not t.face_up)
        js = scene.truth_json()
        assert len(js["cards"]) == len(scene.truth)


@pytest.mark.skipif(not decks.pysol_available("pysol-mughal"),
                    reason="real-art decks not found in ../shared/decks")
def test_scenes_can_use_the_real_art_decks():
    spec = random_scene_spec(np.random.default_rng(1), 640, 360, source="pysol-mughal",
                             n_cards=6, hands=0)
    scene = render_scene(spec)
    assert {t.source for t in scene.truth} == {"pysol-mughal"}
    assert all(t.card_id is None or Card.parse(t.card_id).deck.value == "mughal"
               for t in scene.truth)


def test_unknown_card_sources_are_refused():
    with pytest.raises(decks.DeckSourceError, match="unknown card source"):
        decks.card_image("style-99", None, 0, 64)


def test_every_table_a_scene_can_draw_stays_cached():
    """A training run renders scenes by the hundred thousand: a table texture drawn again
    for every scene (39 ms) cost a tenth of a scene's time when the cache held 24 of 60."""
    from companion.synth.table import table_texture
    tables = {(s.table_kind, s.table_seed) for s in (
        random_scene_spec(np.random.default_rng([7, i])) for i in range(600))}
    assert len(tables) > 24  # more than the cache once held
    assert len(tables) <= table_texture.cache_info().maxsize
