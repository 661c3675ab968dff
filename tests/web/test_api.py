"""The dashboard's pages and JSON API on a temporary database."""

from __future__ import annotations

import csv
import io
import json

import pytest

from companion.cards import DeckKind, deck_cards
from companion.games import get_game
from companion.record import GameRecord
from companion.web.cardinfo import GONE_GROUP
from companion.web.pages import PAGES

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.mark.parametrize("name,path,title", PAGES)
def test_every_page_renders_with_its_navigation(client, name, path, title):
    r = client.get(path)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert f'data-page="{name}"' in html
    for _, other, _ in PAGES:
        assert f'href="{other}"' in html
    assert "http://" not in html.replace("http://www.w3.org", "")  # nothing from a CDN


def test_setup_validates_its_input(client):
    cases = [
        ({}, 400, "'game' is required"),
        ({"game": "chess", "players": 2}, 400, "unknown game"),
        ({"game": "kendra-kari", "players": 99}, 400, "players"),
        ({"game": "kendra-kari", "players": "four"}, 400, "whole number"),
        ({"game": "kendra-kari", "players": 4, "options": {"colour": "blue"}}, 400,
         "unknown option"),
        ({"game": "kendra-kari", "players": 4, "options": {"direction": "upwards"}}, 400,
         "allowed"),
        ({"game": "kendra-kari", "players": 4, "seats": [1, 2]}, 400, "names"),
        ({"game": "kendra-kari", "players": 4, "ask_every_doubt": "yes"}, 400,
         "'ask_every_doubt' must be true or false"),
    ]
    for body, code, words in cases:
        r = client.post("/api/setup", json=body)
        assert r.status_code == code, body
        assert words in r.get_json()["error"], (body, r.get_json())
    r = client.post("/api/setup", data="game=kendra-kari")
    assert r.status_code == 415


def test_moves_are_judged_stored_and_announced(start, client, bridge_record):
    start(client)
    for m in bridge_record.moves:
        r = client.post("/api/move", json={"move": m.to_json()})
        if r.status_code == 409:  # the game ended with its winning move
            break
        assert r.status_code == 201, r.get_json()
    expected = [e.text for evs in bridge_record.events for e in evs if e.announce]
    shown = [a["text"] for a in client.get("/api/announcements?limit=500").get_json()[
        "announcements"] if a["prominent"]]
    assert [t for t in shown if t.startswith("Bridge!")] == \
        [t for t in expected if t.startswith("Bridge!")]
    assert any(t.startswith("Bridge!") for t in shown)
    board = client.get("/api/scoreboard").get_json()
    assert board["games"]["kendra-kari"][0]["result"] == bridge_record.result["text"]


def test_a_correction_rejudges_from_that_move(start, client, app, bridge_record):
    start(client)
    for m in bridge_record.moves[:6]:
        assert client.post("/api/move", json={"move": m.to_json()}).status_code == 201
    moves = client.get("/api/state").get_json()["game"]["moves"]
    assert all(m["ruling"]["verdict"] != "illegal" for m in moves)
    second = moves[2]
    said = [a["id"] for a in client.get("/api/announcements").get_json()["announcements"]
            if a["event_id"] == second["id"]]
    assert said and client.get("/api/state").get_json()["game"]["retracted"] == []
    wrong = {**second["move"], "player": (second["move"]["player"] + 1) % 4}
    r = client.post(f"/api/moves/{second['id']}/correct", json={"move": wrong})
    assert r.status_code == 200, r.get_json()
    # what was announced for the move as first judged is taken back from open pages
    state = client.get("/api/state").get_json()["game"]
    assert set(said) <= set(state["retracted"])
    after = state["moves"]
    assert after[2]["move"]["player"] == wrong["player"] and after[2]["corrected"]
    assert after[2]["ruling"]["verdict"] == "illegal"  # out of turn now
    assert len(after) == len(moves)  # nothing lost: later moves are re-judged, not dropped
    corrections = app.extensions["companion"].store.corrections()
    assert corrections[0]["before"]["move"]["player"] == second["move"]["player"]
    # correcting it back restores the original rulings
    r = client.post(f"/api/moves/{after[2]['id']}/correct", json={"move": second["move"]})
    back = client.get("/api/state").get_json()["game"]["moves"]
    assert [m["ruling"]["verdict"] for m in back] == [m["ruling"]["verdict"] for m in moves]
    assert client.post(f"/api/moves/{second['id']}/correct",
                       json={"move": wrong}).status_code == 400  # already corrected
    assert client.post("/api/moves/999999/correct", json={"delete": True}).status_code == 400


