"""The capture-and-referee thread: observations reach the table, a lost camera shows on the
status line and the picture comes back within 2 s of the camera's return."""

from __future__ import annotations

import dataclasses
import threading
import time

import numpy as np

from companion.store import Store
from companion.web.capture import CaptureThread, FeedItem, FrameHub, Observation
from companion.web.table import TableSession


class ListFeed:
    label = ""
    realtime = True

    def __init__(self, items, fail_after: int | None = None):
        self._items, self.fail_after = items, fail_after

    def items(self):
        for i, item in enumerate(self._items):
            if self.fail_after is not None and i >= self.fail_after:
                raise OSError("camera unplugged")
            yield item

    def close(self):
        pass


def frame(i: int, obs=()):
    return FeedItem(np.full((48, 64, 3), i % 255, np.uint8), i, i / 30, observations=obs)


def test_observations_start_a_game_and_are_judged(bridge_record):
    table = TableSession(Store(":memory:"))
    moves = [Observation("move", m) for m in bridge_record.moves[:5]]
    items = [frame(0, (Observation("start", context={"game": "kendra-kari", "players": 4}),))]
    items += [frame(i + 1, (m,)) for i, m in enumerate(moves)]
    done = threading.Event()

    def open_feed():
        if done.is_set():
            raise OSError("finished")
        done.set()
        return ListFeed(items)

    hub = FrameHub()
    cap = CaptureThread(table, hub, open_feed)
    cap.start()
    deadline = time.monotonic() + 5
    while (table.live is None or len(table.live.move_events) < 5) and time.monotonic() < deadline:
        time.sleep(0.02)
    cap.stop()
    cap.join(2)
    assert [e.payload["move"] for e in table.live.move_events] == [
        m.move.to_json() for m in moves]
    assert hub.jpeg() is not None and hub.jpeg()[1][:2] == b"\xff\xd8"
    # each move is timed from the frame it was seen in (benchmarks/bench_web.py)
    assert all(e.payload["seen_at"] > 0 for e in table.live.move_events)


def test_unplugged_camera_shows_and_resumes_within_two_seconds():
    table = TableSession(Store(":memory:"))
    hub = FrameHub()
    plugged = threading.Event()
    plugged.set()
    texts: list[tuple[bool, str]] = []
    set_camera = table.set_camera

    def spy(**kw):
        set_camera(**kw)
        texts.append((table.camera.ok, table.camera.text))

    table.set_camera = spy
    feeds = iter([ListFeed((frame(i) for i in range(10**9)), fail_after=20)])

    def open_feed():
        feed = next(feeds, None)
        if feed is not None:
            return feed  # the first camera: dies ("unplugged") after 20 frames
        if not plugged.is_set():
            raise OSError("no camera at index 0")
        return ListFeed(frame(i) for i in range(10**9))

    plugged.clear()
    cap = CaptureThread(table, hub, open_feed, retry_s=0.5)
    cap.start()
    try:
        deadline = time.monotonic() + 3
        while not any(not ok and "lost" in text for ok, text in texts):
            assert time.monotonic() < deadline, texts
            time.sleep(0.01)
        time.sleep(0.7)  # still unplugged: every reopen fails, and the status says so
        assert table.state_json()["camera"]["ok"] is False
        assert "no picture" in table.camera.text
        seen = hub.wait(-1, 0)
        replugged = time.monotonic()
        plugged.set()
        assert hub.wait(seen, 2.0) != seen, "no new frame within 2 s of replugging"
        back = time.monotonic() - replugged
    finally:
        cap.stop()
        cap.join(2)
    assert back < 2.0
    assert table.camera.ok


class AskingFeed(ListFeed):
    """A feed whose referee asks a question and, once answered, re-judges a move."""

    def __init__(self, items, corrected_move):
        super().__init__(items)
        self.corrected_move = corrected_move
        self.answers = []

    def answer(self, kind, context, choice):
        self.answers.append((kind, context.get("question_id"), choice))
        return [Observation("correct", self.corrected_move, context={"frame": 3})]


