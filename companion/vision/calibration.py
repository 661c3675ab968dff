"""The table plane: image pixels -> table millimetres, from the printed mat or 4 clicks.

The printed mat (``calibration/mat.json``) carries cv2.aruco markers at known places; every
marker corner found gives one point pair, and a RANSAC homography over all of them maps the
camera image onto the mat's millimetre frame. Without a mat the user clicks the 4 corners of
the playing area (top-left, top-right, bottom-right, bottom-left) and those clicks are stored.
Cameras move (someone bumps the laptop), so :class:`DriftMonitor` re-checks every few
seconds and reports how far the table moved. Wide-angle lenses can add chessboard intrinsics.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from companion.layouts import CALIBRATION_DIR, Mat, load_mat


class CalibrationError(ValueError):
    """The mat could not be found, or a profile is missing or malformed."""


@dataclass(frozen=True)
class Intrinsics:
    """Lens model from a chessboard (cv2.calibrateCamera); used to undistort frames."""

    camera_matrix: np.ndarray  # 3x3
    dist_coeffs: np.ndarray  # 1xN
    image_size: tuple[int, int]  # (width, height)
    rms_px: float

    def undistort(self, image: np.ndarray) -> np.ndarray:
        return cv2.undistort(image, self.camera_matrix, self.dist_coeffs)

    def to_json(self) -> dict:
        return {"camera_matrix": self.camera_matrix.tolist(),
                "dist_coeffs": self.dist_coeffs.ravel().tolist(),
                "image_size": list(self.image_size), "rms_px": self.rms_px}

    @classmethod
    def from_json(cls, d: dict) -> Intrinsics:
        return cls(np.array(d["camera_matrix"], float), np.array(d["dist_coeffs"], float)[None],
                   tuple(d["image_size"]), float(d["rms_px"]))


@dataclass(frozen=True)
class Calibration:
    """How the camera sees the table. ``homography`` maps image px to table mm."""

    homography: np.ndarray  # 3x3, image px -> table mm
    image_size: tuple[int, int]  # (width, height) of the frames it was made from
    method: str  # "aruco" or "manual"
    mat: str
    table_size_mm: tuple[float, float]
    error_mm: float = 0.0  # mean reprojection error of the points it was fitted to
    markers: tuple[int, ...] = ()  # marker ids seen (aruco)
    corners_px: tuple[tuple[float, float], ...] = ()  # the 4 clicks (manual)
    intrinsics: Intrinsics | None = None
    created: float = field(default_factory=time.time)

    @property
    def inverse(self) -> np.ndarray:
        """Table mm -> image px."""
        return np.linalg.inv(self.homography)

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        return _apply(self.homography, points_px)

    def to_px(self, points_mm: np.ndarray) -> np.ndarray:
        return _apply(self.inverse, points_mm)

    def px_per_mm(self) -> float:
        """Average image scale at the table centre (for sizes in the raw image)."""
        w, h = self.table_size_mm
        c = np.array([[w / 2, h / 2], [w / 2 + 10, h / 2], [w / 2, h / 2 + 10]])
        p = self.to_px(c)
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 20)

    def to_json(self) -> dict:
        return {"format": "ganjifa-companion/calibration@1", "method": self.method,
                "mat": self.mat, "table_size_mm": list(self.table_size_mm),
                "homography": self.homography.tolist(), "image_size": list(self.image_size),
                "error_mm": self.error_mm, "markers": list(self.markers),
                "corners_px": [list(c) for c in self.corners_px],
                "intrinsics": self.intrinsics.to_json() if self.intrinsics else None,
                "created": self.created}

    @classmethod
    def from_json(cls, d: dict) -> Calibration:
        try:
            h = np.array(d["homography"], float)
            if h.shape != (3, 3):
                raise ValueError("homography must be 3x3")
            intr = d.get("intrinsics")
            return cls(h, tuple(d["image_size"]), str(d["method"]), str(d["mat"]),
                       tuple(d["table_size_mm"]), float(d.get("error_mm", 0.0)),
                       tuple(d.get("markers", ())),
                       tuple(tuple(c) for c in d.get("corners_px", ())),
                       Intrinsics.from_json(intr) if intr else None,
                       float(d.get("created", 0.0)))
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationError(f"bad calibration profile: {e}") from None


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2)


class MatCalibrator:
    """Finds the mat's ArUco markers and fits the image -> mm homography."""

    def __init__(self, mat: Mat | None = None, min_markers: int = 2):
        self.mat = mat or load_mat()
        self.min_markers = min_markers
        try:
            dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.mat.dictionary))
        except AttributeError:
            raise CalibrationError(f"unknown ArUco dictionary {self.mat.dictionary!r}") from None
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        self._detector = cv2.aruco.ArucoDetector(dictionary, params)
        self._corners_mm = {m.id: np.array(self.mat.marker_corners_mm(m), np.float64)
                            for m in self.mat.markers}

    def marker_corners_mm(self, ids: Iterable[int]) -> np.ndarray:
        """The table-mm corners (4 per marker, stacked) of the markers ``ids``."""
        return np.concatenate([self._corners_mm[i] for i in ids]).reshape(-1, 2)

    def find_markers(self, image: np.ndarray) -> dict[int, np.ndarray]:
        """Marker id -> its 4 image corners (4x2), for markers that belong to the mat."""
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _ = self._detector.detectMarkers(gray)
        found: dict[int, np.ndarray] = {}
        if ids is None:
            return found
        for c, i in zip(corners, ids.ravel()):
            if int(i) in self._corners_mm:
                found[int(i)] = c.reshape(4, 2).astype(np.float64)
        return found

    def calibrate(self, image: np.ndarray, intrinsics: Intrinsics | None = None) -> Calibration:
        if intrinsics is not None:
            image = intrinsics.undistort(image)
        return self.fit(self.find_markers(image), (image.shape[1], image.shape[0]), intrinsics)

    def fit(self, found: dict[int, np.ndarray], image_size: tuple[int, int],
            intrinsics: Intrinsics | None = None) -> Calibration:
        """The calibration from markers found (:meth:`find_markers`) in an image of
        ``image_size`` (undistorted with ``intrinsics`` when given)."""
        if len(found) < self.min_markers:
            raise CalibrationError(
                f"found {len(found)} of the mat's {len(self.mat.markers)} markers "
                f"(ids {sorted(found) or 'none'}); need {self.min_markers}. Make sure the "
                "whole mat is in view, lit evenly and not covered by hands or cards.")
        src = np.concatenate([found[i] for i in sorted(found)])
        dst = self.marker_corners_mm(sorted(found))
        h, _ = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
        if h is None:
            raise CalibrationError("the markers found do not fit a plane; is the mat flat?")
        err = float(np.mean(np.linalg.norm(_apply(h, src) - dst, axis=1)))
        return Calibration(h, image_size, "aruco", self.mat.name,
                           self.mat.size_mm, err, tuple(sorted(found)), (), intrinsics)


