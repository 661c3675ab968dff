"""The store: schema versions, events and corrections, and durability under kill -9."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from companion.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError


def test_new_database_is_at_the_latest_schema_in_wal_mode(tmp_path):
    store = Store(tmp_path / "t.db")
    assert store.version == SCHEMA_VERSION == len(MIGRATIONS)
    mode = store._query("PRAGMA journal_mode")[0][0]
    assert mode == "wal"
    assert {"sessions", "games", "events", "corrections", "announcements", "pending"} <= set(
        store.iter_tables())


def test_migrations_apply_in_order_and_only_once(tmp_path):
    path = tmp_path / "m.db"
    db = sqlite3.connect(path)
    db.executescript(MIGRATIONS[0])
    db.execute("PRAGMA user_version=1")
    db.execute("INSERT INTO sessions(created, title) VALUES (1.0, 'old evening')")
    db.commit()
    db.close()
    store = Store(path)  # brings version 1 up to the latest, keeping the data
    assert store.version == SCHEMA_VERSION
    assert store.sessions()[0]["title"] == "old evening"
    extra = MIGRATIONS + ["CREATE TABLE later_feature (x INTEGER)"]
    assert store.migrate(extra) == SCHEMA_VERSION + 1
    assert store.migrate(extra) == SCHEMA_VERSION + 1  # idempotent
    assert "later_feature" in set(store.iter_tables())


def test_a_database_newer_than_the_program_is_refused(tmp_path):
    path = tmp_path / "n.db"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 5}")
    db.close()
    with pytest.raises(StoreError, match="newer"):
        Store(path)


def test_failed_migration_leaves_the_version_unchanged(tmp_path):
    store = Store(tmp_path / "f.db")
    with pytest.raises(sqlite3.Error):
        store.migrate(MIGRATIONS + ["CREATE TABLE ok_table (x); THIS IS NOT SQL"])
    assert store.version == SCHEMA_VERSION
    assert "ok_table" not in set(store.iter_tables())


def test_events_corrections_and_announcements_round_trip(tmp_path):
    store = Store(tmp_path / "e.db")
    sid = store.new_session("evening")
    gid = store.new_game(sid, "kendra-kari", 3, ["A", "B", "C"], {"direction": "clockwise"})
    e1, anns = store.append_event(gid, "move", {"move": {"player": 0, "action": "play"}},
                                  [{"kind": "bridge", "text": "Bridge!", "prominent": True}])
    e2, _ = store.append_event(gid, "move", {"move": {"player": 1, "action": "draw"}})
    assert (e1.seq, e2.seq) == (1, 2)
    assert anns[0].prominent and anns[0].event_id == e1.id
    new = store.correct_event(e1.id, {"move": {"player": 2, "action": "play"}}, "my-deck")
    assert new.seq == 1 and new.id != e1.id
    active = store.events(gid)
    assert [e.payload["move"]["player"] for e in active] == [2, 1]
    assert len(store.events(gid, include_inactive=True)) == 3
    with pytest.raises(StoreError, match="already corrected"):
        store.correct_event(e1.id, None)
    store.rejudge(gid, 1, {new.id: ({"move": {"player": 2, "action": "play"}}, [])})
    assert store.announcements(gid) == []  # the bridge of the replaced reading is retracted
    corr = store.corrections(gid)
    assert corr[0]["before"]["move"]["player"] == 0 and corr[0]["deck_profile"] == "my-deck"
    store.end_game(gid, {"winners": [1], "scores": [0, 1, 0], "text": "B wins"})
    assert store.game(gid).result["winners"] == [1]


def test_the_newest_announcements_come_newest_first(tmp_path):
    store = Store(tmp_path / "n.db")
    sid = store.new_session("evening")
    gid = store.new_game(sid, "kendra-kari", 3, ["A", "B", "C"], {})
    said = [store.append_event(gid, "move", {"move": {"player": k % 3, "action": "play"}},
                               [{"kind": "play", "text": f"move {k}"}])[1][0]
            for k in range(25)]
    newest = store.announcements(session_id=sid, limit=3, newest=True)
    assert [a.text for a in newest] == ["move 24", "move 23", "move 22"]
    store.rejudge(gid, 25, {})  # the newest move judged again: its announcement retracted
    assert [a.id for a in store.announcements(session_id=sid, limit=3, newest=True)] == \
        [a.id for a in said[23:20:-1]]
    other = store.new_session("another evening")
    assert store.announcements(session_id=other, newest=True) == []  # this session's only


def test_pending_questions_are_answered_once(tmp_path):
    store = Store(tmp_path / "p.db")
    gid = store.new_game(store.new_session("s"), "kendra-kari", 2, ["A", "B"], {})
    p = store.add_pending(gid, "question", {"text": "Who drew?"})
    assert [q.id for q in store.pending(gid)] == [p.id]
    store.resolve_pending(p.id, 1)
    assert store.pending(gid) == []
    with pytest.raises(StoreError, match="already answered"):
        store.resolve_pending(p.id, 0)


def test_unknown_ids_give_clear_errors(tmp_path):
    store = Store(tmp_path / "u.db")
    with pytest.raises(StoreError, match="no game 42"):
        store.game(42)
    with pytest.raises(StoreError, match="no session 7"):
        store.new_game(7, "komi", 2, [], {})


WRITER = textwrap.dedent("""
    import sys
    from companion.store import Store
    store = Store(sys.argv[1])
    sid = store.new_session("crash test")
    gid = store.new_game(sid, "kendra-kari", 4, [], {})
    print("game", gid, flush=True)
    i = 0
    while True:
        ev, anns = store.append_event(gid, "move", {"n": i},
                                      [{"kind": "k", "text": f"announcement {i}"}])
        # shown only after it is committed: the parent treats a printed id as "shown"
        print(ev.id, anns[0].id, flush=True)
        i += 1
""")


def test_kill_minus_9_loses_nothing_that_was_shown(tmp_path):
    path = tmp_path / "crash.db"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    game_id = int(proc.stdout.readline().split()[1])
    shown = []
    for line in proc.stdout:
        shown.append(tuple(int(x) for x in line.split()))
        if len(shown) >= 200:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    store = Store(path)
    assert store._query("PRAGMA integrity_check")[0][0] == "ok"
    events = {e.id: e for e in store.events(game_id)}
    anns = {a.id for a in store.announcements(game_id, limit=100_000)}
    for event_id, ann_id in shown:
        assert event_id in events and ann_id in anns
    seqs = [e.seq for e in events.values()]
    assert seqs == list(range(1, len(seqs) + 1))  # no gaps, no duplicates
