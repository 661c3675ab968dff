"""Training runs end to end on a tiny set, and its ONNX model serves through CardClassifier."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch", reason="training needs the [train] extra (torch)")
pytest.importorskip("onnx", reason="ONNX export needs the [train] extra (onnx)")

from companion.cards import DeckKind, deck_cards, suits_of
from companion.cli import main
from companion.vision.classify import CardClassifier
from companion.vision.crops import GENTLE, place_card


def test_tiny_training_writes_a_servable_model_and_its_card(tmp_path, capsys):
    out = tmp_path / "tiny.onnx"
    assert main(["train", "--tiny", "--out", str(out)]) == 0
    assert out.is_file() and out.stat().st_size < 5_000_000
    card = json.loads(out.with_suffix(".json").read_text())
    assert len(card["classes"]["suits"]) == 18 and len(card["classes"]["ranks"]) == 12
    assert card["training"]["history"], "no training pass was logged"
    import onnx
    ops = {n.op_type for n in onnx.load(str(out)).graph.node}
    assert card["weights"].startswith("8-bit") and "QLinearConv" in ops and "Conv" not in ops
    assert not _signed_weights(out)
    assert out.with_suffix(".md").read_text().startswith("# Model card")
    assert "wrote" in capsys.readouterr().out

    from companion.synth.faces import render_face
    rng = np.random.default_rng(0)
    cards = deck_cards(DeckKind.MUGHAL)[:5]
    crops = np.stack([place_card(render_face(c, 0, 0, 64), rng, GENTLE) for c in cards])
    res = CardClassifier(out, deck=DeckKind.MUGHAL).classify(crops)
    assert len(res) == 5 and res.embeddings.shape == (5, card["embedding_dim"])
    assert np.allclose(np.linalg.norm(res.embeddings, axis=1), 1.0, atol=1e-4)
    mughal = {s.value for s in suits_of(DeckKind.MUGHAL)}
    for top in res.topk:  # the deck mask keeps Dashavatara suits out
        assert all(cid.rpartition("-")[0] in mughal for cid, _ in top)


def _signed_weights(path) -> list[str]:
    import onnx
    model = onnx.load(str(path))
    tensors = {t.name: t for t in model.graph.initializer}
    return [n.input[3] for n in model.graph.node if n.op_type in ("QLinearConv", "QGemm")
            and tensors[n.input[3]].data_type == onnx.TensorProto.INT8]


def test_the_shipped_model_has_no_weights_that_saturate_on_avx2():
    from companion.vision.classify import DEFAULT_MODEL
    if not DEFAULT_MODEL.is_file():
        pytest.skip("no shipped model")
    assert not _signed_weights(DEFAULT_MODEL)


def test_unsigned_weights_compute_the_exact_integer_convolution(tmp_path):
    """Four input channels of 255 times weights of 127: each pair of products is 64770,
    past the 16 bits that onnxruntime's U8S8 AVX2 kernel adds pairs into. Stored unsigned,
    the same weights give the exact sum on any CPU."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from companion.train_quantize import unsigned_weights

    c = 4
    consts = [numpy_helper.from_array(v, k) for k, v in {
        "xs": np.array(1.0, np.float32), "xz": np.array(0, np.uint8),
        "w": np.full((1, c, 1, 1), 127, np.int8), "ws": np.array([1.0], np.float32),
        "wz": np.array([0], np.int8), "ys": np.array(1000.0, np.float32),
        "yz": np.array(0, np.uint8)}.items()]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"],
                            ["y"])
    graph = helper.make_graph(
        [node], "conv", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, c, 1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 1, 1, 1])], consts)
    signed = tmp_path / "signed.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(signed))
    assert unsigned_weights(signed, tmp_path / "unsigned.onnx") == 2
    assert _signed_weights(signed) and not _signed_weights(tmp_path / "unsigned.onnx")
    run = ort.InferenceSession(str(tmp_path / "unsigned.onnx"),
                               providers=["CPUExecutionProvider"])
    y = run.run(None, {"x": np.full((1, c, 1, 1), 255, np.uint8)})[0]
    assert int(y.ravel()[0]) == round(c * 255 * 127 / 1000)  # 130; saturated pairs give 66


