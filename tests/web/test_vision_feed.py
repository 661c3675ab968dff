"""The dashboard's seeing feed: a frame is seen on a second thread while the one before is
read and judged, and a camera still follows the game set up on the dashboard."""

from __future__ import annotations

import dataclasses
import sys
import threading
from pathlib import Path

import cv2
import numpy as np

from companion.cards import DeckKind
from companion.vision.classify import Classifications
from companion.vision.source import ImageFolderSource
from companion.web.vision_feed import VisionFeed, _convert, judge

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "vision"))
from table_drawing import PALETTE, DrawnCard, render


class NothingSeen:
    """Reads every crop as "not a card"; no ``frame`` attribute, so the feed reads ahead."""

    def classify(self, crops: np.ndarray) -> Classifications:
        n = len(crops)
        return Classifications([None] * n, np.full(n, 0.9), np.zeros(n), np.full(n, 0.9),
                               [[] for _ in range(n)])


def test_a_camera_feed_reads_ahead_and_follows_the_game_set_up(tmp_path):
    for k in range(10):
        cards = [DrawnCard((300.0 + 10 * k, 200.0), PALETTE[0])] if k >= 3 else []
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render(cards, seed=1, noise_seed=k).image)
    decks, asked_on = [], []

    def stages(video, deck):
        decks.append(deck)
        return NothingSeen(), None

    def game_set_up():  # asked frame by frame: the game is set up from frame 4 on
        asked_on.append(threading.get_ident())
        return (7, "kendra-kari", 4, {}, None, True) if len(asked_on) > 4 else None

    feed = VisionFeed(str(tmp_path), stages=stages)
    feed.game_provider = game_set_up
    items = list(feed.items())
    want = [f.image for f in ImageFolderSource(tmp_path).frames()]
    assert [i.index for i in items] == list(range(10))
    assert all(np.array_equal(i.frame, w) for i, w in zip(items, want))
    assert all(i.calibrated for i in items)
    assert decks == [None, DeckKind.MUGHAL]  # the pipeline was set up again for the game
    assert feed.referee is not None and feed.referee.game == "kendra-kari"
    assert feed.referee.by_elimination is False  # the Setup page asked for every doubt
    assert [bool(i.zones_px) for i in items] == [False] * 4 + [True] * 6  # its zones shown
    assert asked_on and threading.get_ident() not in asked_on  # asked on the seeing thread


def test_a_camera_following_a_game_it_cannot_referee_says_so_once_and_keeps_seeing(tmp_path):
    for k in range(6):
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render([], seed=1, noise_seed=k).image)
    feed = VisionFeed(str(tmp_path), stages=lambda video, deck: (NothingSeen(), None))
    feed.game_provider = lambda: (7, "shakti", 4, {}, None, False)
    items = list(feed.items())
    notes = [o.text for i in items for o in i.observations if o.kind == "note"]
    assert len(items) == 6 and feed.referee is None
    assert len(notes) == 1 and "Shakti is not refereed from the camera yet" in notes[0]


def test_a_card_the_referee_named_by_elimination_is_not_asked_about(tmp_path):
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TableTracker, TrackEvent
    a, b = table_view(simulate("ganjifa", 4, {}, 0)).moves[:2]
    feed = VisionFeed(str(tmp_path))
    feed.referee = Referee("ganjifa", 4)
    zone_a, zone_b = f"play{a.player}", f"play{b.player}"
    centre = feed.referee.layout.zone(zone_b).center_mm
    feed.referee.observe([TrackEvent("appeared", a.cards[0].id, centre, zone_a, 0.99, 0, 5,
                                     0.2, 0)], 5)
    doubt = TrackEvent("unsure", None, centre, zone_b, 0.86, 30, 35, 1.2, 1,
                       candidates=((b.cards[0].id, 0.86), (a.cards[0].id, 0.12)), needed=0.9)
    other = dataclasses.replace(doubt, track_id=2, candidates=((b.cards[0].id, 0.86),),
                                last_frame=36)
    feed._tracker = tracker = TableTracker(feed.referee.layout)
    told = []
    tracker.name = lambda *named: told.append(named)
    outs = judge(feed.referee, feed._tracker, [doubt, other], 36, 1.2, None)
    assert told == [(1, b.cards[0].id, 35)]  # told the tracker, as an answer would be
    shown = [o for out in outs for o in _convert(out)]
    assert [o.kind for o in shown] == ["note", "unsure"] and a.cards[0].id in shown[0].text
    assert shown[1].context["frame"] == 36
    assert feed._tracker_news([doubt, other], 0) == ()  # the referee asks, not the tracker
    # with no game to judge, the tracker's doubts are asked as they are
    feed.referee = None
    asked = feed._tracker_news([doubt], 0)
    assert [c["value"] for c in asked[0].choices] == [b.cards[0].id, a.cards[0].id, "none"]