def test_questions_take_one_of_their_choices(start, client, app):
    start(client)
    table = app.extensions["companion"].table
    p = table.ask("question", "Who drew?", [{"value": 0, "label": "Asha"},
                                            {"value": 1, "label": "Ben"}],
                  {"ask": "who-drew"})
    assert client.get("/api/state").get_json()["game"]["pending"][0]["text"] == "Who drew?"
    assert client.post(f"/api/pending/{p.id}", json={"choice": 7}).status_code == 400
    assert client.post(f"/api/pending/{p.id}", json={}).status_code == 400
    assert client.post(f"/api/pending/{p.id}", json={"choice": 1}).status_code == 200
    assert client.get("/api/state").get_json()["game"]["pending"] == []
    assert client.post(f"/api/pending/{p.id}", json={"choice": 1}).status_code == 400


def test_an_unsure_reading_becomes_the_confirmed_move(start, client, app, bridge_record):
    start(client)
    first = bridge_record.moves[0]
    table = app.extensions["companion"].table
    p = table.ask("unsure", "Unsure: which card?",
                  [{"value": first.cards[0].id}, {"value": "surya-2"}, {"value": "none"}],
                  {"move": {"player": first.player, "action": first.action,
                            "target": first.target}, "reading": [first.cards[0].id, 0.41]})
    r = client.post(f"/api/pending/{p.id}", json={"choice": first.cards[0].id})
    assert r.status_code == 200
    moves = client.get("/api/state").get_json()["game"]["moves"]
    assert moves[-1]["move"]["cards"] == [first.cards[0].id]
    assert app.extensions["companion"].store.corrections()[-1]["after"] == \
        {"card": first.cards[0].id}


def test_an_unsure_reading_takes_a_card_that_was_not_offered(start, client, app,
                                                              bridge_record):
    """The right card is not always among the readings offered: the players may name any
    card of the game's deck, never a card of another deck."""
    start(client)
    first = bridge_record.moves[0]
    table = app.extensions["companion"].table
    p = table.ask("unsure", "Unsure: which card?", [{"value": "surya-2"}, {"value": "none"}],
                  {"move": {"player": first.player, "action": first.action,
                            "target": first.target}})
    game = client.get("/api/state").get_json()["game"]
    assert [first.cards[0].id, first.cards[0].name, first.cards[0].suit.title] in game["cards"]
    assert len(game["cards"]) == 96  # the Mughal deck of Kendra Kari, to choose from
    r = client.post(f"/api/pending/{p.id}", json={"choice": "kalki-3"})  # Dashavatara's
    assert r.status_code == 400 and "a card of this game's deck" in r.get_json()["error"]
    r = client.post(f"/api/pending/{p.id}", json={"choice": first.cards[0].id})
    assert r.status_code == 200
    game = client.get("/api/state").get_json()["game"]
    assert game["moves"][-1]["move"]["cards"] == [first.cards[0].id]
    assert "cards" not in game  # no question about a card is open
    table.ask("unsure", "Unsure: which card?", [{"value": "none"}], {"move": {
        "player": bridge_record.moves[1].player, "action": bridge_record.moves[1].action}})
    cards = client.get("/api/state").get_json()["game"]["cards"]
    # the card on the table is listed last, apart, and can still be given
    assert cards[-1] == [first.cards[0].id, first.cards[0].name, GONE_GROUP]
    assert sorted(c[0] for c in cards) == sorted(c.id for c in deck_cards(DeckKind.MUGHAL))


def test_manual_board_plays_kanji_guti_through_the_referee(start, client):
    start(client, game="kanji-guti", players=2, manual=True, seed=1)
    legal = client.get("/api/legal").get_json()
    assert legal["moves"] and "pits" in legal["view"]
    first = legal["moves"][0]["move"]
    r = client.post("/api/move", json={"move": first})
    assert r.status_code == 201 and r.get_json()["ruling"]["verdict"] == "legal"
    bad = {**first, "player": 1 - first["player"]}
    assert client.post("/api/move", json={"move": bad}).status_code == 400
    assert client.get("/api/state").get_json()["game"]["move_count"] == 1
    assert client.post("/api/undo").status_code == 200
    assert client.get("/api/state").get_json()["game"]["move_count"] == 0
    assert client.get("/api/legal").get_json()["moves"] == legal["moves"]


