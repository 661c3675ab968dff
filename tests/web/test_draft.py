"""The enrolment draft learns the cards the players name at the table (Draft.learn), and
the capture thread tells the table how far the deck is enrolled."""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cards import DeckKind, deck_cards
from companion.store import Store
from companion.vision.classify import DEFAULT_MODEL, CardClassifier
from companion.web.capture import CaptureThread, FrameHub, Observation
from companion.web.draft import BACK, Draft
from companion.web.table import TableSession


def picture(seed: int, blur: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = cv2.resize(rng.integers(0, 255, (12, 12, 3), dtype=np.uint8), (96, 96),
                     interpolation=cv2.INTER_NEAREST)
    return cv2.GaussianBlur(img, (0, 0), blur) if blur else img


def test_a_card_named_at_the_table_joins_the_draft_on_disk(tmp_path):
    d = Draft.load(tmp_path)
    assert d.learn("kalki-2", picture(1)) == 1  # of its deck's cards, now
    assert d.learn("kalki-2", picture(2)) is None  # its sharp picture stays
    again = Draft.load(tmp_path)  # a restarted dashboard
    assert list(again.cards) == ["kalki-2"] and np.array_equal(again.cards["kalki-2"],
                                                               picture(1))
    assert again.faces(DeckKind.DASHAVATARA) == 1 and again.faces(DeckKind.MUGHAL) == 0


def test_a_blurred_picture_gives_way_to_a_sharper_one_only(tmp_path):
    d = Draft.load(tmp_path)
    d.cards["kalki-2"] = picture(1, blur=4.0)  # confirmed on the Enrol page, blurred
    assert d.learn("kalki-2", picture(1, blur=6.0)) is None
    assert d.learn("kalki-2", picture(1)) == 1
    assert np.array_equal(d.cards["kalki-2"], picture(1))


def test_a_draft_of_another_deck_or_a_bad_card_id_learns_nothing(tmp_path):
    d = Draft.load(tmp_path)
    d.cards["surya-7"] = picture(1)  # a Mughal card on the Enrol page
    d.cards[BACK] = picture(9)
    assert d.learn("kalki-2", picture(2)) is None
    assert d.learn("not-a-card", picture(2)) is None
    assert sorted(d.cards) == [BACK, "surya-7"] and not (tmp_path / ".enroll-draft.npz").exists()
    assert d.learn("surya-8", picture(3)) == 2  # the back belongs to no deck


def test_the_table_is_told_when_it_starts_enrolling_and_when_the_deck_is_whole(tmp_path):
    table = TableSession(Store(":memory:"))
    draft = Draft.load(tmp_path)
    cap = CaptureThread(table, FrameHub(), lambda: None, draft=draft)
    game = table.start_game("kendra-kari", 4)  # a Mughal deck
    cards = [c.id for c in deck_cards(DeckKind.MUGHAL)]

    def notes():
        return [(a.text, a.prominent) for a in table.store.announcements(game, limit=1000)
                if a.kind == "note"]
    art = "The camera's model does not know this deck's art."
    cap._handle(Observation("art", context={"text": art}))
    for k, card in enumerate(cards):
        cap._handle(Observation("learnt", context={"card": card, "picture": picture(k)}))
        if k == 0:
            ((said, prominent),) = notes()
            assert "1 of its 96 cards so far" in said and not prominent
        if k == 41:  # the line under every page's menu counts them
            assert table.state_json()["camera"]["art"] == \
                f"{art} Cards named so far, to enrol it: 42 of 96."
    cap._handle(Observation("learnt", context={"card": cards[0], "picture": picture(99)}))
    assert len(draft.cards) == 96
    (_first, (whole, prominent)) = notes()  # nothing said between the first and the last
    assert "Every card of this mughal deck has now been named" in whole and prominent
    assert len(whole) <= 300  # (TableSession.note keeps 300 characters)


def test_the_enrol_page_counts_the_cards_named_at_the_table(make_app, tmp_path):
    shots = tmp_path / "shots"
    shots.mkdir()
    cv2.imwrite(str(shots / "000.png"), np.full((72, 128, 3), 90, np.uint8))
    app = make_app(SOURCE=str(shots), PROFILES_DIR=str(tmp_path / "profiles"))
    rt = app.extensions["companion"]
    assert rt.capture.draft is rt.draft  # one draft, for the camera and for the page
    rt.capture._handle(Observation("learnt", context={"card": "surya-7",
                                                      "picture": picture(1)}))
    got = app.test_client().get("/api/enroll").get_json()
    assert (got["cards"], got["faces"], got["deck_size"]) == (["surya-7"], 1, 96)


def test_the_named_pictures_are_shown_and_a_wrong_name_is_put_right(make_app, tmp_path):
    app = make_app(PROFILES_DIR=str(tmp_path / "profiles"))
    draft, client = app.extensions["companion"].draft, app.test_client()
    assert client.get("/api/enroll/cards").get_json()["cards"] == []
    for k, card in enumerate(["kalki-2", "kalki-3", "rama-raja"]):
        draft.learn(card, picture(k))
    draft.cards["kalki-5"] = picture(4, blur=5.0)
    shown = client.get("/api/enroll/cards").get_json()
    assert [c["card"] for c in shown["cards"]] == ["kalki-2", "kalki-3", "kalki-5", "rama-raja"]
    assert [c["blurred"] for c in shown["cards"]] == [False, False, True, False]
    assert all(c["image"].startswith("data:image/png;base64,") for c in shown["cards"])
    # the 2 and the 3 were named the wrong way round; the blurred 5 goes
    r = client.post("/api/enroll/rename",
                    json={"labels": {"kalki-2": "kalki-3", "kalki-3": "kalki-2", "kalki-5": ""}})
    assert r.status_code == 200 and r.get_json()["cards"] == ["kalki-2", "kalki-3", "rama-raja"]
    assert np.array_equal(draft.cards["kalki-3"], picture(0))
    assert np.array_equal(Draft.load(tmp_path / "profiles").cards["kalki-2"], picture(1))


def test_a_rename_that_would_lose_a_picture_or_mix_decks_is_refused(make_app, tmp_path):
    app = make_app(PROFILES_DIR=str(tmp_path / "profiles"))
    draft, client = app.extensions["companion"].draft, app.test_client()
    draft.learn("kalki-2", picture(1))
    draft.learn("kalki-3", picture(2))
    for labels, said in (({"kalki-2": "kalki-3"}, "given to two pictures"),
                         ({"kalki-9": "kalki-3"}, "no picture named 'kalki-9'"),
                         ({"kalki-2": "surya-2"}, "one deck"),
                         ({"kalki-2": "kalki-99"}, "unknown rank '99'"),
                         ({"kalki-2": 7}, "must be a card id")):
        r = client.post("/api/enroll/rename", json={"labels": labels})
        assert r.status_code == 400 and said in r.get_json()["error"], (labels, r.get_json())
    assert sorted(draft.cards) == ["kalki-2", "kalki-3"]  # nothing changed
    assert np.array_equal(draft.cards["kalki-2"], picture(1))


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_a_card_named_while_a_profile_is_built_stays_for_the_next(make_app, tmp_path,
                                                                  monkeypatch):
    import companion.vision.enroll as enrol
    app = make_app(PROFILES_DIR=str(tmp_path / "profiles"))
    draft, client = app.extensions["companion"].draft, app.test_client()
    draft.learn("kalki-2", picture(1))
    building = enrol.enroll_images
    named = []

    def named_meanwhile(*args, **kwargs):  # the camera's thread, while the page saves
        t = threading.Thread(target=lambda: named.append(draft.learn("kalki-3", picture(2))))
        t.start()
        t.join(5)
        return building(*args, **kwargs)
    monkeypatch.setattr(enrol, "enroll_images", named_meanwhile)
    r = client.post("/api/enroll/save", json={"name": "first-game"})
    assert r.status_code == 201 and r.get_json()["cards"] == 1
    assert named == [2]  # not kept waiting for the profile
    assert list(draft.cards) == ["kalki-3"]
    assert list(Draft.load(tmp_path / "profiles").cards) == ["kalki-3"]


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_cards_named_in_a_later_game_are_added_to_the_profile_learnt_before(make_app,
                                                                             tmp_path):
    """One game of Kendra Kari names a fifth of its deck. The profile learnt from it keeps
    its pictures, and the cards named in the next game (read with that profile) are added
    to it under its own name; a card it has a sharp picture of keeps that picture."""
    from companion.vision.enroll import load_profile
    profiles = tmp_path / "profiles"
    app = make_app(PROFILES_DIR=str(profiles))
    draft, client = app.extensions["companion"].draft, app.test_client()
    for k, cid in enumerate(("kalki-2", "kalki-3", "kalki-4")):
        draft.learn(cid, picture(k))
    draft.cards[BACK] = picture(9)  # confirmed on the Enrol page
    r = client.post("/api/enroll/save", json={"name": "first-game"})
    assert r.status_code == 201 and r.get_json()["added"] == 3
    first = load_profile(profiles / "first-game.npz")
    assert first.pictures.shape == (3, 96, 96, 3) and first.back_picture is not None
    assert draft.cards == {}
    draft.learn("kalki-5", picture(5))
    draft.learn("kalki-2", picture(6))  # a sharp picture of it is in the profile already
    r = client.post("/api/enroll/save", json={"name": "first-game"})
    assert r.status_code == 409 and "add these cards to it" in r.get_json()["error"]
    r = client.post("/api/enroll/save", json={"name": "first-game", "extend": True})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["added"] == 1 and r.get_json()["cards"] == 4
    both = load_profile(profiles / "first-game.npz")
    kept = dict(zip(both.card_ids, both.pictures))
    assert sorted(kept) == ["kalki-2", "kalki-3", "kalki-4", "kalki-5"]
    assert np.array_equal(kept["kalki-2"], picture(0)) and np.array_equal(kept["kalki-5"],
                                                                           picture(5))
    assert np.array_equal(both.back_picture, first.back_picture)
    assert draft.cards == {}


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_nothing_is_added_to_a_profile_without_pictures_or_of_another_deck(make_app,
                                                                           tmp_path):
    import dataclasses

    from companion.vision.enroll import load_profile, save_profile
    profiles = tmp_path / "profiles"
    app = make_app(PROFILES_DIR=str(profiles))
    draft, client = app.extensions["companion"].draft, app.test_client()
    draft.learn("kalki-2", picture(1))
    assert client.post("/api/enroll/save", json={"name": "dash"}).status_code == 201
    old = load_profile(profiles / "dash.npz")
    save_profile(dataclasses.replace(old, pictures=None), profiles / "no-pictures.npz")
    draft.learn("kalki-3", picture(2))
    r = client.post("/api/enroll/save", json={"name": "no-pictures", "extend": True})
    assert r.status_code == 400 and "keeps no pictures" in r.get_json()["error"]
    draft.cards.clear()
    draft.learn("phul-2", picture(3))
    r = client.post("/api/enroll/save", json={"name": "dash", "extend": True})
    assert r.status_code == 400 and "one deck" in r.get_json()["error"]
    assert load_profile(profiles / "dash.npz").card_ids == ("kalki-2",)  # untouched
    assert list(draft.cards) == ["phul-2"]


def test_a_corrected_name_moves_the_picture_named_in_that_game_only(tmp_path):
    d = Draft.load(tmp_path)
    shot = picture(1)
    assert d.learn("kalki-2", shot, game=7) == 1
    assert not d.rename_learnt("kalki-2", "kalki-3", game=8)  # named in another game
    assert d.rename_learnt("kalki-2", "kalki-3", game=7)
    assert list(d.cards) == ["kalki-3"] and d.cards["kalki-3"] is shot
    assert list(Draft.load(tmp_path).cards) == ["kalki-3"]  # on disk too
    assert not d.rename_learnt("kalki-2", "kalki-4", game=7)  # nothing named so is left
    # a picture put in its place on the Enrol page since is not the table's to rename
    d.cards["kalki-3"] = picture(2)
    assert not d.rename_learnt("kalki-3", "kalki-5", game=7)
    assert np.array_equal(d.cards["kalki-3"], picture(2))


def test_a_correction_after_a_restart_still_renames_the_picture(tmp_path):
    d = Draft.load(tmp_path)
    d.learn("kalki-2", picture(1), game=7)
    d.cards["kalki-4"] = picture(3)  # confirmed on the Enrol page: no game named it
    d.keep()
    again = Draft.load(tmp_path)  # a restarted dashboard
    assert sorted(again.cards) == ["kalki-2", "kalki-4"]  # the games' list is no card
    assert not again.rename_learnt("kalki-4", "kalki-5", game=7)
    assert not again.rename_learnt("kalki-2", "kalki-3", game=8)
    assert again.rename_learnt("kalki-2", "kalki-3", game=7)
    assert np.array_equal(Draft.load(tmp_path).cards["kalki-3"], picture(1))
    # a picture renamed on the Enrol page is no longer the one the game named
    again.cards = {"kalki-6": again.cards["kalki-3"]}
    again.keep()
    assert not Draft.load(tmp_path).rename_learnt("kalki-6", "kalki-7", game=7)


def test_a_corrected_name_does_not_replace_a_sharper_kept_picture(tmp_path):
    d = Draft.load(tmp_path)
    d.cards["kalki-3"] = picture(3)  # confirmed on the Enrol page, sharp
    assert d.learn("kalki-2", picture(1, blur=3.0), game=1) == 2
    assert d.rename_learnt("kalki-2", "kalki-3", game=1)
    assert list(d.cards) == ["kalki-3"] and np.array_equal(d.cards["kalki-3"], picture(3))
    assert d.learn("kalki-6", picture(4), game=1) == 2
    assert d.rename_learnt("kalki-6", "surya-6", game=1)  # another deck: it is not kalki-6
    assert sorted(d.cards) == ["kalki-3"]


def test_correcting_a_moves_card_on_the_table_page_renames_its_picture(make_app, tmp_path,
                                                                       start, bridge_record):
    shots = tmp_path / "shots"
    shots.mkdir()
    cv2.imwrite(str(shots / "000.png"), np.full((72, 128, 3), 90, np.uint8))
    app = make_app(SOURCE=str(shots), PROFILES_DIR=str(tmp_path / "profiles"))
    client = app.test_client()
    start(client)
    played = next(m for m in bridge_record.moves if m.cards)
    for m in bridge_record.moves[:bridge_record.moves.index(played) + 1]:
        assert client.post("/api/move", json={"move": m.to_json()}).status_code == 201
    wrong = played.cards[0].id
    rt = app.extensions["companion"]
    draft = rt.draft
    rt.capture._handle(Observation("learnt", context={"card": wrong, "picture": picture(5)}))
    assert list(draft.cards) == [wrong]
    right = next(c.id for c in deck_cards(DeckKind.MUGHAL) if c not in played.cards)
    event = client.get("/api/state").get_json()["game"]["moves"][-1]
    move = {**event["move"], "cards": [right]}
    assert client.post(f"/api/moves/{event['id']}/correct", json={"move": move}).status_code \
        == 200
    assert list(draft.cards) == [right] and np.array_equal(draft.cards[right], picture(5))


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_a_saved_profiles_wrong_name_is_put_right_and_saved_over_it(make_app, tmp_path):
    """A picture named wrongly and saved in a profile: the profile is opened into the
    draft, the name put right, and the profile saved again in its place (the one before
    kept beside it), enrolled with the model served now."""
    import dataclasses

    from companion.vision.enroll import load_profile, save_profile
    profiles = tmp_path / "profiles"
    app = make_app(PROFILES_DIR=str(profiles))
    draft, client = app.extensions["companion"].draft, app.test_client()
    for k, cid in enumerate(("kalki-2", "kalki-3")):
        draft.learn(cid, picture(k))
    draft.cards[BACK] = picture(9)
    assert client.post("/api/enroll/save", json={"name": "deck"}).status_code == 201
    draft.learn("kalki-7", picture(7))  # named since: the draft is not the profile's
    r = client.post("/api/enroll/open", json={"name": "deck"})
    assert r.status_code == 409 and "start over" in r.get_json()["error"]
    assert list(draft.cards) == ["kalki-7"]  # nothing lost
    client.post("/api/enroll/reset")
    # enrolled with a model served before: unusable now, but its pictures are not
    save_profile(dataclasses.replace(load_profile(profiles / "deck.npz"), model="0ld"),
                 profiles / "deck.npz")
    for name, status, said in (("nobody", 404, "no deck profile named 'nobody'"),
                               ("../deck", 400, "a profile name is")):
        r = client.post("/api/enroll/open", json={"name": name})
        assert r.status_code == status and said in r.get_json()["error"]
    r = client.post("/api/enroll/open", json={"name": "deck"})
    assert r.status_code == 200 and r.get_json()["cards"] == [BACK, "kalki-2", "kalki-3"]
    assert np.array_equal(draft.cards["kalki-3"], picture(1))
    r = client.post("/api/enroll/rename", json={"labels": {"kalki-3": "kalki-4"}})
    assert r.status_code == 200
    r = client.post("/api/enroll/save", json={"name": "deck", "extend": True, "replace": True})
    assert r.status_code == 400 and "not both" in r.get_json()["error"]
    r = client.post("/api/enroll/save", json={"name": "deck", "replace": True})
    assert r.status_code == 201 and r.get_json()["cards"] == 2
    fixed = load_profile(profiles / "deck.npz")
    assert sorted(fixed.card_ids) == ["kalki-2", "kalki-4"]  # kalki-3 is gone, not added to
    assert np.array_equal(dict(zip(fixed.card_ids, fixed.pictures))["kalki-4"], picture(1))
    assert fixed.back_picture is not None and draft.cards == {}
    assert fixed.model == CardClassifier().fingerprint
    kept = Path(r.get_json()["kept"])
    assert kept.parent == profiles and kept.name.startswith("deck.npz.")
    before = load_profile(kept)
    assert sorted(before.card_ids) == ["kalki-2", "kalki-3"] and before.model == "0ld"
    # replaced again at once: both versions before are kept
    assert client.post("/api/enroll/open", json={"name": "deck"}).status_code == 200
    r = client.post("/api/enroll/save", json={"name": "deck", "replace": True})
    assert r.status_code == 201 and Path(r.get_json()["kept"]) != kept
    assert sorted(load_profile(Path(r.get_json()["kept"])).card_ids) == ["kalki-2", "kalki-4"]
    assert len(list(profiles.glob("deck.npz.*.bak"))) == 2 and load_profile(kept).model == "0ld"


@pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
def test_a_profile_without_pictures_cannot_be_opened(make_app, tmp_path):
    import dataclasses

    from companion.vision.enroll import load_profile, save_profile
    profiles = tmp_path / "profiles"
    app = make_app(PROFILES_DIR=str(profiles))
    draft, client = app.extensions["companion"].draft, app.test_client()
    draft.learn("kalki-2", picture(1))
    assert client.post("/api/enroll/save", json={"name": "dash"}).status_code == 201
    save_profile(dataclasses.replace(load_profile(profiles / "dash.npz"), pictures=None),
                 profiles / "bare.npz")
    r = client.post("/api/enroll/open", json={"name": "bare"})
    assert r.status_code == 400 and "keeps no pictures" in r.get_json()["error"]
    assert draft.cards == {}
