"""Live enrolment on the dashboard: scan the mat, confirm names, save a deck profile."""

from __future__ import annotations

import base64
import dataclasses
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cards import Card, DeckKind
from companion.vision.classify import DEFAULT_MODEL, KNOWN_ART, CardClassifier
from companion.vision.enroll import load_profile, save_profile
from companion.web.capture import CaptureThread
from companion.web.vision_feed import card_reader as _classifier

SCENES = Path(__file__).resolve().parents[2] / "fixtures" / "scenes"
pytestmark = [pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model"),
              pytest.mark.skipif(not (SCENES / "index.json").is_file(),
                                 reason="no fixture scenes")]


def _table_with_cards(min_cards: int = 4):
    """A fixture camera picture (on the mat) with at least ``min_cards`` whole face-up cards,
    all of one deck, and those cards' truth."""
    for js in sorted(SCENES.glob("scene_*.json")):
        d = json.loads(js.read_text())
        whole = [c for c in d["cards"] if c["face_up"] and c["visible_fraction"] >= 0.95]
        if d.get("mat_game") and len(whole) >= min_cards and \
                len({Card.parse(c["card_id"]).deck for c in whole}) == 1:
            return cv2.imread(str(SCENES / d["image"])), whole
    raise AssertionError("no fixture scene with enough whole cards of one deck")


def _labels(scanned: list[dict], whole: list[dict]) -> dict[str, str]:
    """The true card of each scanned card that lies where a whole card does."""
    out = {}
    for c in scanned:
        near = [w for w in whole if np.hypot(*(np.array(w["center_px"]) - c["center_px"]))
                < 0.3 * w["radius_px"]]
        if near:
            out[str(c["index"])] = near[0]["card_id"]
    return out


@pytest.fixture
def enrol_client(make_app, tmp_path):
    app = make_app(PROFILES_DIR=str(tmp_path / "profiles"))
    return app, app.test_client()


def test_cards_scanned_on_the_mat_and_confirmed_become_a_deck_profile(enrol_client, tmp_path,
                                                                       start, make_app):
    app, client = enrol_client
    assert client.post("/api/enroll/scan").status_code == 503  # no picture yet
    img, whole = _table_with_cards()
    # the hub holds what viewers see (with drawn labels) and what the camera saw
    app.extensions["companion"].hub.publish(np.zeros_like(img), img)
    r = client.post("/api/enroll/scan")
    assert r.status_code == 200, r.get_json()
    cards = r.get_json()["cards"]
    assert all(c["image"].startswith("data:image/png;base64,") for c in cards)
    truth = _labels(cards, whole)
    assert len(truth) >= len(whole) - 1  # every whole card is offered (one may be missed)
    # the readings offered are the model's: most already name the card
    assert sum(cards[int(k)]["reading"] == cid for k, cid in truth.items()) >= len(truth) - 1

    r = client.post("/api/enroll/confirm", json={"labels": truth})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["count"] == len(truth)
    # a restarted dashboard goes on with the cards confirmed so far
    app = make_app(PROFILES_DIR=app.config["PROFILES_DIR"])
    client = app.test_client()
    app.extensions["companion"].hub.publish(img, img)
    assert client.get("/api/enroll").get_json()["cards"] == sorted(truth.values())
    r = client.post("/api/enroll/save", json={"name": "my-deck"})
    assert r.status_code == 201, r.get_json()
    path = Path(r.get_json()["path"])
    assert path == tmp_path / "profiles" / "my-deck.npz"
    profile = load_profile(path)
    assert r.get_json()["model_agreement"] == round(profile.model_agreement, 3)
    assert r.get_json()["known_art"] == (profile.model_agreement >= KNOWN_ART)
    assert r.get_json()["from_camera"] and profile.from_camera  # see classify.ALWAYS_ASK
    assert sorted(profile.card_ids) == sorted(truth.values())
    # the profile reads the cards it was made from, and the draft starts again
    crops = np.stack([cv2.imdecode(np.frombuffer(base64.b64decode(
        cards[int(k)]["image"].split(",", 1)[1]), np.uint8), cv2.IMREAD_COLOR) for k in truth])
    res = CardClassifier(profile=profile).classify(crops)
    assert sum(a == b for a, b in zip(res.card_ids, truth.values())) >= len(truth) - 1
    assert client.get("/api/enroll").get_json()["count"] == 0
    assert not (path.parent / ".enroll-draft.npz").exists()
    # a game set up with this profile's name is read with it by the camera's pipeline
    start(client, deck_profile="my-deck")
    rt = app.extensions["companion"]
    capture = CaptureThread(rt.table, rt.hub, lambda: None,
                            profiles_dir=app.config["PROFILES_DIR"])
    assert capture._profile_path() == str(path)
    assert _classifier(profile.deck, str(path)).profile is not None
    other = next(d for d in DeckKind if d is not profile.deck)
    assert _classifier(other, str(path)).profile is None  # another deck's game: the model
    path.with_name("broken.npz").write_bytes(b"not a profile")
    assert _classifier(profile.deck, str(path.with_name("broken.npz"))).profile is None
    # enrolled with another model: the model alone reads, with the profile's deck
    save_profile(dataclasses.replace(profile, model="0" * 16), path.with_name("old.npz"))
    alone = _classifier(None, str(path.with_name("old.npz")))
    assert alone.profile is None and alone.deck is profile.deck
    # no profile is overwritten
    client.post("/api/enroll/scan")
    client.post("/api/enroll/confirm", json={"labels": truth})
    r = client.post("/api/enroll/save", json={"name": "my-deck"})
    assert r.status_code == 409 and "exists" in r.get_json()["error"]