def test_scoreboard_and_exports(start, client, bridge_record):
    start(client)
    for m in bridge_record.moves[:5]:
        client.post("/api/move", json={"move": m.to_json()})
    assert client.post("/api/end", json={"winners": [2]}).status_code == 200
    board = client.get("/api/scoreboard").get_json()
    totals = {t["name"]: t for t in board["totals"]}
    assert totals["Chitra"]["wins"] == 1 and totals["Asha"]["wins"] == 0
    assert board["titles"] == {"kendra-kari": "Kendra Kari"}  # the page heads its rounds so
    rows = list(csv.DictReader(io.StringIO(client.get("/api/export.csv").get_data(
        as_text=True))))
    assert [r["name"] for r in rows] == ["Asha", "Ben", "Chitra", "Dev"]
    assert [r["winner"] for r in rows] == ["", "", "yes", ""]
    exported = json.loads(client.get("/api/export.json").get_data(as_text=True))
    rec = GameRecord.from_json(exported["games"][0])
    kk = get_game("kendra-kari")
    assert list(rec.moves) == [kk.public_move(m) for m in bridge_record.moves[:5]]
    assert client.get("/api/export.csv?session=999").status_code == 404
    assert client.get("/api/export.csv?session=abc").status_code == 400


def test_played_cards_tracker(start, client, bridge_record):
    start(client)
    kk = get_game("kendra-kari")
    for m in bridge_record.moves[:8]:
        client.post("/api/move", json={"move": m.to_json()})
    t = client.get("/api/tracker").get_json()
    status = {c["id"]: c["status"] for s in t["suits"] for c in s["cards"]}
    seen = {c.id for m in bridge_record.moves[:8] for c in kk.public_move(m).cards}
    assert len(status) == 96 and seen
    assert all(status[c] in ("played", "exposed") for c in seen)
    assert all(status[c] in ("unseen", "unbeatable") for c in status if c not in seen)
    assert client.get("/api/tracker?deck=tarot").status_code == 400
    assert len({c["id"] for s in client.get("/api/tracker?deck=dashavatara").get_json()[
        "suits"] for c in s["cards"]}) == 120


def test_learn_card_shows_reversed_suits_and_kendra_kari_links(client):
    weak = client.get("/api/card/surya-1?game=kendra-kari").get_json()
    strong = client.get("/api/card/shamsher-1").get_json()
    assert weak["ladder"][2] == "1" and strong["ladder"][-1] == "1"
    assert weak["note"] and not strong["note"]
    assert weak["indian_name"] and weak["colour"] == "green"
    assert len(weak["plays_on"]["cards"]) == 11 + 7
    assert client.get("/api/card/surya-13").status_code == 400
    assert client.get("/api/card/surya-1?game=chess").status_code == 400


def test_uploads_are_checked_before_anything_reads_them(client):
    r = client.post("/api/identify", data={"photo": (io.BytesIO(b"MZ\x90"), "evil.exe")})
    assert r.status_code == 415
    r = client.post("/api/identify", data={"photo": (io.BytesIO(b"not a png"), "card.png")})
    assert r.status_code == 415 and "not a readable image" in r.get_json()["error"]
    r = client.post("/api/identify", data={})
    assert r.status_code == 400
    big = io.BytesIO(b"\x89PNG" + b"0" * (5 * 1024 * 1024))
    assert client.post("/api/identify", data={"photo": (big, "big.png")}).status_code == 413


def test_nothing_outside_the_app_is_served(client):
    for path in ["/static/../store.py", "/static/%2e%2e/__init__.py", "/static/../../cli.py",
                 "/../../etc/passwd", "/static/%2Fetc%2Fpasswd", "/api/layout/..%2f..%2fmat"]:
        r = client.get(path, follow_redirects=True)
        assert r.status_code in (400, 404), path
        assert b"import" not in r.data and b"root:" not in r.data


def test_state_survives_a_restart(start, make_app, bridge_record):
    first = make_app()
    c = first.test_client()
    start(c)
    for m in bridge_record.moves[:9]:
        c.post("/api/move", json={"move": m.to_json()})
    before = c.get("/api/state").get_json()["game"]
    first.extensions["companion"].store.close()
    second = make_app()
    after = second.test_client().get("/api/state").get_json()["game"]
    for key in ("id", "moves", "turn", "hand_counts", "zones", "seats"):
        assert after[key] == before[key], key


def test_lan_mode_needs_the_join_token(make_app):
    app = make_app(JOIN_TOKEN="s3cret", JOIN_URL="http://192.0.2.1:5000/?token=s3cret")
    c = app.test_client()
    assert c.get("/").status_code == 403
    assert c.get("/api/state").status_code == 403
    assert c.get("/api/state?token=wrong").status_code == 403
    assert c.get("/?token=s3cret").status_code == 200
    assert c.get("/api/state").status_code == 200  # the cookie carries it from now on
    qr = c.get("/join.svg")
    assert qr.status_code == 200 and qr.data.lstrip().startswith(b"<?xml")