def test_a_card_the_players_name_is_told_to_the_tracker_too(tmp_path):
    """The answer names the card for the game and for the tracker, which then holds that
    name (``TableTracker.name``): a deck no reading is sure of is asked about card by card."""
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TableTracker, TrackEvent
    (a,) = table_view(simulate("ganjifa", 4, {}, 0)).moves[:1]
    feed = VisionFeed(str(tmp_path))
    feed.referee = Referee("ganjifa", 4)
    feed._tracker = tracker = TableTracker(feed.referee.layout)
    told = []
    tracker.name = lambda *named: told.append(named)
    zone = f"play{a.player}"
    centre = feed.referee.layout.zone(zone).center_mm
    unsure = TrackEvent("unsure", None, centre, zone, 0.5, 30, 35, 1.2, 1,
                        candidates=((a.cards[0].id, 0.5), ("kalki-9", 0.3)), needed=0.9)
    (question,) = [o for out in feed.referee.observe([unsure], 35) for o in _convert(out)]
    context = question.context
    assert (context["track"], context["asked_at"]) == (1, 35)
    assert feed.answer("unsure", context, "not-a-card")[0].kind == "note"
    assert told == []  # a bad answer names nothing
    feed.answer("unsure", context, a.cards[0].id)
    assert told == [(1, a.cards[0].id, 35)]
    assert [r.move for r in feed.referee.rulings()] == [a]


def test_the_tap_face_up_cards_picked_up_makes_the_shows_seen(tmp_path):
    """Ganjifa's face-up deal: the dashboard's tap reaches the feed's referee, which makes
    the shows with the face-up cards it saw on the spots."""
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TrackEvent
    options = {"face_up_deal": "true"}
    first = table_view(simulate("ganjifa", 4, options, 0)).moves[0]
    feed = VisionFeed(str(tmp_path))
    feed.referee = Referee("ganjifa", 4, options)
    centre = feed.referee.layout.zone("play0").center_mm
    for k, card in enumerate(first.cards[:2]):
        feed.referee.observe([TrackEvent("appeared", card.id, centre, "play0", 0.99, 10 * k,
                                         10 * k + 5, k, 1)], 10 * k + 5)
    assert feed.referee.rulings() == []  # two of six seen: Player 1's show waits
    feed._last = (40, 2.0)  # the frame the feed has reached when the players tap
    said = feed.answer("shown", {"via": "vision"}, None)
    assert [r.move.cards for r in feed.referee.rulings()] == [first.cards[:2], (), (), ()]
    (story,) = [o for o in said if o.kind == "sync"]  # the moves as the dashboard stores them
    assert [m["action"] for m in story.context["moves"]] == ["show"] * 4


def test_a_recording_played_faster_is_paced_faster_and_judged_in_its_own_time(tmp_path):
    """``serve --demo-speed 4`` played the vision demo at the film's own pace: the capture
    thread paces a recording by the feed's timestamps, and those ignored the speed."""
    for k in range(6):
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render([], seed=1, noise_seed=k).image)

    def stages(video, deck):
        return NothingSeen(), None

    own = list(VisionFeed(str(tmp_path), stages=stages).items())
    fast_feed = VisionFeed(str(tmp_path), stages=stages, speed=4.0)
    fast = list(fast_feed.items())
    assert fast_feed.fps == 120.0
    assert [i.index for i in fast] == [i.index for i in own]
    assert own[-1].timestamp > 0
    assert [4 * i.timestamp for i in fast] == [i.timestamp for i in own]
    assert fast_feed._last[1] == own[-1].timestamp  # the referee's clock is the film's