def manual_calibration(corners_px: Iterable[tuple[float, float]], image_size: tuple[int, int],
                       mat: Mat | None = None, area_mm: tuple[float, float] | None = None,
                       intrinsics: Intrinsics | None = None) -> Calibration:
    """Four clicked corners of the playing area, clockwise from top-left, -> a calibration.

    ``area_mm`` is the size of the area whose corners were clicked (default: the mat's size,
    so a plain table with the 4 corners of a sheet of the same size lines up with layouts).
    """
    mat = mat or load_mat()
    pts = np.asarray(list(corners_px), np.float64)
    if pts.shape != (4, 2):
        raise CalibrationError(f"need exactly 4 corner clicks (x, y), got {len(pts)}")
    w, h = area_mm or mat.size_mm
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    # A crossed or degenerate quadrilateral is a mis-click, not a table.
    def turn(i: int) -> float:
        a, b = pts[(i + 1) % 4] - pts[i], pts[(i + 2) % 4] - pts[(i + 1) % 4]
        return float(a[0] * b[1] - a[1] * b[0])
    signs = [turn(i) for i in range(4)]
    if not (all(s > 0 for s in signs) or all(s < 0 for s in signs)):
        raise CalibrationError("the 4 corners must form a convex shape, clicked in order "
                               "top-left, top-right, bottom-right, bottom-left")
    hmat = cv2.getPerspectiveTransform(pts.astype(np.float32), dst.astype(np.float32))
    return Calibration(hmat.astype(np.float64), image_size, "manual", mat.name, (w, h), 0.0,
                       (), tuple((float(x), float(y)) for x, y in pts), intrinsics)


def chessboard_intrinsics(images: Iterable[np.ndarray], pattern: tuple[int, int] = (9, 6),
                          square_mm: float = 25.0) -> Intrinsics:
    """Lens intrinsics from several views of a chessboard (inner corners ``pattern``)."""
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * square_mm
    obj_pts, img_pts, size = [], [], None
    for image in images:
        gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        size = (gray.shape[1], gray.shape[0])
        ok, corners = cv2.findChessboardCorners(gray, pattern)
        if not ok:
            continue
        corners = cv2.cornerSubPix(gray, corners, (11, 11), (-1, -1),
                                   (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3))
        obj_pts.append(obj)
        img_pts.append(corners)
    if len(obj_pts) < 3 or size is None:
        raise CalibrationError(f"the chessboard ({pattern[0]}x{pattern[1]} inner corners) was "
                               f"found in {len(obj_pts)} image(s); need at least 3 views")
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return Intrinsics(k, dist, size, float(rms))


@dataclass(frozen=True)
class DriftReport:
    timestamp: float
    drift_mm: float  # largest move of a corner of the fit's own markers seen now
    markers: tuple[int, ...]
    drifted: bool  # drift beyond tolerance: the calibration was replaced
    lost: bool = False  # markers not visible now (hands over them?): the old fit is kept
    improved: bool = False  # more markers in view than the fit had: the calibration was replaced

    @property
    def replaced(self) -> bool:
        return self.drifted or self.improved