def test_a_blurred_card_is_marked_to_be_scanned_again(enrol_client):
    """A blurred picture would teach the profile the blur (bench_live_enrolment.py)."""
    app, client = enrol_client
    img, _whole = _table_with_cards()
    hub = app.extensions["companion"].hub
    hub.publish(img, img)
    sharp = client.post("/api/enroll/scan").get_json()["cards"]
    assert all(isinstance(c["blurred"], bool) for c in sharp)
    soft = cv2.GaussianBlur(img, (0, 0), 4.0)
    hub.publish(soft, soft)
    r = client.post("/api/enroll/scan")
    assert r.status_code == 200, r.get_json()
    blurred = r.get_json()["cards"]
    assert blurred and all(c["blurred"] for c in blurred)
    assert sum(c["blurred"] for c in sharp) < len(sharp)


def test_bad_enrolment_requests_are_refused_with_a_reason(enrol_client):
    app, client = enrol_client
    img, whole = _table_with_cards()
    blank = np.full_like(img, 120)
    app.extensions["companion"].hub.publish(blank, blank)
    r = client.post("/api/enroll/scan")
    assert r.status_code == 422 and "no card found" in r.get_json()["error"]
    app.extensions["companion"].hub.publish(img, img)
    r = client.post("/api/enroll/save", json={"name": "x"})
    assert r.status_code == 400 and "no cards named yet" in r.get_json()["error"]
    truth = _labels(client.post("/api/enroll/scan").get_json()["cards"], whole)
    first, second = list(truth)[:2]
    cases = [
        ({"labels": {first: "joker-1"}}, "joker"),
        ({"labels": {first: "surya-7", second: "surya-7"}}, "each card exists once"),
        ({"labels": {"99": "surya-7"}}, "no card '99'"),
        ({"labels": {first: ""}}, "at least one"),
        ({"labels": {first: "surya-7", second: "matsya-7"}}, "one deck"),
        ({"labels": {first: "back", second: "back"}}, "the back is given to two cards"),
        ({"labels": [1]}, "'labels' must be"),
    ]
    for body, why in cases:
        r = client.post("/api/enroll/confirm", json=body)
        assert r.status_code == 400 and why in r.get_json()["error"], (body, r.get_json())
    assert client.get("/api/enroll").get_json()["count"] == 0  # nothing half-taken
    assert client.post("/api/enroll/confirm", json={"labels": {first: "back"}}).status_code == 200
    r = client.post("/api/enroll/save", json={"name": "only-a-back"})
    assert r.status_code == 400 and "no cards named yet" in r.get_json()["error"]
    client.post("/api/enroll/scan")
    assert client.post("/api/enroll/confirm", json={"labels": {first: "surya-7"}}).status_code == 200
    r = client.post("/api/enroll/save", json={"name": "../escape"})
    assert r.status_code == 400 and "profile name" in r.get_json()["error"]
    assert client.get("/enroll").status_code == 200


def test_a_card_lying_face_down_is_offered_and_enrolled_as_the_back(enrol_client):
    app, client = enrol_client
    for js in sorted(SCENES.glob("scene_*.json")):  # a mat with whole cards both ways up
        d = json.loads(js.read_text())
        whole = [c for c in d["cards"] if c["visible_fraction"] >= 0.95]
        up = [c for c in whole if c["face_up"]]
        down = [c for c in whole if not c["face_up"]]
        if not (d.get("mat_game") and up and down
                and len({Card.parse(c["card_id"]).deck for c in up}) == 1):
            continue
        img = cv2.imread(str(SCENES / d["image"]))
        app.extensions["companion"].hub.publish(img, img)
        cards = client.post("/api/enroll/scan").get_json()["cards"]
        faces = _labels(cards, up)
        backs = [c for c in cards if c["reading"] == "back"]
        if faces and backs:
            break
    else:
        raise AssertionError("no fixture scene where whole cards both ways up are scanned")
    # what is offered as the back lies face down
    assert all(min(np.hypot(*(np.array(w["center_px"]) - c["center_px"])) for w in down)
               < 0.3 * down[0]["radius_px"] for c in backs)
    labels = {**faces, str(backs[0]["index"]): "back"}
    r = client.post("/api/enroll/confirm", json={"labels": labels})
    assert r.status_code == 200 and "back" in r.get_json()["cards"], r.get_json()
    r = client.post("/api/enroll/save", json={"name": "with-back"})
    assert r.status_code == 201 and r.get_json()["back"] is True, r.get_json()
    assert load_profile(Path(r.get_json()["path"])).back_embeddings is not None
    assert r.get_json()["cards"] == len(faces)
