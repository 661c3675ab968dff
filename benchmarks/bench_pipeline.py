"""Speed and accuracy of the seeing pipeline (detect, track, referee); prints tables.

    python benchmarks/bench_pipeline.py [--frames 200] [--scenes 300] [--oracle] [--profile]
                                        [--real-art] [--doubtful N] [--only X]

1. speed: frames per second of the whole pipeline (calibration re-check, rectify + motion
   gate, detect, classify, track) on a 1280x720 table with 20 cards, per-stage timings.
   Frames come from memory (decoding a file is not counted).
2. detect: detection recall and precision on the held-out fixture scenes
   (``fixtures/scenes``) whose mat is found, split into whole cards, overlapped cards, and
   false detections in scenes with hands.
3. events: the fixture game videos (``fixtures/videos``) through pipeline + referee,
   compared with the filmed record: card sightings (tracker), moves (referee), wrong cards,
   unsure readings and questions. With the shipped model, and with ``--oracle`` also with a
   classifier that reads the ground truth (separates seeing/refereeing from recognition),
   and with ``--profile`` also with a deck profile enrolled from each film's own deck.
   ``--real-art`` films the same games again with the PySolFC decks (the deck a user owns).
   ``--doubtful N`` reads N unchanged doubtful cards a frame with a profile (0: all).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from film_events import MODEL, bench_events, enrolled_profile, model_classifier

from companion.layouts import load_layout
from companion.vision.calibration import CalibrationError, MatCalibrator
from companion.vision.classify import THREADS
from companion.vision.cores import HALF_THE_CORES
from companion.vision.detect import CardDetector
from companion.vision.pipeline import DOUBTFUL_PER_FRAME, STAGES, Pipeline
from companion.vision.source import Frame
from companion.vision.track import TableTracker

SURE = TableTracker().min_confidence  # the bar a reading must reach to count


class _NoModel:
    """Stands in when no model is shipped yet: every crop 'not a card' (classify = 0)."""

    def classify(self, crops):
        from companion.vision.classify import Classifications
        n = len(crops)
        return Classifications([None] * n, np.ones(n), np.zeros(n), np.ones(n),
                                     [[] for _ in range(n)])


# ---- 1. speed -----------------------------------------------------------------------------

def twenty_card_table(seed: int = 11, source: str | None = None):
    """A 1280x720 picture of about 20 face-up cards on the whole mat, and its scene spec.
    ``source``: the cards' art (``pysol-mughal``, ...), else our styles."""
    import dataclasses

    from companion.synth.camera import random_pose
    from companion.synth.scene import MAT_SIZE_MM, random_scene_spec, render_scene
    rng = np.random.default_rng(seed)
    for _ in range(200):
        spec = random_scene_spec(rng, 1280, 720, mat=True, n_cards=20, hands=0,
                                 tilt_max=25.0, placement="anywhere", face_down_rate=0.0,
                                 **({"source": source} if source else {}))
        # a camera that sees the whole mat, as `companion calibrate` asks for
        cam = random_pose(rng, 1280, 720, (MAT_SIZE_MM[0] / 2, MAT_SIZE_MM[1] / 2),
                          MAT_SIZE_MM[0] * 1.7, 20.0)
        scene = render_scene(dataclasses.replace(spec, camera=cam))
        if len(scene.markers_visible) >= 3 and \
                sum(t.visible_fraction > 0.6 for t in scene.truth) >= 16:
            return scene.image, spec
    raise RuntimeError("no 20-card scene with the whole mat in view")


def _speed_run(image: np.ndarray, frames: int, classifier, reuse: bool,
               overlap: bool = False) -> dict:
    """Per-stage times and the wall-clock rate of ``frames`` frames. ``overlap``: as
    ``Pipeline.run`` serves them, the next frame seen while this one is read (the stage
    times are then each half's own, and they overlap)."""
    pipe = Pipeline(classifier, TableTracker(load_layout("kendra-kari")),
                    reuse_readings=reuse)
    rng = np.random.default_rng(0)
    noisy = [cv2.add(image, rng.integers(0, 3, image.shape, dtype=np.uint8))
             for _ in range(8)]
    for i in range(10):  # warm-up (first calibration, onnxruntime first run)
        pipe.process(Frame(i, i / 30, noisy[i % len(noisy)]))
    times = {s: [] for s in (*STAGES, "total")}
    found = []
    t0 = time.perf_counter()
    for r in pipe.stream((Frame(i, i / 30, noisy[i % len(noisy)])
                          for i in range(10, frames + 10)), overlap):
        for s, v in r.timings.as_dict().items():
            times[s].append(v)
        found.append(len(r.detections))
    wall = time.perf_counter() - t0
    return {"mean": {s: statistics.fmean(v) for s, v in times.items()},
            "p95": {s: float(np.percentile(v, 95)) for s, v in times.items()},
            "cards": statistics.median(found), "fps": frames / wall}


def _table_profile(spec, classifier):
    """The profile of the deck most of the table's cards are from."""
    from collections import Counter
    deck, _ = Counter(p.card.deck for p in spec.cards).most_common(1)[0]
    return enrolled_profile(spec.cards[0].source, spec.cards[0].seed, deck, classifier)