class DriftMonitor:
    """Re-checks the calibration every ``interval_s`` seconds of frame time.

    A re-check is judged on the markers it sees, not on the whole mat: a fit from two
    markers can be off by centimetres far from them (on the fixture scenes with all four
    markers, a fit from two of them differs from the full fit by a median 10 mm somewhere
    on the mat). So when a hand covers two markers, the monitor only asks whether the two
    it still sees have moved, and keeps the better fit when they have not. A view with
    more markers than the fit had replaces it.

    On the fixture scenes with all four markers in view, with two or three of them covered
    in turn (260 views): the old whole-mat comparison replaced the full fit in 92% (two
    seen) and 63% (three seen) of the views, with fits up to metres off; this one in none.
    With the camera also bumped by 12 px, it replaces the fit in every view.
    """

    def __init__(self, calibrator: MatCalibrator, calibration: Calibration,
                 interval_s: float = 3.0, tolerance_mm: float = 3.0):
        self.calibrator = calibrator
        self.calibration = calibration
        self.interval_s = interval_s
        self.tolerance_mm = tolerance_mm
        self._last: float | None = None

    def check(self, image: np.ndarray, timestamp: float) -> DriftReport | None:
        """A report when a re-check was due, else None; updates ``calibration`` on drift."""
        if self._last is not None and timestamp - self._last < self.interval_s:
            return None
        self._last = timestamp
        old = self.calibration
        if old.intrinsics is not None:
            image = old.intrinsics.undistort(image)
        found = self.calibrator.find_markers(image)
        try:
            new = self.calibrator.fit(found, (image.shape[1], image.shape[0]), old.intrinsics)
        except CalibrationError:
            return DriftReport(timestamp, 0.0, (), False, lost=True)
        # Markers the old fit was not made from only show how far off it was there.
        ids = [i for i in sorted(found) if i in old.markers] or sorted(found)
        d = marker_drift_mm(old, np.concatenate([found[i] for i in ids]),
                            self.calibrator.marker_corners_mm(ids))
        # The fit's own error at a marker corner is up to about 3x its mean (fixture
        # scenes, lens distortion uncorrected): that much is no movement.
        drifted = d > self.tolerance_mm + 3 * old.error_mm
        improved = not drifted and len(new.markers) > len(old.markers)
        if drifted or improved:
            self.calibration = new
        return DriftReport(timestamp, d, new.markers, drifted, improved=improved)


def marker_drift_mm(cal: Calibration, corners_px: np.ndarray, corners_mm: np.ndarray) -> float:
    """How far (mm) marker corners seen at ``corners_px`` have moved from where they lie
    on the mat (``corners_mm``), by ``cal``. Only where markers are seen is compared: a
    fit from few markers can be far off elsewhere, and a hand over a marker is no drift."""
    return float(np.max(np.linalg.norm(cal.to_mm(corners_px) - corners_mm, axis=1)))


def drift_mm(old: Calibration, new: Calibration) -> float:
    """How far (mm) the table appears to have moved: compare both fits on a grid of points."""
    w, h = old.table_size_mm
    grid = np.array([[x, y] for x in np.linspace(0, w, 5) for y in np.linspace(0, h, 4)])
    px = old.to_px(grid)
    return float(np.max(np.linalg.norm(new.to_mm(px) - grid, axis=1)))


# ---- profiles ---------------------------------------------------------------------------

def profile_dirs() -> list[Path]:
    """Where profiles are looked for: the repo's ``calibration/profiles`` then user data."""
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return [CALIBRATION_DIR / "profiles", Path(data) / "ganjifa-companion" / "calibration"]


def save_profile(cal: Calibration, name: str, directory: Path | None = None) -> Path:
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        raise CalibrationError(f"bad profile name {name!r}: use letters, digits, - and _")
    candidates = [directory] if directory else profile_dirs()
    last_error: OSError | None = None
    for d in candidates:
        try:
            d.mkdir(parents=True, exist_ok=True)
            path = d / f"{name}.json"
            path.write_text(json.dumps(cal.to_json(), indent=1))
            return path
        except OSError as e:  # read-only install: fall through to the user data dir
            last_error = e
    raise CalibrationError(f"cannot save profile {name!r}: {last_error}")


def load_profile(name_or_path: str | Path, directory: Path | None = None) -> Calibration:
    p = Path(name_or_path)
    paths = [p] if p.suffix == ".json" else [
        d / f"{name_or_path}.json" for d in ([directory] if directory else profile_dirs())]
    for path in paths:
        if path.is_file():
            try:
                return Calibration.from_json(json.loads(path.read_text()))
            except json.JSONDecodeError as e:
                raise CalibrationError(f"{path} is not valid JSON: {e}") from None
    raise CalibrationError(f"no calibration profile {str(name_or_path)!r} "
                           f"(looked in {', '.join(str(x) for x in paths)}); "
                           "run `companion calibrate --source 0` first")


def with_intrinsics(cal: Calibration, intrinsics: Intrinsics | None) -> Calibration:
    return replace(cal, intrinsics=intrinsics)
