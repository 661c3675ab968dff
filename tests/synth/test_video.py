"""Filmed games: the video reads back, and its per-frame truth agrees with the rules engine."""

from __future__ import annotations

import json

import cv2
import pytest

from companion.cards import Card
from companion.cli import main
from companion.record import GameRecord, replay
from companion.synth.video import film_game

SIZE = (320, 180)


@pytest.fixture(scope="module")
def kendra_kari(tmp_path_factory):
    # Seed 2: four players, the first bridge is move 13 (index 12).
    out = tmp_path_factory.mktemp("kk") / "game.mp4"
    film_game("kendra-kari", 4, 2, out, style=1, size=SIZE, max_moves=14)
    return out, json.loads(out.with_suffix(".json").read_text())


def _zone_cards(frame_truth, zone):
    return [row for row in frame_truth if row[1] == zone]


def test_video_reads_back_with_one_truth_per_frame(kendra_kari):
    out, doc = kendra_kari
    cap = cv2.VideoCapture(str(out))
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape[:2] == (SIZE[1], SIZE[0])
        n += 1
    assert n == doc["frames"] == len(doc["frame_truth"])
    assert doc["fps"] == 30 and doc["filmed_moves"] == 14 and not doc["complete"]
    frames = [m["frame"] for m in doc["moves"]]
    assert frames == sorted(frames) and frames[-1] < doc["frames"]


def test_each_card_is_in_its_zone_from_its_frame_on_and_tops_match_the_engine(kendra_kari):
    _, doc = kendra_kari
    record = GameRecord.from_json(doc["record"])
    states = [state for state, _, _ in replay(record)]
    from companion.games.kendra_kari import CARDS
    for m, state in zip(doc["moves"], states):
        # The engine's state after a move includes all its events (a bridge's gather too).
        settled = max([m["frame"]] + [e["frame"] for e in m["events"]])
        truth = doc["frame_truth"][settled]
        for k in range(7):  # engine tops: index 0 is Position 7
            zone = f"pos{7 if k == 0 else k}"
            here = _zone_cards(truth, zone)
            top = state.tops[k]
            if top < 0:
                assert not [r for r in here if r[5] > 0.3], (m["index"], zone, here)
            elif not here:  # only a hand resting on the table may hide a card entirely
                assert doc["frame_idle_hands"][settled] > 0, (m["index"], zone)
            else:
                best = max(here, key=lambda r: r[5])
                assert best[0] == CARDS[top].id and best[6] == 1, (m["index"], zone, here)


def test_the_acting_hand_has_left_the_picture_when_a_move_becomes_true(kendra_kari):
    _, doc = kendra_kari
    checked = 0
    for m in doc["moves"]:
        f = m["frame"]
        if doc["frame_idle_hands"][f] == 0:  # no resting hand: then no hand at all
            assert doc["frame_hand_pixels"][f] == 0, m
            checked += 1
    assert checked >= len(doc["moves"]) // 2
    assert max(doc["frame_hand_pixels"]) > 0  # hands do appear while cards move


def test_a_played_card_lands_only_when_its_frame_comes(kendra_kari):
    _, doc = kendra_kari
    plays = [m for m in doc["moves"] if m["move"]["action"] == "play"]
    assert plays
    for m in plays:
        card = m["move"]["cards"][0]
        zone = f"pos{m['move']['target']}"
        start = doc["moves"][m["index"] - 1]["frame"]
        assert any(r[0] == card and r[1] == zone for r in doc["frame_truth"][m["frame"]])
        assert not any(r[0] == card and r[1] == zone for r in doc["frame_truth"][start])


def test_the_ring_is_gathered_after_a_bridge(kendra_kari):
    _, doc = kendra_kari
    bridge = next(m for m in doc["moves"] if m["move"]["action"] == "bridge")
    gather = next(e for e in bridge["events"] if e["kind"] == "gather")
    assert gather["frame"] > bridge["frame"]
    after = doc["frame_truth"][gather["frame"]]
    assert not [r for r in after if r[1] and r[1].startswith("pos")]
    pile = _zone_cards(after, "gathered")
    assert pile and all(r[0] is None and r[6] == 0 for r in pile)
    Card.parse(bridge["move"]["cards"][-1])  # the bridging card is a real card id


def test_ganjifa_deni_card_is_exposed_on_the_deni_spot(tmp_path):
    out = tmp_path / "g.mp4"
    film_game("ganjifa", 4, 9, out, style=3, size=SIZE, max_moves=5)  # seed 9: a Deni, move 5
    doc = json.loads(out.with_suffix(".json").read_text())
    deni = next(m for m in doc["moves"] if m["move"]["action"] == "deni")
    low, high = deni["move"]["cards"]
    seat = deni["move"]["player"]
    truth = doc["frame_truth"][deni["frame"]]
    assert any(r[0] == high and r[1] == f"deni{seat}" and r[6] == 1 for r in truth)
    assert any(r[0] == low and r[1] == f"play{seat}" for r in truth)
    trick = next(e for m in doc["moves"] for e in m["events"] if e["kind"] == "trick")
    assert any(r[1] and r[1].startswith("won") for r in doc["frame_truth"][trick["frame"]])


