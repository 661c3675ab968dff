"""Training on from an exported (int8, folded) model: its weights come back into a CardNet."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (torch)")
pytest.importorskip("onnx", reason="ONNX export needs the [train] extra (onnx)")

import torch

from companion.cards import DeckKind, deck_cards
from companion.cli import main
from companion.vision.classify import DEFAULT_MODEL, preprocess
from companion.vision.crops import GENTLE, place_card


def _crops(n: int) -> np.ndarray:
    from companion.synth.faces import render_face
    rng = np.random.default_rng(3)
    cards = deck_cards(DeckKind.DASHAVATARA)[:n]
    return preprocess(np.stack([place_card(render_face(c, i % 8, 1000, 112), rng, GENTLE)
                                for i, c in enumerate(cards)]))


def test_a_net_started_from_the_shipped_model_reads_what_the_shipped_model_reads():
    import onnxruntime as ort

    from companion.train import CardNet
    from companion.train_init import load_exported
    if not DEFAULT_MODEL.is_file():
        pytest.skip("no shipped model")
    x = _crops(60)
    want = ort.InferenceSession(str(DEFAULT_MODEL), providers=["CPUExecutionProvider"]).run(
        None, {"crops": x.astype(np.float32)})
    net = CardNet((16, 32, 64, 128))
    load_exported(net, DEFAULT_MODEL, torch.from_numpy(x))
    for mode in (net.eval, net.train):  # training mode normalises by the batch's statistics
        mode()
        with torch.no_grad():
            got = [t.numpy() for t in net(torch.from_numpy(x).float())]
        for name, g, w in zip(("suit", "rank", "kind"), got, want):
            agree = (g.argmax(1) == w.argmax(1)).mean()
            assert agree >= 0.95, f"{name}: the float net agrees on only {agree:.0%}"
        assert np.abs(got[3] - want[3]).max() < 0.1  # unit embeddings, int8 rounding apart


def test_widths_that_differ_from_the_exported_model_are_refused():
    from companion.train import CardNet
    from companion.train_init import load_exported
    if not DEFAULT_MODEL.is_file():
        pytest.skip("no shipped model")
    with pytest.raises(ValueError, match="convolution"):
        load_exported(CardNet((8, 8, 16, 16)), DEFAULT_MODEL, torch.zeros(2, 3, 64, 64))


def test_training_on_from_an_exported_model_records_where_it_started(tmp_path, capsys):
    first, second = tmp_path / "first.onnx", tmp_path / "second.onnx"
    assert main(["train", "--tiny", "--out", str(first)]) == 0
    assert main(["train", "--tiny", "--out", str(second), "--init-from", str(first),
                 "--lr", "0.001", "--crop-seed", "5", "--scene-seed", "9101"]) == 0
    assert "starting from the weights of" in capsys.readouterr().out
    card = json.loads(second.with_suffix(".json").read_text())
    recipe = card["training"]["recipe"]
    assert (recipe["init_from"], recipe["lr"], recipe["seed"], recipe["scene_seed"]) == (
        str(first), 0.001, 5, 9101)
    before = json.loads(first.with_suffix(".json").read_text())["training"]
    assert card["training"]["started_from"] == before
    assert f"started from the weights of `{first}`" in second.with_suffix(".md").read_text()


@pytest.mark.parametrize("args, says", [
    (["--init-from", "no/such.onnx"], "no such model"),
    (["--scene-seed", "2026"], "held-out fixture scenes"),
    (["--lr", "0"], "--lr"),
    (["--hold-embedding", "0"], "--hold-embedding must be positive"),
    (["--hold-embedding", "1"], "--init-from's model"),
])
def test_train_on_refuses_bad_options(args, says, capsys):
    assert main(["train", "--tiny", *args]) == 2
    assert says in capsys.readouterr().err


def test_training_on_streams_on_many_cores_from_the_first_crops_to_arrive(tmp_path, capsys):
    first, second = tmp_path / "first.onnx", tmp_path / "second.onnx"
    assert main(["train", "--tiny", "--out", str(first)]) == 0
    assert main(["train", "--tiny", "--out", str(second), "--init-from", str(first),
                 "--stream-capacity", "1500", "--max-passes", "100000", "--minutes", "0.2",
                 "--float", "--crop-seed", "5"]) == 0
    assert "starting from the weights of" in capsys.readouterr().out
    training = json.loads(second.with_suffix(".json").read_text())["training"]
    assert training["recipe"]["init_from"] == str(first)
    assert training["recipe"]["stream_capacity"] == 1500
    assert training["history"][0]["pool"] >= 1500  # it started from a full sample


def test_training_on_cannot_also_train_other_sizes(tmp_path, capsys):
    first = tmp_path / "first.onnx"
    assert main(["train", "--tiny", "--out", str(first)]) == 0
    assert main(["train", "--tiny", "--out", str(tmp_path / "b.onnx"), "--init-from",
                 str(first), "--also-widths", "8,8,16,16"]) == 2
    assert "--also-widths" in capsys.readouterr().err


def test_holding_the_embedding_keeps_it_near_the_starting_models(tmp_path):
    """Deck profiles match embeddings, so a run told to hold them moves them less from
    those of the model it started from than the same run told nothing."""
    import onnxruntime as ort

    from companion import train as T
    first = tmp_path / "first.onnx"
    assert main(["train", "--tiny", "--out", str(first)]) == 0
    later = {}
    for name, extra in (("free", []), ("held", ["--hold-embedding", "20"])):
        later[name] = tmp_path / f"{name}.onnx"
        assert main(["train", "--tiny", "--out", str(later[name]), "--init-from", str(first),
                     "--lr", "0.01", "--crop-seed", "5", *extra]) == 0
    bank = T.render_bank(T.tiny_config(first))
    x, _labels = T.make_batch(bank, 200, 11, 0.0, input_px=64)

    def embedding(path):
        session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        return session.run(None, {"crops": x.astype(np.float32)})[3]

    start = embedding(first)
    near = {k: float((embedding(v) * start).sum(axis=1).mean()) for k, v in later.items()}
    assert near["held"] > near["free"] + 0.02, near