def test_answers_reach_the_feed_and_its_corrections_replace_the_move_seen_there(
        bridge_record):
    table = TableSession(Store(":memory:"))
    moves = bridge_record.moves
    question = Observation("question", text="Two cards or two players?",
                           choices=({"value": 0, "label": "one turn"},
                                    {"value": 1, "label": "two players"}),
                           context={"question_id": 11, "via": "vision"})
    items = [frame(0, (Observation("start", context={"game": "kendra-kari", "players": 4}),)),
             frame(1, (Observation("move", moves[0], context={"frame": 1}),)),
             frame(3, (Observation("move", moves[1], context={"frame": 3}), question))]
    other_story = dataclasses.replace(moves[1], player=(moves[1].player + 1) % 4)
    feed = AskingFeed(items, other_story)
    once = iter([feed])
    cap = CaptureThread(table, FrameHub(), lambda: next(once))
    cap.start()
    deadline = time.monotonic() + 5
    while not (table.live and table.store.pending(table.live.game_id)):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    pending = table.store.pending(table.live.game_id)[0]
    before = {e.payload["frame"]: e.id for e in table.live.move_events}
    table.answer(pending.id, 1)
    cap.stop()
    cap.join(2)
    assert feed.answers == [("question", 11, 1)]
    after = {e.payload["frame"]: e for e in table.live.move_events}
    assert after[3].id != before[3] and after[3].payload.get("corrected")  # replaced
    assert after[3].payload["move"] == other_story.to_json()
    assert after[1].id == before[1]  # the move seen elsewhere is untouched


def test_the_vision_pipeline_feeds_the_table_move_for_move():
    """End to end on the filmed Kendra Kari game: the real pipeline (detection, tracking,
    hand watching) and the vision referee, with the fixtures' ground-truth oracle in place
    of the model, feed the table session; every filmed move is stored and judged legal,
    and the bridges are announced."""
    import json
    import sys
    from pathlib import Path

    import pytest

    from companion.games import get_game
    from companion.games.base import Move
    from companion.web.vision_feed import VisionFeed, fixture_videos
    root = Path(__file__).resolve().parents[2]
    videos = [v for v in fixture_videos() if v.video.name == "kendra-kari-4p.mp4"]
    if not videos:
        pytest.skip("fixture video kendra-kari-4p.mp4 not present (make fixtures)")
    sys.path.insert(0, str(root / "benchmarks"))
    from fixture_oracle import TruthOracle

    from companion.vision.detect import CardDetector

    def oracle(video, deck):
        classifier = TruthOracle(video.meta)
        return classifier, classifier.detector(CardDetector())

    table = TableSession(Store(":memory:"))
    feed = VisionFeed("demo", videos, stages=oracle)
    feed.realtime = True  # as fast as it runs: no pacing at the film's 30 fps
    cap = CaptureThread(table, FrameHub(), lambda: feed)
    cap._consume(feed)  # the capture thread's own handling, in this thread
    game_id = table.store.games()[-1].id
    meta = json.loads(videos[0].meta.read_text())
    kk = get_game("kendra-kari")
    filmed = [kk.public_move(Move.from_json(m["move"])).to_json() for m in meta["moves"]]
    stored = table.store.events(game_id, kind="move")
    assert [e.payload["move"] for e in stored] == filmed
    assert all(e.payload["ruling"]["verdict"] != "illegal" for e in stored)
    assert table.store.game(game_id).result["text"] == meta["record"]["result"]["text"]
    bridges = [a for a in table.store.announcements(game_id, limit=1000) if a.kind == "bridge"]
    assert len(bridges) == sum(1 for m in meta["moves"] for e in m["events"]
                               if e["kind"] == "bridge")


def test_the_referee_story_never_overwrites_what_a_person_corrected(bridge_record):
    table = TableSession(Store(":memory:"))
    table.start_game("kendra-kari", 4)
    m = [x.to_json() for x in bridge_record.moves[:4]]
    table.sync_moves(m[:2], [10, 20], [0.0, 0.0])
    second = table.live.move_events[1]
    mine = {**m[1], "player": (m[1]["player"] + 1) % 4}
    table.correct(second.id, mine)
    table.sync_moves(m[:3], [10, 20, 30], [0.0] * 3)  # the referee still tells its version
    moves = [e.payload["move"] for e in table.live.move_events]
    assert moves[1] == mine and moves[2] == m[2] and len(moves) == 3
    # its own change of mind is applied: the first move re-told, the third taken back
    table.sync_moves([m[3], m[1]], [10, 20], [0.0] * 2)
    moves = [e.payload["move"] for e in table.live.move_events]
    assert moves == [m[3], mine]
    assert [c["after"] and c["after"]["move"] for c in table.store.corrections()] == [mine]