def test_a_face_up_deal_is_piled_on_the_play_spots_then_taken_up(tmp_path):
    out = tmp_path / "g.mp4"
    film_game("ganjifa", 4, 0, out, style=3, size=SIZE, max_moves=5,
              options={"face_up_deal": "true"})
    doc = json.loads(out.with_suffix(".json").read_text())
    shows = [m for m in doc["moves"] if m["move"]["action"] == "show"]
    assert len(shows) == 4 and doc["record"]["options"]["face_up_deal"] is True
    for m in shows:  # each batch lies face up on its seat's play spot, the last on top
        seat, cards = m["move"]["player"], m["move"]["cards"]
        pile = [r[0] for r in doc["frame_truth"][m["frame"]] if r[1] == f"play{seat}"
                and r[6] == 1]  # (the truth leaves out cards wholly covered)
        assert pile and pile[-1] == cards[-1] and pile == [c for c in cards if c in pile]
    lead = doc["moves"][4]
    on_spots = [r for r in doc["frame_truth"][lead["frame"]] if r[1].startswith("play")]
    assert [r[0] for r in on_spots] == lead["move"]["cards"]  # the others were taken up


def test_filming_is_deterministic(tmp_path):
    a, b = tmp_path / "a.mp4", tmp_path / "b.mp4"
    for out in (a, b):
        film_game("kendra-kari", 3, 5, out, size=SIZE, max_moves=3)
    assert a.read_bytes() == b.read_bytes()
    doc_a = json.loads(a.with_suffix(".json").read_text())
    doc_b = json.loads(b.with_suffix(".json").read_text())
    doc_a.pop("video"), doc_b.pop("video")
    assert doc_a == doc_b


def test_bad_synth_game_arguments_are_refused(tmp_path, capsys):
    assert main(["synth-game", "--game", "chess", "--out", str(tmp_path / "x.mp4")]) == 2
    assert "films kendra-kari, ganjifa" in capsys.readouterr().err
    assert main(["synth-game", "--game", "ganjifa", "--out", str(tmp_path / "x.gif")]) == 2
    assert "must end in" in capsys.readouterr().err


def test_a_real_art_deck_films_the_same_game_shot_for_shot(tmp_path):
    from companion.synth.decks import PYSOL_FOLDERS, decks_dir
    from companion.synth.video import VideoError
    if not (decks_dir() / PYSOL_FOLDERS["pysol-mughal"]).is_dir():
        pytest.skip(f"real-art decks absent: {decks_dir()}")
    own, real = tmp_path / "own.mp4", tmp_path / "real.mp4"
    film_game("kendra-kari", 3, 5, own, size=SIZE, max_moves=3)
    film_game("kendra-kari", 3, 5, real, size=SIZE, max_moves=3, source="pysol-mughal")
    a, b = (json.loads(p.with_suffix(".json").read_text()) for p in (own, real))
    assert a["source"] == f"style-{a['style']}" and b["source"] == "pysol-mughal"
    assert a["camera"] == b["camera"]
    # The same cards in the same places on every frame; only how much of each shows can
    # differ a little (the decks' discs are cut differently at the rim).
    def places(doc):
        return [[row[:5] + row[6:] for row in frame] for frame in doc["frame_truth"]]
    assert places(a) == places(b)
    assert own.read_bytes() != real.read_bytes()
    with pytest.raises(VideoError, match="unknown card source"):
        film_game("kendra-kari", 3, 5, tmp_path / "x.mp4", size=SIZE, max_moves=1,
                  source="pysol-tarot")
    # The other deck lacks this game's suits: said before a frame is filmed, no traceback
    out = tmp_path / "wrong-deck.mp4"
    with pytest.raises(VideoError, match="pysol-dashavatara lacks .* this kendra-kari game"):
        film_game("kendra-kari", 3, 5, out, size=SIZE, max_moves=1, source="pysol-dashavatara")
    assert not out.exists()


def test_a_2011_turn_up_lays_an_unsuitable_card_aside_and_plays_the_suitable_one(tmp_path):
    """Ruling *turned-up-onto-the-gathered-pile*: seed 179 (three players, the 2011 book)
    turns up the Barat 6, unsuitable, then the Surya 3, which is played to Position 6."""
    out = tmp_path / "kk.mp4"
    film_game("kendra-kari", 3, 179, out, size=SIZE, max_moves=32, pace="brisk",
              options={"play_drawn_card": "false", "first_play_2011": "true",
                       "hand_limit_nine": "true"})
    doc = json.loads(out.with_suffix(".json").read_text())
    aside, kept = [m for m in doc["moves"] if m["move"]["action"] == "turnup"]
    card = aside["move"]["cards"][0]
    for frame in range(aside["frame"], doc["frames"]):
        assert [r[0] for r in doc["frame_truth"][frame] if r[1] == "gathered"] == [card]
    played = doc["moves"][kept["index"] + 1]
    assert played["move"]["cards"] == kept["move"]["cards"]
    assert [r[0] for r in doc["frame_truth"][played["frame"]]
            if r[1] == f"pos{played['move']['target']}"] == played["move"]["cards"]
