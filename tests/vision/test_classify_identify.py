"""`companion identify IMAGE [--deck] [--json]` on held-out fixture scenes, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.vision.classify import DEFAULT_MODEL

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"
pytestmark = pytest.mark.skipif(not DEFAULT_MODEL.is_file() or not SCENES.is_dir(),
                                reason="needs the shipped model and the fixture scenes")


def test_identify_json_lists_the_cards_of_a_mat_scene(capsys):
    scene = SCENES / "scene_00003.jpg"
    truth = json.loads(scene.with_suffix(".json").read_text())
    assert main(["identify", str(scene), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["view"] == "mat"
    rows = out["cards"]
    assert rows and {"card", "name", "suit", "rank", "confidence", "position_mm",
                     "candidates"} <= set(rows[0])
    seen = {r["card"] for r in rows if r["card"]}
    clear = {c["card_id"] for c in truth["cards"]
             if c["face_up"] and c["visible_fraction"] >= 0.95}
    assert len(seen & clear) >= len(clear) - 1, (seen, clear)
    face_down = sum(1 for c in truth["cards"] if not c["face_up"])
    assert sum(r["name"] == "face-down" for r in rows) == face_down


def test_identify_prints_a_readable_list(capsys):
    assert main(["identify", str(SCENES / "scene_00003.jpg"), "--deck", "dashavatara"]) == 0
    text = capsys.readouterr().out
    assert "mat view" in text and " mm" in text


def test_identify_bad_input(tmp_path, capsys):
    assert main(["identify", str(tmp_path / "none.jpg")]) == 2
    assert "no such image" in capsys.readouterr().err
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    assert main(["identify", str(junk)]) == 2
    assert "not an image" in capsys.readouterr().err
    assert main(["identify", str(SCENES / "scene_00003.jpg"), "--deck", "tarot"]) == 2
    assert "unknown deck" in capsys.readouterr().err


@pytest.mark.parametrize("source", ["own", "pysol-mughal"])
def test_identify_says_when_the_model_does_not_know_the_deck(tmp_path, capsys, source):
    """A photo of 12 face-up cards of our art, and of the PySolFC Mughal deck's."""
    import cv2
    import numpy as np

    from companion.synth import decks
    from companion.synth.scene import random_scene_spec, render_scene
    if source != "own" and not decks.pysol_available(source):
        pytest.skip("real-art decks not found in ../shared/decks")
    spec = random_scene_spec(np.random.default_rng(3), source=source, deck=None, mat=True,
                             n_cards=12, hands=0, lighting="neutral", tilt_max=10.0,
                             face_down_rate=0.0, placement="anywhere")
    photo = tmp_path / "table.png"
    cv2.imwrite(str(photo), render_scene(spec).image)
    assert main(["identify", str(photo), "--json"]) == 0
    art = json.loads(capsys.readouterr().out)["art"]
    assert art["readings"] >= 8 and art["familiar"] is (source == "own")
    assert main(["identify", str(photo)]) == 0
    said = "the model does not know this deck's art" in capsys.readouterr().out
    assert said is (source != "own")
