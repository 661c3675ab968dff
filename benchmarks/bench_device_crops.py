"""Pasted training crops made on the training device (companion.train_device_crops): how
fast they come, and whether the shipped model reads them as it reads the CPU's.

Needs the [train] extra (torch). On a GPU machine pass ``--device cuda``; on the 2-core box
the CPU path is slow (it is for a GPU), and ``--accuracy`` is the interesting part. Usage:

    .venv/bin/python benchmarks/bench_device_crops.py [--device cuda] [--sizes 1280 4096]
        [--accuracy 512]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from companion import train as T
from companion.vision import crops as C
from companion.vision.classify import DEFAULT_MODEL


def speed(made, n: int, runs: int, device: str) -> float:
    """Crops a second for batches of ``n``, after one warm-up batch."""
    def sync():
        if device.startswith("cuda"):
            torch.cuda.synchronize()
    made.batch(n)
    sync()
    start = time.perf_counter()
    for _ in range(runs):
        made.batch(n)
    sync()
    return n * runs / (time.perf_counter() - start)


def read_right(x: np.ndarray, y: np.ndarray) -> float:
    """The share of card crops the shipped model reads right (suit and rank)."""
    import onnxruntime as ort
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    suit, rank = session.run(None, {"crops": x.astype(np.float32)})[:2]
    card = y[:, 2] == C.KIND_CARD
    return float(((suit.argmax(1) == y[:, 0]) & (rank.argmax(1) == y[:, 1]))[card].mean())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--sizes", type=int, nargs="*", default=[1280])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--accuracy", type=int, default=0,
                    help="also read this many crops of each kind with the shipped model")
    args = ap.parse_args(argv)
    # a print no model was trained on (training uses seeds 0-15 at most)
    bank = T.render_bank(T.TrainConfig(seeds=(1000,), workers=2))
    made = T._device_crops(T.TrainConfig(device_crops=1, device=args.device), bank)
    print("| device | batch | crops/s |\n|---|---|---|")
    for n in args.sizes:
        print(f"| {args.device} | {n} | {speed(made, n, args.runs, args.device):,.0f} |")
    if args.accuracy:
        x, y = made.batch(args.accuracy)
        cpu_x, cpu_y = T.make_batch(bank, args.accuracy, 5, T.TrainConfig.negative_share)
        print("\n| crops (print seed 1000) | shipped model reads right |\n|---|---|")
        print(f"| device crops | {read_right(x.cpu().numpy(), y.cpu().numpy()):.1%} |")
        print(f"| CPU pasted crops (train.make_batch) | {read_right(cpu_x, cpu_y):.1%} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