def test_the_served_demo_is_given_its_speed():
    import pytest

    from companion.web.feeds import open_feed, vision_reason
    from companion.web.vision_feed import fixture_videos
    if vision_reason() is not None or not fixture_videos():
        pytest.skip("no shipped model or no filmed games: the demo is not the vision pipeline")
    feed = open_feed("demo", demo_speed=4.0)
    assert isinstance(feed, VisionFeed) and feed.fps == 120.0


class GuessingReader:
    """Reads three cards in every frame, none surely: the model on art it never saw."""

    may_not_know_the_art = True

    def classify(self, crops: np.ndarray) -> Classifications:
        n = len(crops)
        return Classifications(["kalki-9"] * n, np.full(n, 0.3), np.zeros(n), np.zeros(n),
                               [[("kalki-9", 0.3)] for _ in range(n)])


def test_the_table_is_told_when_the_model_does_not_know_the_deck(tmp_path):
    cards = [DrawnCard((250.0 + 90 * k, 200.0), PALETTE[k]) for k in range(3)]
    for k in range(24):
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render(cards, seed=1, noise_seed=k).image)
    feed = VisionFeed(str(tmp_path), stages=lambda video, deck: (GuessingReader(), None))
    items = list(feed.items())
    notes = [(i.index, o) for i in items for o in i.observations if o.kind == "note"]
    status = [(i.index, o.context["text"]) for i in items for o in i.observations
              if o.kind == "art"]
    assert len(notes) == 1 and len(status) == 2
    assert status[0] == (0, "")  # a new pipeline: no verdict yet
    assert status[1][0] == notes[0][0] and "Enrol the deck" in status[1][1]
    index, note = notes[0]
    assert 19 <= index <= 21  # 60 readings of three cards a frame (frames 0-19 or so)
    assert note.context["prominent"] and note.context["art"]["sure"] == 0
    assert "does not know this deck's art" in note.text and "enrol the deck" in note.text
    assert feed._tracker.min_confidence > 1.0  # no card is taken on its readings


def test_a_moved_camera_and_a_deck_read_surely_after_all_are_told():
    from types import SimpleNamespace

    from companion.vision.calibration import DriftReport
    from companion.vision.familiar import ArtVerdict
    from companion.web.vision_feed import _frame_notes
    moved = DriftReport(3.0, 31.4, (0, 1, 2, 3), drifted=True)
    hidden = DriftReport(3.0, 0.0, (0, 1), drifted=False, lost=True)
    (note,) = _frame_notes(SimpleNamespace(art=None, drift=moved))
    assert "moved (31 mm)" in note.text and not note.context.get("prominent")
    assert _frame_notes(SimpleNamespace(art=None, drift=hidden)) == ()
    known = ArtVerdict(60, 55, familiar=True)
    assert _frame_notes(SimpleNamespace(art=known, drift=None)) == ()
    again, status = _frame_notes(SimpleNamespace(art=ArtVerdict(200, 150, True, again=True),
                                                 drift=None))
    assert "knows this deck's art" in again.text and "name cards again" in again.text
    assert again.context["prominent"] and (status.kind, status.context) == ("art", {"text": ""})


