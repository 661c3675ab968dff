"""Rendering speed of the synthetic data: card faces per second and scenes per second.

Scenes are the same seeded random specs as the held-out fixture set (random styles,
poses, lights, hands), rendered in one process. "cold" is the first pass over the specs,
which also draws every card face it needs; "warm" renders the same specs again with the
face and texture caches filled, which is what a long training-data run converges to.
Usage:

    .venv/bin/python benchmarks/bench_render.py [--scenes 40] [--sizes 1280x720 960x540]
        [--training-scenes 150]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from companion.cards import DeckKind, deck_cards
from companion.synth import decks, faces
from companion.synth.scene import random_scene_spec, render_scene


def bench_faces(size: int, n_cards: int = 48) -> float:
    cards = (deck_cards(DeckKind.MUGHAL) + deck_cards(DeckKind.DASHAVATARA))[:n_cards]
    faces._render_face.cache_clear()
    start = time.perf_counter()
    for i, card in enumerate(cards):
        faces.render_face(card, i % faces.N_STYLES, 1000 + i, size)
    return len(cards) / (time.perf_counter() - start)


def bench_scenes(width: int, height: int, n: int, source: str) -> tuple[float, float]:
    specs = [random_scene_spec(np.random.default_rng([2026, i]), width, height, source=source)
             for i in range(n)]
    faces._render_face.cache_clear()
    rates = []
    for _ in range(2):
        start = time.perf_counter()
        for spec in specs:
            render_scene(spec)
        rates.append(n / (time.perf_counter() - start))
    return rates[0], rates[1]


def bench_training_scenes(n: int) -> tuple[float, float]:
    """(scenes/s, crops/s) of ``companion.train_scenes.scene_crops_one``, as a long training
    run renders them: each scene new, after ``n`` others warmed the caches."""
    from companion.train_scenes import TRAINING_SCENE_SEED, scene_crops_one
    for i in range(n):
        scene_crops_one(TRAINING_SCENE_SEED, 100_000 + i)
    start, crops = time.perf_counter(), 0
    for i in range(n):
        crops += len(scene_crops_one(TRAINING_SCENE_SEED, i)[0])
    secs = time.perf_counter() - start
    return n / secs, crops / secs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--sizes", nargs="+", default=["1280x720", "960x540", "640x360"])
    ap.add_argument("--training-scenes", type=int, default=150)
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, one process")
    print()
    print("| card faces | faces/s (cold, no cache) |")
    print("|---|---|")
    for size in (64, 128, 256, 768):
        print(f"| {size} px | {bench_faces(size):.1f} |")
    print()
    print("| scenes | source | scenes/s cold | scenes/s warm |")
    print("|---|---|---|---|")
    sources = ["own"] + (["pysol-mughal"] if decks.pysol_available("pysol-mughal") else [])
    for size in args.sizes:
        w, h = (int(v) for v in size.split("x"))
        for source in sources:
            cold, warm = bench_scenes(w, h, args.scenes, source)
            print(f"| {w}x{h} | {source} | {cold:.2f} | {warm:.2f} |")
    print()
    scenes, crops = bench_training_scenes(args.training_scenes)
    print("| training scenes (companion.train_scenes, new scenes, caches warm) | scenes/s | "
          "crops/s |")
    print("|---|---|---|")
    print(f"| {args.training_scenes} scenes | {scenes:.2f} | {crops:.1f} |")


if __name__ == "__main__":
    main()
