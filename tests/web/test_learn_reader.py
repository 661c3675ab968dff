"""The Learn page names a card with the deck profile named on Setup, as the camera does, and
says when its name is only a guess."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.classify import DEFAULT_MODEL

MUGHAL_DIR = Path(__file__).resolve().parents[3] / "shared" / "decks" / "pysol-mughal-ganjifa-xl"
pytestmark = [pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model"),
              pytest.mark.skipif(not MUGHAL_DIR.is_dir(), reason="no ../shared/decks")]
CARD = "chandra-7"  # the model alone reads the 7 of Varaha, the enrolled deck this card


def _photo(card: str) -> io.BytesIO:
    from companion.vision.crops import eval_crop
    from companion.vision.enroll import read_manifest
    (name,) = [f for f, c in read_manifest(MUGHAL_DIR / "manifest.csv") if c == card]
    face = cv2.imread(str(MUGHAL_DIR / name), cv2.IMREAD_UNCHANGED)
    crop = eval_crop(face, "flat", "even", np.random.default_rng(0))
    return io.BytesIO(cv2.imencode(".png", crop)[1].tobytes())


def _identify(client) -> dict:
    r = client.post("/api/identify", data={"photo": (_photo(CARD), "card.png")})
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def test_the_learn_page_reads_with_the_profile_named_on_setup(make_app, tmp_path, start):
    from companion.vision.classify import CardClassifier
    from companion.vision.enroll import enroll_folder, save_profile
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    save_profile(enroll_folder(MUGHAL_DIR, MUGHAL_DIR / "manifest.csv", "pysol",
                               CardClassifier()), profiles / "pysol.npz")
    app = make_app(PROFILES_DIR=str(profiles))
    client = app.test_client()
    alone = _identify(client)
    assert alone["card"]["id"] != CARD and alone["profile"] == ""
    assert alone["message"] == ""  # nothing says the art is new yet
    app.extensions["companion"].table.camera.art = "the model does not know this deck's art"
    assert _identify(client)["message"].startswith("a guess")
    start(client, "kendra-kari", 4, deck_profile="pysol")
    named = _identify(client)
    assert named["card"]["id"] == CARD and named["profile"] == "pysol"
    assert named["message"] == ""
    start(client, "kendra-kari", 4, deck_profile="no-such-profile")
    assert _identify(client)["profile"] == ""  # the model alone, as the camera falls back
