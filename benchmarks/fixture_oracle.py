"""A classifier that reads the fixture videos' ground truth: it names each detected card
after the true card nearest to it. Benchmarks and tests only: it separates the seeing and
refereeing stages from the model's accuracy. The real ``replay`` uses the real model."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from companion.vision.classify import Classifications
from companion.vision.detect import CardDetector, Detections


class TruthOracle:
    """``classify(crops)`` answers from the frame truth of the detections just made."""

    def __init__(self, truth_json: Path):
        d = json.loads(Path(truth_json).read_text())
        self.columns = d["frame_truth_columns"]
        self.frames = d["frame_truth"]
        self.frame = 0
        self.last: Detections | None = None

    def detector(self, base: CardDetector) -> CardDetector:
        oracle = self

        class Recording(CardDetector):
            def detect(self, image, cal, view=None):
                det = base.detect(image, cal, view)
                oracle.last = det
                return det
        rec = Recording(base.mat, base.px_per_mm, base.crop_size, base.min_score)
        return rec

    def classify(self, crops: np.ndarray) -> Classifications:
        det = self.last
        rows = self.frames[self.frame] if self.frame < len(self.frames) else []
        ids, conf, fd, nc = [], [], [], []
        for crop in crops:
            # the pipeline may pass only some of the frame's crops (those that changed)
            i = next(j for j in range(len(det)) if np.array_equal(det.crops[j], crop))
            c = det.centers_px[i]
            best, best_d = None, 0.5 * det.radii_px[i]
            for r in rows:  # card_id, zone, x, y, radius, visible, face_up
                dd = float(np.hypot(r[2] - c[0], r[3] - c[1]))
                if dd < best_d and r[5] >= 0.3:
                    best, best_d = r, dd
            if best is None:
                ids.append(None), conf.append(0.99), fd.append(0.0), nc.append(0.99)
            elif not best[6] or best[0] is None:
                ids.append(None), conf.append(0.99), fd.append(0.99), nc.append(0.0)
            else:
                ids.append(best[0]), conf.append(0.99), fd.append(0.0), nc.append(0.0)
        n = len(ids)
        return Classifications(ids, np.array(conf).reshape(n), np.array(fd).reshape(n),
                                     np.array(nc).reshape(n),
                                     [[(i, 0.99)] if i else [] for i in ids])
