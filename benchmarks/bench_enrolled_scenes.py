"""The held-out fixture scenes read with each scene's own deck enrolled; prints a table.

    python benchmarks/bench_enrolled_scenes.py [--step 3] [--model PATH]

Each fixture scene holds one printed deck of our own art (one style and one print seed).
A player with that deck would enrol it from one picture per card, so every ``step``-th
scene gets a profile enrolled from its deck's flat faces (``enroll_images``, as the
dashboard's "Enrol a deck" page builds it). The cards a detector would return (visible
>= 0.7, face up or down) are read in one batch, as one frame is, by the model alone (the
deck's suit mask) and with the profile. Counted: face-up cards named right, read at the
tracker's bar, and wrong among those. Enrolment takes most of the time (a few seconds a
scene).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.cards import Card, deck_cards
from companion.synth.faces import render_face
from companion.synth.sceneset import scene_print
from companion.vision.classify import DEFAULT_MODEL, CardClassifier
from companion.vision.crops import crop_from_scene
from companion.vision.enroll import enroll_images
from companion.vision.track import TableTracker

SCENES = ROOT / "fixtures" / "scenes"
SURE = TableTracker().min_confidence


def measure(model: Path, step: int) -> dict[str, list[int]]:
    counts = {f"{how}: {what}": [0, 0] for how in ("model alone", "enrolled")
              for what in ("top-1", f"read at the bar ({SURE})", "wrong at the bar")}
    for js in sorted(SCENES.glob("scene_*.json"))[::step]:
        d = json.loads(js.read_text())
        shown = [c for c in d["cards"] if c["visible_fraction"] >= 0.7]
        up = [c for c in shown if c["face_up"]]
        if not up:
            continue
        deck = Card.parse(up[0]["card_id"]).deck
        style, seed = scene_print(d)
        img = cv2.imread(str(SCENES / d["image"]))
        crops = np.stack([crop_from_scene(img, d, c) for c in shown])
        alone = CardClassifier(model, deck=deck, threads=1)
        faces = {c.id: render_face(c, style, seed, 112) for c in deck_cards(deck)}
        profile = enroll_images(faces, js.stem, alone)
        for how, reader in (("model alone", alone),
                            ("enrolled", CardClassifier(model, profile=profile, threads=1))):
            res = reader.classify(crops)
            for cid, conf, c in zip(res.card_ids, res.confidence, shown):
                if not c["face_up"]:
                    continue
                right, sure = cid == c["card_id"], conf >= SURE
                counts[f"{how}: top-1"][0] += right
                counts[f"{how}: top-1"][1] += 1
                counts[f"{how}: read at the bar ({SURE})"][0] += sure
                counts[f"{how}: read at the bar ({SURE})"][1] += 1
                counts[f"{how}: wrong at the bar"][0] += sure and not right
                counts[f"{how}: wrong at the bar"][1] += sure
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--step", type=int, default=3, help="read every step-th scene")
    args = ap.parse_args(argv)
    t0 = time.time()
    counts = measure(args.model, max(1, args.step))
    print(f"## Fixture scenes (one in {args.step}), each read with its own deck enrolled")
    print("| reading | count | share |\n|---|---|---|")
    for k, (a, n) in counts.items():
        print(f"| {k} | {a}/{n} | {100 * a / max(n, 1):.2f}% |")
    print(f"\n{time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