def test_the_cards_named_at_a_table_of_unknown_art_come_with_their_pictures(tmp_path):
    """Answered before the art is judged, they wait for the verdict; each picture is the
    camera's crop of the card the answer named."""
    from companion.layouts import load_layout
    zones = {z.id: z.center_mm for z in load_layout("ganjifa").zones}
    cards = [DrawnCard(tuple(map(float, zones[f"play{k}"])), PALETTE[k]) for k in range(3)]
    for k in range(30):
        cv2.imwrite(str(tmp_path / f"{k:03}.png"), render(cards, seed=1, noise_seed=k).image)
    feed = VisionFeed(str(tmp_path), stages=lambda video, deck: (GuessingReader(), None))
    feed.game_provider = lambda: (7, "ganjifa", 4, {}, None, False)
    named = {"play0": "kalki-9", "play1": "kalki-8", "play2": "kalki-7"}
    learnt, verdict = [], None
    for item in feed.items():
        for o in item.observations:
            if o.kind == "unsure":
                feed.answer("unsure", o.context, named[o.context["zone"]])
            elif o.kind == "note" and "art" in o.context:
                verdict = item.index
            elif o.kind == "learnt":
                learnt.append((item.index, o.context["card"], o.context["picture"]))
    assert verdict is not None and {i for i, _, _ in learnt} == {verdict}
    assert sorted(c for _, c, _ in learnt) == sorted(named.values())
    for _, card, pic in learnt:
        assert pic.shape == (96, 96, 3) and pic.dtype == np.uint8
        face = np.median(pic[36:60, 36:60].reshape(-1, 3), axis=0)
        nearest = int(np.argmin([np.abs(face - np.array(c)).sum() for c in PALETTE[:3]]))
        assert named[f"play{nearest}"] == card  # the picture is of the card named


def test_a_card_taken_from_where_it_lay_face_up_is_offered_as_such():
    """A Deni's card taken from its spot is offered first, with why rather than a reading
    (``Referee._expected``)."""
    from companion.referee import RefereeOutput
    out = RefereeOutput("unsure", "?", 10, 0.3, choices=("rama-9", "kalki-2"), zone="play1",
                        place="Player 2's play spot", readings=(("kalki-2", 0.4),), track=3,
                        why=(("rama-9", "was lying face up"),))
    (question,) = _convert(out)
    assert [c["label"] for c in question.choices] == [
        "9 of Rama (was lying face up)", "2 of Kalki (40%)", "none of these"]
    assert "could" not in question.context
    # the cards the rules let lie there travel with the question, for the deck's grid
    (question,) = _convert(dataclasses.replace(out, could=("rama-9", "rama-3")))
    assert question.context["could"] == ["rama-9", "rama-3"]


def test_a_card_a_trick_was_gathered_without_is_asked_and_answered_on_the_dashboard(tmp_path):
    """Ruling *gathered-unseen* on the dashboard: the referee's question in its own words,
    with "none of these"; the answer names the card on that player's spot (no track: the
    tracker never saw it)."""
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TrackEvent
    lead, second, third, last = table_view(simulate("ganjifa", 4, {}, 0)).moves[:4]
    feed = VisionFeed(str(tmp_path))
    feed.referee = ref = Referee("ganjifa", 4)
    for k, m in enumerate((lead, second, third)):
        zone = ref.layout.zone(f"play{m.player}")
        ref.observe([TrackEvent("appeared", m.cards[0].id, zone.center_mm, zone.id, 0.99,
                                10 * k, 10 * k + 5, k, k)], 10 * k + 5)
    said = []
    for k, m in enumerate((lead, second, third)):  # swept: the spots seen empty
        zone = ref.layout.zone(f"play{m.player}")
        said += ref.observe([TrackEvent("removed", m.cards[0].id, zone.center_mm, zone.id,
                                        1.0, 40, 45 + k, 2.0, k),
                             TrackEvent("cleared", None, zone.center_mm, zone.id, 1.0, 45 + k,
                                        45 + k, 2.0)], 45 + k)
    (question,) = [o for out in said for o in _convert(out)]
    assert question.kind == "unsure" and question.context["zone"] == f"play{last.player}"
    assert question.text.startswith(f"Player {last.player + 1}'s card was not seen")
    assert question.choices[-1]["value"] == "none" and "track" not in question.context
    feed.answer("unsure", question.context, last.cards[0].id)
    assert [r.move for r in ref.rulings()] == [lead, second, third, last]
