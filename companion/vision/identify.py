"""Cards in one still image, for `companion identify`: calibrate if the mat is there, detect.

With the printed mat in view, the image is calibrated from its ArUco markers and cards are
found in the rectified table view (positions in table millimetres). Without it, circles are
searched on the raw photo at any size (positions in pixels only).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class FoundCards:
    crops: np.ndarray  # (N, 96, 96, 3) uint8 BGR
    centres_px: np.ndarray  # (N, 2)
    centres_mm: np.ndarray | None  # (N, 2) on the table, None without a mat
    view: str  # "mat" (calibrated, rectified) or "raw" (no mat found)


def find_cards(image: np.ndarray) -> FoundCards:
    from companion.vision.calibration import CalibrationError, MatCalibrator
    from companion.vision.detect import CardDetector, detect_unrectified
    try:
        cal = MatCalibrator().calibrate(image)
    except CalibrationError:
        cal = None
    if cal is not None:
        det = CardDetector().detect(image, cal)
        return FoundCards(det.crops, det.centers_px, det.centers_mm, "mat")
    det = detect_unrectified(image)
    return FoundCards(det.crops, det.centers_px, None, "raw")
