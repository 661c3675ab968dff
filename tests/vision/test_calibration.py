"""Calibration: mat markers -> homography, drift, manual corners, intrinsics, profiles."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from table_drawing import MAT, camera_homography, render

from companion.vision.calibration import (
    Calibration,
    CalibrationError,
    DriftMonitor,
    MatCalibrator,
    chessboard_intrinsics,
    drift_mm,
    load_profile,
    manual_calibration,
    save_profile,
)


def _table_points() -> np.ndarray:
    w, h = MAT.size_mm
    return np.array([[x, y] for x in np.linspace(60, w - 60, 6) for y in np.linspace(60, h - 60, 5)])


@pytest.mark.parametrize("tilt", [0.0, 0.2])
def test_aruco_calibration_maps_image_to_table_mm(tilt):
    scene = render([], tilt=tilt, seed=3)
    cal = MatCalibrator().calibrate(scene.image)
    assert cal.method == "aruco" and cal.markers == (0, 1, 2, 3)
    pts = _table_points()
    px = (scene.mm_to_px @ np.c_[pts, np.ones(len(pts))].T).T
    px = px[:, :2] / px[:, 2:]
    err = np.linalg.norm(cal.to_mm(px) - pts, axis=1)
    assert err.max() < 1.5, err.max()
    assert np.allclose(cal.to_px(cal.to_mm(px)), px, atol=1e-6)


def test_calibration_works_with_one_marker_covered():
    scene = render([], seed=4)
    img = scene.image.copy()
    corner = scene.mm_to_px @ np.array([554, 380, 1.0])
    x, y = (corner[:2] / corner[2]).astype(int)
    img[y - 60:y + 60, x - 60:x + 60] = 90  # a hand over marker 2
    cal = MatCalibrator().calibrate(img)
    assert cal.markers == (0, 1, 3)


def test_no_mat_is_a_clear_error():
    with pytest.raises(CalibrationError, match="found 0 of the mat's 4 markers"):
        MatCalibrator().calibrate(np.full((480, 640, 3), 128, np.uint8))


def test_drift_monitor_reports_a_moved_camera():
    still = render([], seed=5)
    moved = render([], seed=5, shift=(25.0, 10.0))
    calibrator = MatCalibrator()
    monitor = DriftMonitor(calibrator, calibrator.calibrate(still.image), interval_s=2.0)
    first = monitor.check(still.image, 0.0)
    assert first is not None and not first.drifted and first.drift_mm < 1.0
    assert monitor.check(moved.image, 1.0) is None  # not due yet
    report = monitor.check(moved.image, 2.5)
    assert report.drifted and report.drift_mm > 10
    # The monitor now holds the new fit: mapping the moved image is right again.
    pts = np.array([[297.0, 210.0]])
    px = moved.mm_to_px @ np.array([297.0, 210.0, 1.0])
    assert np.allclose(monitor.calibration.to_mm((px[:2] / px[2])[None]), pts, atol=1.5)
    lost = monitor.check(np.zeros_like(still.image), 6.0)
    assert lost.lost and not lost.drifted


def test_manual_corners_match_the_known_homography_and_are_stored():
    h = camera_homography(tilt=0.1)
    w, hh = MAT.size_mm
    corners = [(h @ np.array([x, y, 1.0])) for x, y in ((0, 0), (w, 0), (w, hh), (0, hh))]
    corners = [(c[0] / c[2], c[1] / c[2]) for c in corners]
    cal = manual_calibration(corners, (1280, 720))
    assert cal.method == "manual" and len(cal.corners_px) == 4
    assert np.allclose(cal.to_px(np.array([[297.0, 210.0]])),
                       [(h @ [297, 210, 1])[:2] / (h @ [297, 210, 1])[2]], atol=1e-3)


def test_manual_corners_bad_clicks():
    with pytest.raises(CalibrationError, match="exactly 4"):
        manual_calibration([(0, 0), (1, 0), (1, 1)], (640, 480))
    with pytest.raises(CalibrationError, match="convex"):  # clicked out of order: crossed
        manual_calibration([(0, 0), (100, 100), (100, 0), (0, 100)], (640, 480))


def test_profiles_round_trip(tmp_path):
    cal = MatCalibrator().calibrate(render([], seed=6).image)
    path = save_profile(cal, "kitchen", tmp_path)
    back = load_profile("kitchen", tmp_path)
    assert path.name == "kitchen.json"
    assert isinstance(back, Calibration) and back.markers == cal.markers
    assert np.allclose(back.homography, cal.homography)
    assert drift_mm(cal, back) < 1e-9
    with pytest.raises(CalibrationError, match="no calibration profile"):
        load_profile("attic", tmp_path)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        load_profile(tmp_path / "broken.json")
    with pytest.raises(CalibrationError, match="bad profile name"):
        save_profile(cal, "../escape", tmp_path)


def test_chessboard_intrinsics_recover_a_plain_pinhole():
    import cv2
    pattern, square = (7, 5), 30.0
    board = np.full(((pattern[1] + 1) * 60 + 80, (pattern[0] + 1) * 60 + 80), 255, np.uint8)
    for r in range(pattern[1] + 1):
        for c in range(pattern[0] + 1):
            if (r + c) % 2 == 0:
                board[40 + r * 60:100 + r * 60, 40 + c * 60:100 + c * 60] = 0
    views = []
    for k, (dx, dy, t) in enumerate([(0, 0, 0.0), (40, 20, 0.08), (-30, 30, -0.08), (20, -25, 0.05)]):
        bh, bw = board.shape
        src = np.float32([[0, 0], [bw, 0], [bw, bh], [0, bh]])
        dst = np.float32([[100 + dx + t * 300, 60 + dy], [540 + dx - t * 300, 60 + dy + t * 100],
                          [560 + dx, 420 + dy], [80 + dx, 420 + dy - t * 100]])
        m = cv2.getPerspectiveTransform(src, dst)
        views.append(cv2.warpPerspective(board, m, (640, 480), borderValue=255))
    intr = chessboard_intrinsics(views, pattern, square)
    assert intr.image_size == (640, 480) and intr.rms_px < 1.0
    with pytest.raises(CalibrationError, match="need at least 3 views"):
        chessboard_intrinsics(views[:1], pattern, square)


FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "scenes" / "scene_00018.jpg"


def _cover_markers(image: np.ndarray, found: dict, ids) -> np.ndarray:
    out = image.copy()
    for i in ids:  # a hand over each: a flat patch a little larger than the marker
        (x0, y0), (x1, y1) = found[i].min(0).astype(int) - 5, found[i].max(0).astype(int) + 5
        out[max(0, y0):y1, max(0, x0):x1] = 120
    return out


@pytest.mark.skipif(not FIXTURE.is_file(), reason="no fixture scenes")
def test_hands_over_markers_do_not_replace_a_better_fit_but_a_bumped_camera_does():
    import cv2
    image = cv2.imread(str(FIXTURE))  # a camera view with lens distortion and JPEG
    calibrator = MatCalibrator()
    found = calibrator.find_markers(image)
    full = calibrator.calibrate(image)
    assert full.markers == (0, 1, 2, 3)
    bump = np.float32([[1, 0, 12], [0, 1, 5]])
    for seen in itertools.combinations(full.markers, 2):
        covered = _cover_markers(image, found, set(full.markers) - set(seen))
        # What the re-check sees is a poor fit far from its two markers ...
        assert drift_mm(full, calibrator.calibrate(covered)) > 10
        monitor = DriftMonitor(calibrator, full)
        report = monitor.check(covered, 0.0)
        # ... but those two have not moved: the full fit stays.
        assert report.markers == seen and not report.replaced
        assert monitor.calibration is full
        moved = cv2.warpAffine(covered, bump, covered.shape[1::-1],
                               borderMode=cv2.BORDER_REPLICATE)
        report = monitor.check(moved, 5.0)
        assert report.drifted and monitor.calibration.markers == seen


@pytest.mark.skipif(not FIXTURE.is_file(), reason="no fixture scenes")
def test_a_view_with_more_markers_replaces_a_fit_from_fewer():
    import cv2
    image = cv2.imread(str(FIXTURE))
    calibrator = MatCalibrator()
    two = calibrator.calibrate(_cover_markers(image, calibrator.find_markers(image), (2, 3)))
    monitor = DriftMonitor(calibrator, two)
    report = monitor.check(image, 0.0)
    assert report.improved and not report.drifted
    assert monitor.calibration.markers == (0, 1, 2, 3)