def bench_speed(frames: int) -> dict:
    """Six ways to run the same 20-card table: every crop read on every frame with one
    rotation (the model's raw cost), as served (cards read with four quarter-turns, and
    only when their crop changed; a doubtful card two turns a frame, see
    companion.vision.reuse), and the served one again as ``Pipeline.run`` serves it (the
    next frame seen on a second thread while this one is read); then all three with a
    profile enrolled from the table's own deck. The classifier has its served threads
    (classify.THREADS); overlapped, OpenCV has HALF_THE_CORES too (Pipeline.stream)."""
    image, spec = twenty_card_table()
    have_model = MODEL.is_file()
    ahead = "the next frame seen while this one is read"
    configs = [("every crop, every frame, 1 rotation", 1, False, False, False),
               ("changed crops, 4 turns, one frame at a time", 4, True, False, False),
               (f"as served: changed crops, 4 turns, {ahead}", 4, True, False, True),
               ("every crop, every frame, enrolled deck profile", 1, False, True, False),
               ("an enrolled deck profile, one frame at a time", 4, True, True, False),
               (f"as served with an enrolled deck profile, {ahead}", 4, True, True, True)]
    out = {}
    print(f"\n## Speed: 1280x720, 20 cards, {frames} frames, "
          f"{cv2.getNumThreads()} OpenCV threads ({HALF_THE_CORES} when the halves overlap), "
          f"{THREADS} onnxruntime thread(s); classifier: "
          f"{'shipped model' if have_model else 'NONE (no model yet; classify not timed)'}")
    profile = None
    for label, rotations, reuse, enrolled, overlap in configs:
        if have_model:
            from companion.vision.classify import CardClassifier
            if enrolled and profile is None:
                profile = _table_profile(spec, CardClassifier(MODEL))
            classifier = CardClassifier(MODEL, rotations=rotations,
                                        profile=profile if enrolled else None)
        else:
            classifier = _NoModel()
        r = _speed_run(image, frames, classifier, reuse, overlap)
        print(f"\n### {label} (cards detected per frame: median {r['cards']:.0f})")
        print(f"{'stage':10} {'mean ms':>8} {'p95 ms':>8}")
        for s in (*STAGES, "total"):
            print(f"{s:10} {r['mean'][s]:8.2f} {r['p95'][s]:8.2f}")
        if overlap:  # the stage times overlap: only the wall clock gives the rate
            print(f"pipeline fps: {r['fps']:.1f} by the wall clock (goal >= 60)")
        else:
            print(f"pipeline fps: {1000 / r['mean']['total']:.1f} by the stage times, "
                  f"{r['fps']:.1f} by the wall clock (goal >= 60)")
        out[label] = {"fps": r["fps"], "mean_ms": r["mean"], "p95_ms": r["p95"]}
        if not have_model:
            break
    return out


# ---- 2. detection on fixture scenes -------------------------------------------------------

def bench_detect(limit: int) -> dict:
    scenes = sorted((ROOT / "fixtures" / "scenes").glob("scene_*.json"))[:limit]
    det, calr = CardDetector(), MatCalibrator()
    stats = {"scenes": 0, "calibrated": 0, "whole": [0, 0], "overlapped": [0, 0],
             "fp": 0, "fp_hands": 0, "fp_read_as_card": 0, "found": 0, "hand_scenes": 0,
             "ms": []}
    clf = model_classifier()
    w_mm, h_mm = det.mat.size_mm
    for path in scenes:
        truth = json.loads(path.read_text())
        stats["scenes"] += 1
        if truth.get("mat_game") is None:
            continue
        image = cv2.imread(str(path.with_suffix(".jpg")))
        try:
            cal = calr.calibrate(image)
        except CalibrationError:
            continue
        stats["calibrated"] += 1
        t0 = time.perf_counter()
        d = det.detect(image, cal)
        stats["ms"].append((time.perf_counter() - t0) * 1e3)
        cards = truth["cards"]
        hands = truth.get("hands", 0) > 0
        stats["hand_scenes"] += hands
        used, false = _match(d, cards)
        stats["found"] += len(used)
        stats["fp"] += len(false)
        stats["fp_hands"] += len(false) * hands
        if false and clf is not None:
            # What the referee would get: a false detection only matters when the
            # classifier then reads it as a face-up card surely enough for the tracker.
            res = clf.classify(d.crops[false])
            stats["fp_read_as_card"] += sum(
                cid is not None and conf >= SURE for cid, conf in zip(res.card_ids,
                                                                      res.confidence))
        for j, c in enumerate(cards):
            x, y = c["center_mm"]
            if not (0 <= x <= w_mm and 0 <= y <= h_mm) or c["visible_fraction"] < 0.5:
                continue  # off the mat (not searched) or mostly hidden
            group = "whole" if c["visible_fraction"] >= 0.95 else "overlapped"
            stats[group][1] += 1
            stats[group][0] += j in used
    tp = stats["found"]
    precision = tp / max(tp + stats["fp"], 1)
    n_true = stats["whole"][1] + stats["overlapped"][1]
    recall = (stats["whole"][0] + stats["overlapped"][0]) / max(n_true, 1)
    print(f"\n## Detection: fixture scenes ({stats['scenes']} read, {stats['calibrated']} with "
          "the mat found; cards with >= 50% visible and centre on the mat)")
    print(f"{'split':28} {'found':>7} {'of':>6} {'recall':>7}")
    for g, label in (("whole", "whole cards (>=95% visible)"),
                     ("overlapped", "overlapped (50-95% visible)")):
        f, n = stats[g]
        print(f"{label:28} {f:7d} {n:6d} {f / max(n, 1):7.3f}")
    print(f"{'all':28} {stats['whole'][0] + stats['overlapped'][0]:7d} {n_true:6d} "
          f"{recall:7.3f}")
    print(f"precision {precision:.3f} ({stats['fp']} false detections, {stats['fp_hands']} of "
          f"them in the {stats['hand_scenes']} scenes with hands); detect "
          f"{statistics.median(stats['ms']) if stats['ms'] else 0:.1f} ms median per scene")
    print(f"false detections the classifier then reads as a face-up card at the tracker's "
          f"bar ({SURE}): {stats['fp_read_as_card']} of {stats['fp']}")
    nomat = bench_no_mat(scenes)
    return {"recall": recall, "precision": precision, "no_mat": nomat,
            **{k: v for k, v in stats.items() if k != "ms"}}