def test_train_rejects_bad_options(capsys):
    assert main(["train", "--tiny", "--minutes", "0"]) == 2
    assert "--minutes" in capsys.readouterr().err
    assert main(["train", "--tiny", "--seeds", "a,b"]) == 2
    assert "--seeds" in capsys.readouterr().err


def test_training_crops_include_harsh_webcam_degradations():
    from companion.synth.faces import render_face
    from companion.train import ALL_CARDS
    from companion.vision import crops as C

    face = render_face(ALL_CARDS[0], 0, 0, 96)
    sharp = np.stack([place_card(face, np.random.default_rng(i), C.Jitter()) for i in range(40)])
    harsh = np.stack([C.degrade(place_card(face, np.random.default_rng(i), C.Jitter()),
                                np.random.default_rng(100 + i)) for i in range(40)])
    assert harsh.shape == sharp.shape and harsh.dtype == np.uint8

    def detail(imgs):  # mean gradient energy: blur takes it away
        g = imgs.astype(np.float32).mean(axis=3)
        return float(np.abs(np.diff(g, axis=1)).mean() + np.abs(np.diff(g, axis=2)).mean())

    assert detail(harsh) < 0.8 * detail(sharp)
    means = harsh.reshape(len(harsh), -1).mean(axis=1)
    assert means.min() < 50 and means.max() > 200  # dark and blown-out frames both occur

    # make_batch sends its share of crops through it; held-out conditions never go there
    from companion.train import FaceBank, make_batch
    bank = FaceBank([face], [0], [face])
    plain, _ = make_batch(bank, 48, 1, 0.1, degraded_share=0.0)
    worn, _ = make_batch(bank, 48, 1, 0.1, degraded_share=1.0)
    assert detail(worn.transpose(0, 2, 3, 1)) < 0.8 * detail(plain.transpose(0, 2, 3, 1))
    assert C.TRAINING.degrade_p > 0
    assert all(j.degrade_p == 0 for j in (C.Jitter(), C.GENTLE, *C.POSES.values()))


def test_scene_crops_are_labelled_with_the_cards_under_them():
    """Cards cut from whole training scenes carry their scene's truth: the same seed gives
    the same crops, and the shipped model reads most of them as their labels say (a label
    shifted to the wrong crop would read as chance)."""
    from companion.train_scenes import scene_crops
    from companion.vision import crops as C
    from companion.vision.classify import DEFAULT_MODEL, CardClassifier

    x, y = scene_crops(24, seed=123, workers=1)
    x2, y2 = scene_crops(24, seed=123, workers=2)
    assert np.array_equal(x, x2) and np.array_equal(y, y2)
    assert x.dtype == np.uint8 and x.shape[1:] == (3, 64, 64) and len(x) == len(y) > 40
    assert set(y[:, 2]) <= {C.KIND_CARD, C.KIND_FACE_DOWN, C.KIND_NOT_CARD}
    cards = y[:, 2] == C.KIND_CARD
    assert (y[cards, 3] >= 0).all() and (y[~cards, 3] == -1).all()
    if not DEFAULT_MODEL.is_file():
        pytest.skip("no shipped model")
    from companion.train import ALL_CARDS
    clf = CardClassifier(DEFAULT_MODEL)
    res = clf.classify(np.ascontiguousarray(x[cards].transpose(0, 2, 3, 1)))
    truth = [ALL_CARDS[i].id for i in y[cards, 3]]
    right = np.mean([a == b for a, b in zip(res.card_ids, truth)])
    assert right >= 0.6


def test_train_rejects_negative_scene_counts(capsys):
    assert main(["train", "--tiny", "--scenes", "-1"]) == 2
    assert "--scenes" in capsys.readouterr().err
