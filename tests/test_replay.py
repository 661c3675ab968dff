"""`companion replay` and `companion calibrate` end to end on drawn videos.

The model-free tests swap the classifier for a colour oracle (the drawn cards differ only
by colour) to check the wiring: video -> pipeline -> referee -> printed stream. The shipped
model is exercised on the fixture videos when they and the model are present.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent / "vision"))
from table_drawing import MAT, PALETTE, DrawnCard, render
from test_pipeline import ColourOracle

import companion.commands.vision_table as vt
from companion.cli import main
from companion.layouts import load_layout

POS = {z.id: z.center_mm for z in load_layout("kendra-kari").zones}
CARDS = {PALETTE[0]: "phul-1", PALETTE[1]: "phul-5", PALETTE[2]: "surya-5"}
REPO = Path(__file__).resolve().parent.parent


def _video(path: Path) -> Path:
    deal = DrawnCard(POS["pos7"], PALETTE[0])
    p1 = DrawnCard(POS["pos1"], PALETTE[1])
    p2 = DrawnCard(POS["pos2"], PALETTE[2])
    frames = [[]] * 3 + [[deal]] * 12 + [[deal, p1]] * 12 + [[deal, p1, p2]] * 12
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (1280, 720))
    for k, cards in enumerate(frames):
        writer.write(render(cards, seed=1, noise_seed=k).image)
    writer.release()
    return path


@pytest.fixture
def oracle(monkeypatch):
    monkeypatch.setattr(vt, "_replay_classifier", lambda args, referee: ColourOracle(CARDS))


def test_replay_prints_the_rulings_of_a_drawn_game(tmp_path, oracle, capsys):
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4",
                 "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    rulings = [x["ruling"] for x in lines if x["type"] == "referee" and x["kind"] == "ruling"]
    assert [(r["move"]["action"], r["move"]["player"], r["move"]["cards"], r["verdict"])
            for r in rulings] == [("deal", 3, ["phul-1"], "legal"),
                                  ("play", 0, ["phul-5"], "legal"),
                                  ("play", 1, ["surya-5"], "legal")]
    track = [x for x in lines if x["type"] == "track"]
    assert [(t["card"], t["zone"]) for t in track] == [
        ("phul-1", "pos7"), ("phul-5", "pos1"), ("surya-5", "pos2")]
    summary = lines[-1]
    assert summary["type"] == "summary" and summary["frames"] == 39
    assert set(summary["ms_per_frame"]) == {"calibrate", "rectify", "detect", "classify",
                                            "track"}


def test_replay_text_output(tmp_path, oracle, capsys):
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4"]) == 0
    out = capsys.readouterr()
    assert "LEGAL" in out.out and "Player 1 play phul-5" in out.out
    assert "frames in" in out.err


class Guessing(ColourOracle):
    """The colour oracle, never sure: the model on a deck whose art it never saw."""

    may_not_know_the_art = True

    def classify(self, crops):
        c = super().classify(crops)
        c.confidence[:] = 0.3
        return c


def test_replay_says_when_the_model_does_not_know_the_deck(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(vt, "_replay_classifier", lambda args, referee: Guessing(CARDS))
    video = _video(tmp_path / "game.avi")  # 72 face-up readings in all
    args = ["replay", str(video), "--game", "kendra-kari", "--players", "4"]
    assert main(args + ["--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    (art,) = [x for x in lines if x["type"] == "art"]
    assert (art["readings"], art["sure"], art["familiar"]) == (60, 0, False)
    assert main(args) == 0
    assert "the model does not know this deck's art" in capsys.readouterr().out


def test_calibrate_saves_a_profile_that_replay_uses(tmp_path, oracle, capsys):
    folder = tmp_path / "shots"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((720, 1280, 3), 80, np.uint8))  # no mat yet
    cv2.imwrite(str(folder / "b.png"), render([], seed=1).image)
    assert main(["calibrate", "--source", str(folder), "--name", "t",
                 "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "markers [0, 1, 2, 3]" in out.out and (tmp_path / "t.json").is_file()
    assert "looking for the mat" in out.err
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4", "--json",
                 "--calibration", str(tmp_path / "t.json")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[-1]["calibrated_frames"] == 39


def _hand_over_markers(scene, ids) -> np.ndarray:
    image = scene.image.copy()
    for m in MAT.markers:
        if m.id in ids:
            c = scene.mm_to_px @ np.array([*m.center_mm, 1.0])
            x, y = (c[:2] / c[2]).astype(int)
            image[y - 60:y + 60, x - 60:x + 60] = 90
    return image


def test_calibrate_waits_for_a_view_with_more_markers(tmp_path, capsys):
    scene = render([], seed=2)
    folder = tmp_path / "shots"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), _hand_over_markers(scene, {2, 3}))
    cv2.imwrite(str(folder / "b.png"), scene.image)  # the hand has moved away
    assert main(["calibrate", "--source", str(folder), "--name", "t",
                 "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "markers [0, 1, 2, 3]" in out.out and "found markers [0, 1] of 4" in out.err
    assert "warning" not in out.err
    (folder / "b.png").unlink()  # the hand never moves: the best view is used, with a warning
    assert main(["calibrate", "--source", str(folder), "--name", "t",
                 "--out-dir", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert "markers [0, 1]" in out.out and "only 2 of the mat's 4 markers" in out.err


def test_calibrate_by_hand_and_its_errors(tmp_path, capsys):
    img = tmp_path / "plain.png"
    cv2.imwrite(str(img), np.full((480, 640, 3), 120, np.uint8))
    assert main(["calibrate", "--source", str(img), "--corners",
                 "10,10 600,12 630,470 5,460", "--out-dir", str(tmp_path)]) == 0
    assert "4 corners given by hand" in capsys.readouterr().out
    assert main(["calibrate", "--source", str(img), "--corners", "1,2 3,4",
                 "--out-dir", str(tmp_path)]) == 2
    assert "4 pairs" in capsys.readouterr().err
    assert main(["calibrate", "--source", str(img), "--out-dir", str(tmp_path),
                 "--timeout", "0"]) == 2
    assert "mat was not found" in capsys.readouterr().err
    assert main(["calibrate", "--source", str(tmp_path / "nope.mp4")]) == 2


def test_replay_bad_input(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "missing.mp4"), "--game", "kendra-kari",
                 "--players", "4"]) == 2
    assert "no such video" in capsys.readouterr().err
    (tmp_path / "v.avi").write_bytes(b"x")
    assert main(["replay", str(tmp_path / "v.avi"), "--game", "snap", "--players", "4"]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "v.avi"), "--game", "kendra-kari",
                 "--players", "2"]) == 2
    assert "3-6 players" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "v.avi"), "--game", "kendra-kari", "--players", "4",
                 "--seat-angles", "90,180"]) == 2
    assert "needs 4 angles" in capsys.readouterr().err


@pytest.mark.skipif(not (REPO / "models" / "card_classifier.onnx").is_file(),
                    reason="no shipped model")
def test_replay_reads_with_a_deck_profile_and_refuses_a_missing_one(tmp_path, capsys):
    """``--deck`` is a path given on the command line, as ``companion enroll`` wrote it."""
    from companion.cards import Card
    from companion.synth.faces import render_face
    from companion.vision.classify import CardClassifier
    from companion.vision.enroll import enroll_images, load_profile, save_profile
    faces = {cid: render_face(Card.parse(cid), 6, 0, 112)
             for cid in ("phul-1", "phul-5", "surya-5", "surya-9")}
    save_profile(enroll_images(faces, "few", CardClassifier()), tmp_path / "few.npz")
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4", "--json",
                 "--deck", str(tmp_path / "few.npz")]) == 0
    summary = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert summary["type"] == "summary" and summary["frames"] == 39
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4",
                 "--deck", str(tmp_path / "nope.npz")]) == 2
    assert "not found" in capsys.readouterr().err
    # enrolled with another model (the shipped one replaced since): refused, not misread
    other = dataclasses.replace(load_profile(tmp_path / "few.npz"), model="0" * 16)
    save_profile(other, tmp_path / "other.npz")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4",
                 "--deck", str(tmp_path / "other.npz")]) == 2
    assert "enrol the deck again" in capsys.readouterr().err


class DoubtfulOracle(ColourOracle):
    """Reads the drawn game, but is unsure of Player 1's card (phul-5): ``readings``."""

    def __init__(self, cards, readings=(("phul-5", 0.5), ("phul-6", 0.3))):
        super().__init__(cards)
        self.readings = list(readings)

    def classify(self, crops):
        res = super().classify(crops)
        for i, card in enumerate(res.card_ids):
            if card == "phul-5":
                res.confidence[i] = self.readings[0][1]
                res.topk[i] = self.readings
        return res