def test_a_move_the_referee_tells_late_takes_its_place_in_the_stored_game(bridge_record):
    table = TableSession(Store(":memory:"))
    table.start_game("kendra-kari", 4)
    m = [x.to_json() for x in bridge_record.moves[:4]]
    table.sync_moves([m[0], m[2]], [30, 60], [1.0, 2.0])
    # the second card settled late (at frame 75): the referee's story now has it second
    table.sync_moves([m[0], m[1], m[2], m[3]], [30, 75, 60, 90], [1.0, 2.5, 2.0, 3.0])
    stored = table.live.move_events
    assert [e.payload["move"] for e in stored] == m
    assert [e.payload["frame"] for e in stored] == [30, 75, 60, 90]
    assert all(e.payload["ruling"]["verdict"] != "illegal" for e in stored)
    assert table.store.corrections() == []  # the referee's own re-telling is no lesson


def test_a_question_the_camera_answers_itself_leaves_the_list():
    table = TableSession(Store(":memory:"))
    table.start_game("ganjifa", 4)
    table.ask("unsure", "Which card was laid on play1?", [{"value": "kalki-2"}],
              {"zone": "play1", "via": "vision"})
    table.ask("unsure", "Which card was laid on play2?", [{"value": "kalki-9"}],
              {"zone": "play2", "via": "vision", "track": 5})
    assert table.settle("play1", "kalki-2") == 1
    open_ = table.store.pending(table.live.game_id)
    assert [p.payload["context"]["zone"] for p in open_] == ["play2"]
    assert table.settle("play1", "kalki-2") == 0
    # an earlier card on the spot, still asked about, is not answered by a later one's
    table.ask("unsure", "Which card was laid on play2?", [{"value": "kalki-5"}],
              {"zone": "play2", "via": "vision", "track": 8})
    assert table.settle("play2", "kalki-5", track=8) == 1
    open_ = table.store.pending(table.live.game_id)
    assert [p.payload["choices"][0]["value"] for p in open_] == ["kalki-9"]


def test_the_dashboards_question_about_an_unsure_card_leaves_out_cards_already_played():
    from companion.layouts import load_layout
    from companion.record import simulate, table_view
    from companion.referee import Referee
    from companion.vision.track import TrackEvent
    from companion.web.vision_feed import _convert

    a, b = table_view(simulate("ganjifa", 4, {}, 0)).moves[:2]
    ref = Referee("ganjifa", 4)
    zone = ref.layout.zone(f"play{a.player}")
    ref.observe([TrackEvent("appeared", a.cards[0].id, zone.center_mm, zone.id, 0.99, 25, 30,
                            1.0, 0)], 30)
    where = load_layout("ganjifa").zone(f"play{b.player}")
    doubt = TrackEvent("unsure", None, where.center_mm, where.id, 0.4, 55, 60, 2.0, 1,
                       candidates=((a.cards[0].id, 0.4), (b.cards[0].id, 0.3)))
    (asked,) = [o for out in ref.observe([doubt], 60) for o in _convert(out)]
    assert asked.kind == "unsure" and asked.context["zone"] == where.id
    assert [c["value"] for c in asked.choices] == [b.cards[0].id, "none"]
    assert asked.choices[0]["label"] == f"{b.cards[0].name} (30%)"  # a name, not an id
    assert asked.text == f"Which card was laid on Player {b.player + 1}'s play spot?"
    # what was read goes with the question, and is stored with the answer
    assert asked.context["reading"] == [[a.cards[0].id, 0.4], [b.cards[0].id, 0.3]]


def test_a_camera_feed_follows_the_setup_pages_choice_to_ask_every_doubt(tmp_path):
    class CameraFeed(ListFeed):
        game_provider = None

    table = TableSession(Store(":memory:"))
    cap = CaptureThread(table, FrameHub(), lambda: None, profiles_dir=tmp_path)
    feed = CameraFeed([])
    cap._attach(feed)
    assert feed.game_provider() is None  # no game yet
    game_id = table.start_game("ganjifa", 4)
    wanted = feed.game_provider()
    assert wanted[:3] == (game_id, "ganjifa", 4) and wanted[4:] == (None, False)
    table.store.update_session_settings(table.session_id,
                                        {**table.settings, "ask_every_doubt": True})
    assert feed.game_provider()[-1] is True


def test_a_deck_the_model_does_not_know_is_shown_on_every_page_with_or_without_a_game():
    table = TableSession(Store(":memory:"))
    cap = CaptureThread(table, FrameHub(), lambda: ListFeed([]))
    said = "The camera's model does not know this deck's art"
    cap._handle(Observation("art", context={"text": said}))
    assert table.live is None and table.state_json()["camera"]["art"] == said
    table.start_game("ganjifa", 4)
    cap._handle(Observation("art", context={"text": ""}))  # a new pipeline, not judged yet
    assert table.state_json()["camera"]["art"] == ""
