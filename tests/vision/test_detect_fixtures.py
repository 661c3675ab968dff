"""Detection on the held-out fixture scenes, against a floor a little below the measured
figures (docs/benchmarks.md, "Vision pipeline": recall 0.875, precision 0.919 on all 300)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENES = ROOT / "fixtures" / "scenes"


@pytest.mark.skipif(not (SCENES / "scene_00000.json").is_file(),
                    reason="fixture scenes not present (make fixtures)")
def test_detection_recall_and_precision_on_fixture_scenes(capsys):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_pipeline import bench_detect
    res = bench_detect(300)
    capsys.readouterr()
    assert res["calibrated"] >= 80  # the mat is found wherever 2+ markers are in view
    assert res["recall"] >= 0.84
    assert res["precision"] >= 0.88
    whole_found, whole = res["whole"]
    assert whole_found / whole >= 0.9


def _found(scene: str, card: str) -> bool:
    """The detector finds the whole ``card`` of a fixture scene, as the benchmark counts it."""
    import cv2
    import numpy as np

    from companion.vision.calibration import MatCalibrator
    from companion.vision.detect import CardDetector
    truth = json.loads((SCENES / f"{scene}.json").read_text())
    top = next(c for c in truth["cards"] if c["card_id"] == card)
    assert top["visible_fraction"] > 0.95
    image = cv2.imread(str(SCENES / f"{scene}.jpg"))
    det = CardDetector().detect(image, MatCalibrator().calibrate(image))
    off = np.linalg.norm(det.centers_px - top["center_px"], axis=1)
    return bool(len(off)) and off.min() < 0.3 * top["radius_px"]


needs_scenes = pytest.mark.skipif(not (SCENES / "scene_00286.json").is_file(),
                                  reason="fixture scenes not present (make fixtures)")


@needs_scenes
@pytest.mark.parametrize("scene,card", [("scene_00045", "balarama-raja"),
                                        ("scene_00197", "shamsher-1"),
                                        ("scene_00249", "phul-raja"),
                                        ("scene_00280", "kumancha-7")])
def test_the_whole_card_on_top_of_a_small_stack_is_found(scene, card):
    """Hough put no centre on these top cards, 15-19 mm off the card beneath, and the
    detector kept the card beneath (its rim partly hidden, 0.76-0.82 supported)."""
    assert _found(scene, card)


@needs_scenes
@pytest.mark.parametrize("scene,card", [("scene_00098", "ghulam-4"),
                                        ("scene_00154", "kumancha-3"),
                                        ("scene_00249", "shamsher-3")])
def test_a_pale_card_beside_an_arm_is_not_a_palm(scene, card):
    """Plain inside, its colour carrying on around it, a mat farther out darker than it:
    the hand test's palm. But its whole rim shows an edge, which a palm's never does."""
    assert _found(scene, card)


@needs_scenes
@pytest.mark.parametrize("scene,card", [("scene_00268", "kurma-4"),
                                        ("scene_00215", "buddha-5")])
def test_a_whole_card_whose_best_hough_centre_is_off_is_found_nearby(scene, card,
                                                                     monkeypatch):
    """Hough's best circles on these cards had 0.5-0.6 of their rim on an edge, under the
    bar; the circle a few pixels away has more. Without the search round near misses
    (``NEAR_MISS`` 0) they are not found. (A third, Rama 9 of scene 237, has been found
    without it since the view's gain follows the light over the mat, ``mat_gain``.)"""
    from companion.vision import detect
    assert _found(scene, card)
    monkeypatch.setattr(detect, "NEAR_MISS", 0.0)
    assert not _found(scene, card)