@pytest.mark.parametrize("typed, named", [("1\n", True), ("phul-5\n", True), ("\n", False),
                                          ("", False)])
def test_replay_ask_puts_the_unsure_card_to_the_person(tmp_path, monkeypatch, capsys, typed,
                                                       named):
    import io
    monkeypatch.setattr(vt, "_replay_classifier", lambda args, referee: DoubtfulOracle(CARDS))
    monkeypatch.setattr(sys, "stdin", io.StringIO(typed))
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4",
                 "--ask"]) == 0
    out = capsys.readouterr()
    assert "Which card was laid on Position 1?" in out.out  # the zone as the players say it
    assert "1) 5 of Phul (phul-5)" in out.out
    assert ("Player 1 play phul-5" in out.out) is named
    # left out (Enter), the next card is judged without it; unanswered (end of input), the
    # referee waits and says so
    assert ("Player 2 play surya-5" in out.out or "Player 1 play surya-5" in out.out) is \
        (typed != "")
    assert ("still waiting for the card on Position 1" in out.err) is (typed == "")


@pytest.mark.parametrize("every_doubt", [False, True])
def test_replay_names_a_doubt_between_the_card_and_one_played(tmp_path, monkeypatch, capsys,
                                                             every_doubt):
    import io
    # unsure of Player 1's card, its readings shared with the dealt phul-1
    split = DoubtfulOracle(CARDS, (("phul-5", 0.75), ("phul-1", 0.2)))
    monkeypatch.setattr(vt, "_replay_classifier", lambda args, referee: split)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    video = _video(tmp_path / "game.avi")
    assert main(["replay", str(video), "--game", "kendra-kari", "--players", "4", "--ask"]
                + ["--ask-every-doubt"] * every_doubt) == 0
    out = capsys.readouterr().out
    # 0.75 / (1 - 0.2): 94% among the cards still in play, over the tracker's 80%
    assert ("NAMED        5 of Phul on Position 1: read 75% sure, and phul-1 has been played, so "
            "94%" in out) is not every_doubt
    assert ("Player 1 play phul-5" in out) is not every_doubt
    assert ("Which card was laid on Position 1?" in out) is every_doubt


