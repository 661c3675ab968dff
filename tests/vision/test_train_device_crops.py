"""Pasted training crops made on the training device (companion.train_device_crops) look to
the shipped model as the CPU's pasted crops do, carry their labels, and feed a training run."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (torch)")
pytest.importorskip("onnx", reason="ONNX export needs the [train] extra (onnx)")

import torch

from companion import train as T
from companion.cli import main
from companion.vision import crops as C
from companion.vision.classify import DEFAULT_MODEL


@pytest.fixture(scope="module")
def held_out_bank():
    """Every card of every style, in a print no model was trained on (seed 1000)."""
    return T.render_bank(T.TrainConfig(seeds=(1000,), workers=2))


def _read(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Cards read right (suit and rank) among the card crops, and kinds read right."""
    import onnxruntime as ort
    session = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"])
    suit, rank, kind = session.run(None, {"crops": x.astype(np.float32)})[:3]
    card = y[:, 2] == C.KIND_CARD
    right = (suit.argmax(1) == y[:, 0]) & (rank.argmax(1) == y[:, 1])
    return float(right[card].mean()), float((kind.argmax(1) == y[:, 2]).mean())


def test_device_crops_read_like_the_cpus_pasted_crops(held_out_bank):
    """A crop whose card were put in the wrong place, wrongly labelled, or drowned in
    augmentation would read far worse than the CPU's crops of the same print."""
    if not DEFAULT_MODEL.is_file():
        pytest.skip("no shipped model")
    torch.set_num_threads(2)
    made = T._device_crops(T.TrainConfig(device_crops=1), held_out_bank)
    x, y = made.batch(320)
    assert x.shape == (320, 3, 64, 64) and x.dtype == torch.uint8
    cpu_x, cpu_y = T.make_batch(held_out_bank, 320, 5, T.TrainConfig.negative_share)
    cards, kinds = _read(x.numpy(), y.numpy())
    cpu_cards, _ = _read(cpu_x, cpu_y)
    assert cards > 0.7 and cards > cpu_cards - 0.1, (cards, cpu_cards)
    assert kinds > 0.95


def test_device_crops_carry_their_labels_and_repeat_with_their_seed(held_out_bank):
    cfg = T.TrainConfig(device_crops=1, input_px=96, seed=3)
    x, y = T._device_crops(cfg, held_out_bank).batch(50)
    again, _ = T._device_crops(cfg, held_out_bank).batch(50)
    assert torch.equal(x, again)
    assert x.shape == (50, 3, 96, 96)
    n_neg = int(50 * cfg.negative_share)
    assert (y[:n_neg, 2] == C.KIND_FACE_DOWN).all()
    assert (y[n_neg:2 * n_neg, 2] == C.KIND_NOT_CARD).all()
    assert (y[:2 * n_neg, [0, 1, 3]] == -1).all()
    faces = y[2 * n_neg:]
    assert (faces[:, 2] == C.KIND_CARD).all()
    for suit, rank, _kind, index in faces.tolist():
        card = T.ALL_CARDS[index]
        assert (T.SUITS[suit], T.RANKS[rank]) == (card.suit.value, card.rank.token)
    # a harsh camera darkens or blows out some crops; the mild one keeps most in between
    means = x[2 * n_neg:].float().mean(dim=(1, 2, 3))
    assert means.min() < 60 and means.max() > 150


def test_a_training_run_adds_device_crops_to_every_step(tmp_path):
    out = tmp_path / "tiny.onnx"
    assert main(["train", "--tiny", "--device-crops", "16", "--out", str(out)]) == 0
    card = json.loads(out.with_suffix(".json").read_text())
    assert card["training"]["recipe"]["device_crops"] == 16
    assert "companion.train_device_crops" in card["training"]["data"]
    history = card["training"]["history"]
    assert history[-1]["device_crops"] == 16 * sum(h["crops"] for h in history) // 64
