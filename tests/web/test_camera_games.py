"""The Mughal games refereed from the camera reach the dashboard's table session: the
vision referee's story (``VisionFeed._story``) is stored move for move, judged again by
the table's own referee, and the game's result is recorded."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from companion.games.base import seat_name
from companion.record import simulate
from companion.referee import Referee
from companion.store import Store
from companion.web.capture import CaptureThread, FrameHub
from companion.web.table import TableSession
from companion.web.vision_feed import VisionFeed

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from referee_show import TableShow


def _shown(game: str, players: int, seed: int):
    rec = simulate(game, players, {}, seed)
    show = TableShow(Referee(game, players, rec.options))
    for move in rec.moves:
        if game == "sama":
            show.sama(move)
        else:
            show.handful(move, "" if game == "hamrang" else f"hand{move.player}")
            last = show.rulings()[-1].ruling if show.rulings() else None
            if game != "hamrang" and last and any(e.kind == "round" for e in last.events):
                show.sweep("hand")  # the round is settled: the hands are gathered
    bets = [m for m in rec.moves if m.action == "bet"]  # Komi's, asked in their order
    for q, bet in zip([o for o in show.ref.outputs if o.kind == "question"], bets):
        who = seat_name(bet.player)
        show.ref.answer(q.question_id, q.choices.index(f"{who} bet {bet.target}"))
    return rec, show


@pytest.mark.parametrize(("game", "players", "seed"),
                         [("hamrang", 4, 2), ("komi", 3, 1), ("nakash", 3, 1),
                          ("sama", 4, 1)])
def test_a_camera_game_is_stored_judged_and_scored_on_the_dashboard(game, players, seed):
    rec, show = _shown(game, players, seed)
    table = TableSession(Store(":memory:"))
    game_id = table.start_game(game, players, options=rec.options)
    feed = VisionFeed("demo")
    feed.referee = show.ref
    cap = CaptureThread(table, FrameHub(), lambda: feed)
    for obs in feed._story(show.ref.outputs):
        cap._handle(obs)
    stored = table.store.events(game_id, kind="move")
    assert [e.payload["move"] for e in stored] == [o.ruling.move.to_json()
                                                   for o in show.rulings()]
    assert all(e.payload["ruling"]["verdict"] != "illegal" for e in stored)
    if game != "hamrang":  # (Hamrang's last drop-outs show nothing: the players end it)
        assert table.store.game(game_id).result["text"] == rec.result["text"]