def test_sse_stream_replays_from_last_event_id(start, client, bridge_record):
    start(client)
    for m in bridge_record.moves[:3]:
        client.post("/api/move", json={"move": m.to_json()})
    anns = client.get("/api/announcements").get_json()["announcements"]
    r = client.get("/api/stream", headers={"Last-Event-ID": str(anns[0]["id"])},
                   buffered=False)
    chunks = iter(r.response)
    text = ""
    while text.count("event: announcement") < len(anns) - 1:
        text += next(chunks).decode()
    r.close()
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids == [a["id"] for a in anns[1:]]
    assert client.get("/api/stream", headers={"Last-Event-ID": "x"}).status_code == 400


def test_a_page_just_opened_is_streamed_the_newest_twenty_announcements(start, client,
                                                                        bridge_record):
    start(client)
    for m in bridge_record.moves:
        client.post("/api/move", json={"move": m.to_json()})
    anns = client.get("/api/announcements?limit=500").get_json()["announcements"]
    assert len(anns) > 20
    r = client.get("/api/stream", buffered=False)
    chunks = iter(r.response)
    text = ""
    while "event: state" not in text:  # the announcements come first, then the state
        text += next(chunks).decode()
    r.close()
    ids = [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
    assert ids == [a["id"] for a in anns[-20:]]


def test_a_new_evening_keeps_the_old_one_on_the_scoreboard(start, client):
    start(client)
    client.post("/api/end", json={"winners": [0]})
    first = client.get("/api/scoreboard").get_json()["session"]["id"]
    r = client.post("/api/session", json={"title": "Friday"})
    assert r.status_code == 201
    board = client.get("/api/scoreboard").get_json()
    assert board["session"]["title"] == "Friday" and board["games"] == {}
    assert [s["id"] for s in board["sessions"]] == [first, r.get_json()["session"]]
    old = client.get(f"/api/scoreboard?session={first}").get_json()
    assert old["totals"][0]["name"] == "Asha" and old["totals"][0]["wins"] == 1
    assert client.post("/api/session", json={"title": 5}).status_code == 400


def test_manual_mat_corners_are_checked_and_kept(client, app):
    import numpy as np
    app.extensions["companion"].hub.publish(np.zeros((360, 640, 3), np.uint8))
    crossed = [[10, 10], [600, 350], [600, 10], [10, 350]]
    r = client.post("/api/calibration", json={"corners": crossed})
    assert r.status_code == 400 and "convex" in r.get_json()["error"]
    good = [[40, 30], [600, 40], [610, 340], [30, 330]]
    assert client.post("/api/calibration", json={"corners": good}).status_code == 200
    got = client.get("/api/calibration").get_json()
    assert got["manual_corners"] == good and got["frame"] == {"width": 640, "height": 360}
    assert client.post("/api/calibration", json={"corners": good[:3]}).status_code == 400


def test_who_drew_is_told_and_announced(start, client):
    start(client)
    assert client.post("/api/draw", json={"seat": 1}).status_code == 200
    texts = [a["text"] for a in client.get("/api/announcements").get_json()["announcements"]]
    assert texts[-1] == "Told: Player 2 drew a card"
    assert client.post("/api/draw", json={"seat": 4}).status_code == 400
    assert client.post("/api/draw", json={"seat": "1"}).status_code == 400


def test_the_face_up_cards_picked_up_are_told_while_the_deal_is_shown(start, client):
    from companion.record import simulate, table_view
    shows = table_view(simulate("ganjifa", 4, {"face_up_deal": "true"}, 0)).moves[:4]
    start(client, game="ganjifa", options={"face_up_deal": True})
    assert client.get("/api/state").get_json()["game"]["showing"] is True
    assert client.post("/api/shown", json={}).status_code == 200
    texts = [a["text"] for a in client.get("/api/announcements").get_json()["announcements"]]
    assert texts[-1] == "Told: the face-up cards were picked up"
    for m in shows:
        assert client.post("/api/move", json={"move": m.to_json()}).status_code < 300
    assert client.get("/api/state").get_json()["game"]["showing"] is False
    r = client.post("/api/shown", json={})
    assert r.status_code == 400 and "not waiting for face-up cards" in r.get_json()["error"]


def test_trick_games_show_the_cards_left_in_each_hand(start, client):
    from companion.record import simulate, table_view
    rec = table_view(simulate("ganjifa", 4, {}, 0))
    from companion.cards import DeckKind, deck_cards
    start(client, game="ganjifa")
    dealt = len(deck_cards(DeckKind.DASHAVATARA)) // 4  # 120 cards, 30 each
    assert client.get("/api/state").get_json()["game"]["hand_counts"] == [dealt] * 4
    for m in rec.moves[:3]:
        assert client.post("/api/move", json={"move": m.to_json()}).status_code < 300
    counts = client.get("/api/state").get_json()["game"]["hand_counts"]
    played = [sum(len(m.cards) for m in rec.moves[:3] if m.player == p) for p in range(4)]
    assert counts == [dealt - n for n in played] and sum(played) > 0
