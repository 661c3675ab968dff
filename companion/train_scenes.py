"""Training crops cut from whole rendered table scenes, the way the detector cuts them.

The crop pool in ``companion.train`` pastes one card face onto a made-up background.
Cards in a real frame differ from that in ways that pasting does not copy: the camera's
perspective and lens, the table and mat around the rim, neighbours and hands lying over a
card, the scene's own light and shadow and the video codec. The model read 97.7% of pasted
held-out crops right but only 87.5% of the cards in the fixture scenes, so part of each
training pool comes from here: scenes from :func:`companion.synth.scene.random_scene_spec`
with our own art only, cut at each card's true table position (plus the detector's few
millimetres of wobble) by :func:`companion.vision.crops.crop_from_frame`.

Scene set seeds: the held-out fixture scenes use 2026 and the films their own seeds; the
training scenes use ``TRAINING_SCENE_SEED`` and never those. No torch here, so the
function is cheap to test.
"""

from __future__ import annotations

import multiprocessing as mp
import multiprocessing.pool

import cv2
import numpy as np

from companion.cards import Card, Rank, Suit
from companion.synth.effects import LIGHT_KINDS
from companion.synth.faces import N_STYLES
from companion.synth.scene import random_scene_spec, render_scene
from companion.vision import crops as C
from companion.vision.classify import INPUT_PX, preprocess

TRAINING_SCENE_SEED = 9001
# Scene seeds that measure models, and so are never trained on.
EVALUATION_SCENE_SEEDS = {2026: "the held-out fixture scenes", 4242: "the scenes models are "
                          "chosen on", 9002: "the int8 calibration scenes"}
FRAME_SIZES = ((960, 540), (1280, 720))
CARD_RADIUS_MM = 32.5  # the printed mat's 65 mm cards, as the detector cuts them
WOBBLE_MM = 2.5  # the detector's centre moves by 2-4 mm between frames
MIN_VISIBLE = 0.45  # cards covered more than this are seldom found by the detector

# The model's label order, shared with companion.train (which needs torch; this does not).
SUITS = tuple(s.value for s in Suit)
RANKS = tuple(r.token for r in Rank)
ALL_CARDS = tuple(Card(s, r) for s in Suit for r in Rank)
_CARD_INDEX = {c.id: i for i, c in enumerate(ALL_CARDS)}


def _label(card_id: str | None, face_up: bool) -> tuple[int, int, int, int]:
    if not face_up or card_id is None:
        return (-1, -1, C.KIND_FACE_DOWN, -1)
    card = Card.parse(card_id)
    return (SUITS.index(card.suit.value), RANKS.index(card.rank.token), C.KIND_CARD,
            _CARD_INDEX[card_id])


def _empty_spot(rng: np.random.Generator, centres: np.ndarray, w: int, h: int,
                homography: np.ndarray) -> tuple[float, float] | None:
    """A table point in view with no card centre within 1.3 card radii (hands may be there)."""
    inv = np.linalg.inv(homography)
    for _ in range(20):
        px = np.array([rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h, 1.0])
        mm = inv @ px
        mm = mm[:2] / mm[2]
        if not len(centres) or np.min(np.linalg.norm(centres - mm, axis=1)) > 1.3 * CARD_RADIUS_MM:
            return float(mm[0]), float(mm[1])
    return None


def scene_crops_one(seed: int, index: int, input_px: int = INPUT_PX):
    """The crops and labels (suit, rank, kind, card index) of training scene ``index``."""
    rng = np.random.default_rng([seed, index])
    w, h = FRAME_SIZES[index % len(FRAME_SIZES)]
    light = LIGHT_KINDS[(index // N_STYLES) % len(LIGHT_KINDS)]
    spec = random_scene_spec(rng, w, h, source=f"style-{index % N_STYLES}", lighting=light)
    scene = render_scene(spec)
    quality = int(rng.integers(45, 95))
    _ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    cam = scene.camera
    crops, labels = [], []
    for t in scene.truth:
        if t.visible_fraction < MIN_VISIBLE:
            continue
        centre = np.asarray(t.center_mm) + rng.normal(0, WOBBLE_MM, 2)
        crops.append(C.crop_from_frame(image, centre, CARD_RADIUS_MM, scene.homography,
                                       cam.K, cam.k1))
        labels.append(_label(t.card_id, t.face_up))
    if rng.random() < 0.5:
        spot = _empty_spot(rng, np.array([t.center_mm for t in scene.truth]).reshape(-1, 2),
                           w, h, scene.homography)
        if spot is not None:
            crops.append(C.crop_from_frame(image, spot, CARD_RADIUS_MM, scene.homography,
                                           cam.K, cam.k1))
            labels.append((-1, -1, C.KIND_NOT_CARD, -1))
    if not crops:
        return (np.empty((0, 3, input_px, input_px), np.uint8), np.empty((0, 4), np.int64))
    x = preprocess(np.stack(crops), input_px).astype(np.uint8)
    return x, np.array(labels, np.int64)


def fork_pool(workers: int, initializer=None, initargs=()) -> mp.pool.Pool:
    """A pool of forked processes that each run OpenCV on one thread.

    OpenCV's thread pool does not survive a fork: a child that calls ``cv2.setNumThreads``
    (or runs a parallel loop) while the parent's pool threads exist can wait forever on
    threads it does not have. So the parent drops to one OpenCV thread while forking, and
    the children inherit that; one process a core is the parallelism wanted anyway."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        return mp.get_context("fork").Pool(workers, initializer=initializer, initargs=initargs)
    finally:
        cv2.setNumThreads(before)


def scene_chunk(args):
    """Crops and labels from scenes ``start`` to ``stop`` of the set ``seed``."""
    seed, start, stop, input_px = args
    parts = [scene_crops_one(seed, i, input_px) for i in range(start, stop)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def scene_crops(n_scenes: int, seed: int = TRAINING_SCENE_SEED, input_px: int = INPUT_PX,
                workers: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Crops and labels from ``n_scenes`` training scenes, rendered on ``workers`` processes."""
    if n_scenes <= 0:
        return (np.empty((0, 3, input_px, input_px), np.uint8), np.empty((0, 4), np.int64))
    step = 25
    jobs = [(seed, i, min(i + step, n_scenes), input_px) for i in range(0, n_scenes, step)]
    if workers <= 1:
        parts = [scene_chunk(j) for j in jobs]
    else:
        with fork_pool(workers) as pool:
            parts = pool.map(scene_chunk, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
