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


def test_train_rejects_bad_options(capsys):
    assert main(["train", "--tiny", "--minutes", "0"]) == 2
    assert "--minutes" in capsys.readouterr().err
    assert main(["train", "--tiny", "--seeds", "a,b"]) == 2
    assert "--seeds" in capsys.readouterr().err