def _match(d, cards: list[dict]) -> tuple[set[int], list[int]]:
    """(indices of the true cards found, indices of the false detections): a detection is
    right within 0.3 card radii of a true card at least half visible; one far from every
    card is false."""
    pos = np.array([c["center_px"] for c in cards]).reshape(-1, 2)
    used: set[int] = set()
    false = []
    for k, (c, r) in enumerate(zip(d.centers_px, d.radii_px)):
        dist = np.linalg.norm(pos - c, axis=1) if len(pos) else np.zeros(0)
        near = [j for j in np.argsort(dist) if dist[j] < 0.3 * cards[j]["radius_px"]
                and cards[j]["visible_fraction"] >= 0.5 and j not in used]
        if near:
            used.add(near[0])
        elif not len(dist) or dist.min() > 0.5 * r:
            false.append(k)
    return used, false


def bench_no_mat(scenes: list[Path]) -> dict:
    """The no-mat fallback (`identify` on a plain photo): circles of unknown size."""
    from companion.vision.detect import detect_unrectified
    found = total = fp = n = 0
    for path in scenes:
        truth = json.loads(path.read_text())
        if truth.get("mat_game") is not None:
            continue
        n += 1
        image = cv2.imread(str(path.with_suffix(".jpg")))
        d = detect_unrectified(image)
        cards = truth["cards"]
        used, false = _match(d, cards)
        fp += len(false)
        whole = [j for j, c in enumerate(cards) if c["visible_fraction"] >= 0.5]
        total += len(whole)
        found += sum(j in used for j in whole)
    recall, precision = found / max(total, 1), found / max(found + fp, 1)
    print(f"no mat (fallback on the raw image, {n} scenes): recall {recall:.3f} "
          f"({found}/{total}), precision {precision:.3f} ({fp} false)")
    return {"scenes": n, "recall": recall, "precision": precision}


# ---- 3. events on fixture videos ----------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--oracle", action="store_true",
                    help="also run the videos with the ground-truth oracle classifier")
    ap.add_argument("--profile", action="store_true",
                    help="also run the videos with a profile enrolled from each film's deck")
    ap.add_argument("--real-art", action="store_true",
                    help="events on the films shot again with the PySolFC decks (a user's "
                         "own deck; rendered into a temporary folder, a few minutes)")
    ap.add_argument("--films", type=Path, default=None,
                    help="with --real-art: keep the rendered films in this folder and use "
                         "them again on the next run")
    ap.add_argument("--doubtful", type=int, default=None,
                    help="with --profile: unchanged doubtful cards read a frame (0: all; "
                         f"default as served: {DOUBTFUL_PER_FRAME}, or all with a profile "
                         "that names no card by itself)")
    ap.add_argument("--no-elimination", action="store_true",
                    help="events with the referee asking about every unsure card")
    ap.add_argument("--only", choices=["speed", "detect", "events"], default=None)
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    out = {}
    doubtful = "served" if args.doubtful is None else (args.doubtful or None)
    if args.only in (None, "speed"):
        out["speed"] = bench_speed(args.frames)
    if args.only in (None, "detect"):
        out["detect"] = bench_detect(args.scenes)
    if args.only in (None, "events"):
        if args.real_art:
            import tempfile
            with tempfile.TemporaryDirectory() as tmp:
                films = args.films or Path(tmp)
                films.mkdir(parents=True, exist_ok=True)
                out["events"] = bench_events(False, args.profile, films, doubtful,
                                             not args.no_elimination)
        else:
            out["events"] = bench_events(args.oracle, args.profile, doubtful=doubtful,
                                         by_elimination=not args.no_elimination)
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=float))
    return 0


if __name__ == "__main__":
    sys.exit(main())
