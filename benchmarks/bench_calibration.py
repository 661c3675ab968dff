"""Calibration drift re-checks on the held-out fixture scenes; prints a table.

    python benchmarks/bench_calibration.py

Every fixture scene whose four mat markers are all found is calibrated from all four.
Then each pair and each triple of markers stays in view while the others are covered by
a flat patch (a hand), and :class:`~companion.vision.calibration.DriftMonitor` re-checks
that view, once as it is and once with the camera bumped by 12 x 5 px. A re-check of a
still camera should keep the full fit; a bumped camera should replace it. The table also
gives how far the fit from the markers left in view is from the full fit anywhere on the
mat (``drift_mm`` over a grid): what a replacement would have cost.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections import defaultdict
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.vision.calibration import DriftMonitor, MatCalibrator, drift_mm

SCENES = ROOT / "fixtures" / "scenes"
BUMP = np.float32([[1, 0, 12], [0, 1, 5]])


def _covered(image: np.ndarray, found: dict, ids) -> np.ndarray:
    out = image.copy()
    for i in ids:
        (x0, y0), (x1, y1) = found[i].min(0).astype(int) - 5, found[i].max(0).astype(int) + 5
        out[max(0, y0):y1, max(0, x0):x1] = 120
    return out


def main() -> int:
    calibrator = MatCalibrator()
    rows: dict[tuple[int, bool], list] = defaultdict(lambda: [0, 0, []])
    scenes = 0
    for js in sorted(SCENES.glob("scene_*.json")):
        image = cv2.imread(str(SCENES / json.loads(js.read_text())["image"]))
        found = calibrator.find_markers(image)
        if len(found) < 4:
            continue
        scenes += 1
        full = calibrator.calibrate(image)
        for k in (2, 3):
            for seen in itertools.combinations(sorted(found), k):
                view = _covered(image, found, set(found) - set(seen))
                for bumped in (False, True):
                    if bumped:
                        view = cv2.warpAffine(view, BUMP, view.shape[1::-1],
                                              borderMode=cv2.BORDER_REPLICATE)
                    report = DriftMonitor(calibrator, full).check(view, 0.0)
                    if report.lost:
                        continue
                    row = rows[(k, bumped)]
                    row[0] += report.replaced
                    row[1] += 1
                    if not bumped:
                        row[2].append(drift_mm(full, calibrator.calibrate(view)))
    print(f"## Drift re-checks: {scenes} fixture scenes with all 4 markers found\n")
    print(f"{'markers in view':16} {'camera':8} {'fit replaced':>14} "
          f"{'fit in view vs full fit, mm (median / 90% / max)':>50}")
    for (k, bumped), (replaced, n, off) in sorted(rows.items()):
        spread = (" / ".join(f"{v:.1f}" for v in np.percentile(off, [50, 90, 100]))
                  if off else "")
        print(f"{k:<16} {'bumped' if bumped else 'still':8} {replaced:>6} of {n:<5} {spread:>50}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