def test_replay_ask_is_not_for_json(tmp_path, capsys):
    assert main(["replay", str(tmp_path), "--game", "kendra-kari", "--players", "4",
                 "--ask", "--json"]) == 2
    assert "--ask" in capsys.readouterr().err


def test_replay_ask_puts_a_doubted_reading_to_the_person():
    from companion.layouts import load_layout
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TrackEvent
    from companion.web.vision_feed import _convert

    a, b, c = table_view(simulate("ganjifa", 4, {}, 0)).moves[:3]
    layout = load_layout("ganjifa")

    def seen(move, frame, card=None):
        zone = layout.zone(f"play{move.player}")
        return TrackEvent("appeared", card or move.cards[0].id, zone.center_mm, zone.id, 0.95,
                          frame - 5, frame, frame / 30, frame,
                          candidates=((card or move.cards[0].id, 0.9), (move.cards[0].id, 0.05)))

    ref = Referee("ganjifa", 4)
    ref.observe([seen(a, 30), seen(b, 60)], 60)
    misread = seen(c, 90, card=a.cards[0].id)  # c's card read surely as a's, played already
    outputs = ref.observe([misread], 90)
    (shown,) = [o for out in outputs for o in _convert(out)]  # the dashboard's question
    assert shown.kind == "unsure" and shown.context["zone"] == misread.zone
    assert [ch["value"] for ch in shown.choices] == [c.cards[0].id, "none"]
    written, told = [], []
    tracker = type("Tracker", (), {"name": lambda self, *named: told.append(named)})()
    asker = vt.TerminalAsker(ref, read=iter(["1\n"]).__next__, write=written.append,
                             tracker=tracker)
    asker.ask(outputs, 90, 3.0)
    assert "Which card was laid on" in "".join(written)
    assert [r.move for r in ref.rulings()] == [a, b, c]
    assert told == [(misread.track_id, c.cards[0].id, 90)]  # the tracker holds that name
