"""A folder of rendered scenes with one ground-truth JSON per image.

Scene ``i`` of a set is drawn from ``numpy.random.default_rng([seed, i])`` and cycles
through the art styles and the lighting kinds, so that even a small set covers them all;
the same arguments write byte-identical files.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from companion.synth import decks
from companion.synth.effects import LIGHT_KINDS
from companion.synth.faces import N_STYLES
from companion.synth.progress import ProgressBar
from companion.synth.scene import random_scene_spec, render_scene


def scene_source(source: str, index: int) -> str:
    if source == "own":
        return f"style-{index % N_STYLES}"
    decks.check_source(source)
    return source


def scene_print(truth: dict) -> tuple[int, int]:
    """(style, print seed) of the deck of our own art in a scene that ``write_scene_set``
    wrote (its JSON), drawn again from the scene's seed: the faces a player holding that
    deck would enrol (``render_face(card, style, seed, ...)``)."""
    w, h = truth["image_size"]
    seed, index = truth["scene_seed"]
    spec = random_scene_spec(np.random.default_rng([seed, index]), w, h,
                             source=scene_source("own", index), lighting=truth["lighting"])
    placed = spec.cards[0]
    return int(placed.source.removeprefix("style-")), placed.seed


def write_scene_set(out_dir: Path, count: int, seed: int = 0, width: int = 1280,
                    height: int = 720, source: str = "own", jpeg_quality: int = 90,
                    progress: ProgressBar | None = None) -> list[str]:
    """Writes ``scene_NNNNN.jpg`` + ``.json`` and ``index.json``; returns the image names."""
    out_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(count):
        rng = np.random.default_rng([seed, i])
        light = LIGHT_KINDS[(i // N_STYLES) % len(LIGHT_KINDS)]
        spec = random_scene_spec(rng, width, height, source=scene_source(source, i),
                                 lighting=light)
        scene = render_scene(spec)
        name = f"scene_{i:05d}"
        _ok, buf = cv2.imencode(".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, jpeg_quality])
        (out_dir / f"{name}.jpg").write_bytes(buf.tobytes())
        truth = scene.truth_json()
        truth.update({"image": f"{name}.jpg", "scene_seed": [seed, i], "lighting": light,
                      "table": spec.table_kind, "mat_game": spec.mat_game,
                      "hands": len(spec.hands)})
        (out_dir / f"{name}.json").write_text(json.dumps(truth, indent=1) + "\n")
        names.append(f"{name}.jpg")
        if progress:
            progress(i + 1, count)
    index = {"count": count, "seed": seed, "size": [width, height], "source": source,
             "jpeg_quality": jpeg_quality, "images": names,
             "note": "Held-out evaluation scenes: never train on them."}
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n")
    return names
