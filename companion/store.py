"""SQLite storage of table sessions: sessions, games, events, corrections, announcements.

Everything the dashboard shows is committed here first (write-before-show), in WAL mode
with ``synchronous=FULL``, so a server killed with ``kill -9`` restarts into the exact game
it was showing. The game state itself is never stored: it is rebuilt by replaying a game's
active ``move`` events through the referee, which is why a correction is just "replace
event N, re-judge from N".

The schema is versioned with ``PRAGMA user_version``; ``MIGRATIONS[i]`` takes a database
from version ``i`` to ``i + 1`` inside one transaction.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.store_rows import AnnouncementRow, EventRow, GameRow, PendingRow

MIGRATIONS: list[str] = [
    # 0 -> 1: the first schema.
    """
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY,
        created REAL NOT NULL,
        title TEXT NOT NULL,
        source TEXT NOT NULL DEFAULT '',
        settings TEXT NOT NULL DEFAULT '{}',
        closed REAL
    );
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        session_id INTEGER NOT NULL REFERENCES sessions(id),
        number INTEGER NOT NULL,
        game TEXT NOT NULL,
        players INTEGER NOT NULL,
        seats TEXT NOT NULL DEFAULT '[]',
        options TEXT NOT NULL DEFAULT '{}',
        started REAL NOT NULL,
        ended REAL,
        result TEXT
    );
    CREATE TABLE events (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        seq INTEGER NOT NULL,
        ts REAL NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'active',
        payload TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX events_by_game ON events(game_id, seq);
    CREATE TABLE corrections (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        event_id INTEGER,
        ts REAL NOT NULL,
        before TEXT,
        after TEXT,
        deck_profile TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE announcements (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        event_id INTEGER,
        ts REAL NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL,
        player INTEGER,
        prominent INTEGER NOT NULL DEFAULT 0,
        retracted INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX announcements_by_game ON announcements(game_id, id);
    """,
    # 1 -> 2: open questions and unsure readings waiting for a tap on the dashboard.
    """
    CREATE TABLE pending (
        id INTEGER PRIMARY KEY,
        game_id INTEGER NOT NULL REFERENCES games(id),
        ts REAL NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL DEFAULT '{}',
        resolved REAL,
        answer TEXT
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(Exception):
    """A database that cannot be opened or used (newer schema, bad path, unknown id)."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Store:
    """One SQLite database; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: str | Path, clock=time.time):
        self.path = str(path)
        self._clock = clock
        self._lock = threading.RLock()
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False,
                                       isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: each commit is on disk before it is shown, so kill -9 (and a power cut)
            # loses nothing that a browser has seen.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
        except sqlite3.Error as e:
            raise StoreError(f"cannot open database {self.path}: {e}") from None
        self.migrate()

    # ---- schema -------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return self._db.execute("PRAGMA user_version").fetchone()[0]

    def migrate(self, migrations: list[str] | None = None) -> int:
        """Apply the migrations this database lacks; returns the resulting version."""
        steps = MIGRATIONS if migrations is None else migrations
        with self._lock:
            current = self.version
            if current > len(steps):
                raise StoreError(f"database {self.path} has schema version {current}, newer "
                                 f"than this program's {len(steps)}; upgrade the companion")
            for version in range(current, len(steps)):
                with self._tx():
                    for statement in steps[version].split(";"):
                        if statement.strip():
                            self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version={version + 1}")
            return self.version

    class _Tx:
        def __init__(self, store: Store):
            self.store = store

        def __enter__(self):
            self.store._lock.acquire()
            self.store._db.execute("BEGIN IMMEDIATE")
            return self.store._db

        def __exit__(self, exc_type, exc, tb):
            try:
                self.store._db.execute("ROLLBACK" if exc_type else "COMMIT")
            finally:
                self.store._lock.release()

    def _tx(self) -> Store._Tx:
        return Store._Tx(self)

    def _query(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # ---- sessions and games -------------------------------------------------------------

    def new_session(self, title: str, source: str = "", settings: dict | None = None) -> int:
        with self._tx() as db:
            cur = db.execute("INSERT INTO sessions(created, title, source, settings) "
                             "VALUES (?,?,?,?)",
                             (self._clock(), title, source, _dumps(settings or {})))
            return int(cur.lastrowid)

    def session(self, session_id: int) -> dict[str, Any]:
        rows = self._query("SELECT id, created, title, source, settings, closed FROM sessions "
                           "WHERE id=?", (session_id,))
        if not rows:
            raise StoreError(f"no session {session_id}")
        r = rows[0]
        return {"id": r[0], "created": r[1], "title": r[2], "source": r[3],
                "settings": json.loads(r[4]), "closed": r[5]}

    def sessions(self) -> list[dict[str, Any]]:
        ids = [r[0] for r in self._query("SELECT id FROM sessions ORDER BY id")]
        return [self.session(i) for i in ids]

    def latest_open_session(self) -> int | None:
        rows = self._query("SELECT id FROM sessions WHERE closed IS NULL ORDER BY id DESC "
                           "LIMIT 1")
        return rows[0][0] if rows else None

    def update_session_settings(self, session_id: int, settings: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute("UPDATE sessions SET settings=? WHERE id=?",
                       (_dumps(settings), session_id))

    def close_session(self, session_id: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE sessions SET closed=? WHERE id=?", (self._clock(), session_id))

    def new_game(self, session_id: int, game: str, players: int, seats: list[str],
                 options: dict[str, Any]) -> int:
        with self._tx() as db:
            if not db.execute("SELECT 1 FROM sessions WHERE id=?", (session_id,)).fetchone():
                raise StoreError(f"no session {session_id}")
            number = db.execute("SELECT COUNT(*) FROM games WHERE session_id=?",
                                (session_id,)).fetchone()[0] + 1
            cur = db.execute(
                "INSERT INTO games(session_id, number, game, players, seats, options, started) "
                "VALUES (?,?,?,?,?,?,?)",
                (session_id, number, game, players, _dumps(list(seats)), _dumps(options),
                 self._clock()))
            return int(cur.lastrowid)

    _GAME_COLS = "id, session_id, number, game, players, seats, options, started, ended, result"

    @staticmethod
    def _game_row(r: tuple) -> GameRow:
        return GameRow(r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), json.loads(r[6]),
                       r[7], r[8], json.loads(r[9]) if r[9] else None)

    def game(self, game_id: int) -> GameRow:
        rows = self._query(f"SELECT {self._GAME_COLS} FROM games WHERE id=?", (game_id,))
        if not rows:
            raise StoreError(f"no game {game_id}")
        return self._game_row(rows[0])

    def games(self, session_id: int | None = None) -> list[GameRow]:
        if session_id is None:
            rows = self._query(f"SELECT {self._GAME_COLS} FROM games ORDER BY id")
        else:
            rows = self._query(f"SELECT {self._GAME_COLS} FROM games WHERE session_id=? "
                               "ORDER BY id", (session_id,))
        return [self._game_row(r) for r in rows]

    def end_game(self, game_id: int, result: dict[str, Any]) -> None:
        with self._tx() as db:
            db.execute("UPDATE games SET ended=?, result=? WHERE id=?",
                       (self._clock(), _dumps(result), game_id))

    # ---- events -------------------------------------------------------------------------

    def append_event(self, game_id: int, kind: str, payload: dict[str, Any],
                     announcements: list[dict[str, Any]] = ()) -> tuple[EventRow,
                                                                          list[AnnouncementRow]]:
        """Write one event and its announcements in one transaction; returns them as stored."""
        with self._tx() as db:
            seq = db.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id=?",
                             (game_id,)).fetchone()[0] + 1
            ts = self._clock()
            cur = db.execute("INSERT INTO events(game_id, seq, ts, kind, payload) "
                             "VALUES (?,?,?,?,?)", (game_id, seq, ts, kind, _dumps(payload)))
            event = EventRow(int(cur.lastrowid), game_id, seq, ts, kind, "active", payload)
            return event, self._insert_announcements(db, game_id, event.id, announcements)

    def _insert_announcements(self, db, game_id: int, event_id: int | None,
                              items) -> list[AnnouncementRow]:
        out = []
        for a in items:
            ts = self._clock()
            cur = db.execute(
                "INSERT INTO announcements(game_id, event_id, ts, kind, text, player, prominent)"
                " VALUES (?,?,?,?,?,?,?)",
                (game_id, event_id, ts, a["kind"], a["text"], a.get("player"),
                 1 if a.get("prominent") else 0))
            out.append(AnnouncementRow(int(cur.lastrowid), game_id, event_id, ts, a["kind"],
                                       a["text"], a.get("player"), bool(a.get("prominent"))))
        return out

    def announce(self, game_id: int, kind: str, text: str, player: int | None = None,
                 prominent: bool = False) -> AnnouncementRow:
        """An announcement that belongs to no event (game start, camera status)."""
        with self._tx() as db:
            return self._insert_announcements(db, game_id, None, [
                {"kind": kind, "text": text, "player": player, "prominent": prominent}])[0]

    _EVENT_COLS = "id, game_id, seq, ts, kind, status, payload"

    @staticmethod
    def _event_row(r: tuple) -> EventRow:
        return EventRow(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]))

    def events(self, game_id: int, kind: str | None = None,
               include_inactive: bool = False) -> list[EventRow]:
        sql = f"SELECT {self._EVENT_COLS} FROM events WHERE game_id=?"
        args: tuple = (game_id,)
        if kind is not None:
            sql += " AND kind=?"
            args += (kind,)
        if not include_inactive:
            sql += " AND status='active'"
        rows = self._query(sql + " ORDER BY seq, id", args)
        return [self._event_row(r) for r in rows]

    def event(self, event_id: int) -> EventRow:
        rows = self._query(f"SELECT {self._EVENT_COLS} FROM events WHERE id=?", (event_id,))
        if not rows:
            raise StoreError(f"no event {event_id}")
        return self._event_row(rows[0])

    def correct_event(self, event_id: int, new_payload: dict[str, Any] | None,
                      deck_profile: str = "", by_person: bool = True) -> EventRow | None:
        """Replace an active event by ``new_payload`` (same seq), or delete it (None).

        The old event stays in the database with status ``replaced``/``deleted`` and a row in
        ``corrections`` records before and after (kept for a deck profile to learn from one
        day; nothing reads them back yet).
        """
        with self._tx() as db:
            r = db.execute(f"SELECT {self._EVENT_COLS} FROM events WHERE id=?",
                           (event_id,)).fetchone()
            if r is None:
                raise StoreError(f"no event {event_id}")
            old = self._event_row(r)
            if old.status != "active":
                raise StoreError(f"event {event_id} was already corrected")
            db.execute("UPDATE events SET status=? WHERE id=?",
                       ("deleted" if new_payload is None else "replaced", event_id))
            new = None
            if new_payload is not None:
                ts = self._clock()
                cur = db.execute("INSERT INTO events(game_id, seq, ts, kind, payload) "
                                 "VALUES (?,?,?,?,?)",
                                 (old.game_id, old.seq, ts, old.kind, _dumps(new_payload)))
                new = EventRow(int(cur.lastrowid), old.game_id, old.seq, ts, old.kind,
                               "active", new_payload)
            if by_person:  # the referee re-telling its own story is no lesson for the deck
                db.execute("INSERT INTO corrections(game_id, event_id, ts, before, after, "
                           "deck_profile) VALUES (?,?,?,?,?,?)",
                           (old.game_id, event_id, self._clock(), _dumps(old.payload),
                            _dumps(new_payload) if new_payload is not None else None,
                            deck_profile))
            return new

    def rejudge(self, game_id: int, from_seq: int,
                rulings: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[
                    AnnouncementRow]:
        """After a correction: store new payloads for events at ``seq >= from_seq`` and
        replace their announcements. ``rulings`` maps event id to (payload, announcements)."""
        with self._tx() as db:
            db.execute("UPDATE announcements SET retracted=1 WHERE game_id=? AND event_id IN "
                       "(SELECT id FROM events WHERE game_id=? AND seq>=?)",
                       (game_id, game_id, from_seq))
            out: list[AnnouncementRow] = []
            for event_id, (payload, items) in rulings.items():
                db.execute("UPDATE events SET payload=? WHERE id=?", (_dumps(payload), event_id))
                out += self._insert_announcements(db, game_id, event_id, items)
            return out

    def record_correction(self, game_id: int, event_id: int | None, before: Any, after: Any,
                          deck_profile: str = "") -> None:
        """A correction that replaced no event (a confirmed unsure reading)."""
        with self._tx() as db:
            db.execute("INSERT INTO corrections(game_id, event_id, ts, before, after, "
                       "deck_profile) VALUES (?,?,?,?,?,?)",
                       (game_id, event_id, self._clock(), _dumps(before), _dumps(after),
                        deck_profile))

    def corrections(self, game_id: int | None = None) -> list[dict[str, Any]]:
        sql = "SELECT id, game_id, event_id, ts, before, after, deck_profile FROM corrections"
        rows = self._query(sql + (" WHERE game_id=? ORDER BY id" if game_id else " ORDER BY id"),
                           (game_id,) if game_id else ())
        return [{"id": r[0], "game_id": r[1], "event_id": r[2], "ts": r[3],
                 "before": json.loads(r[4]) if r[4] else None,
                 "after": json.loads(r[5]) if r[5] else None, "deck_profile": r[6]}
                for r in rows]

    # ---- announcements ------------------------------------------------------------------

    def announcements(self, game_id: int | None = None, after_id: int = 0, limit: int = 200,
                      session_id: int | None = None, newest: bool = False
                      ) -> list[AnnouncementRow]:
        """Oldest first; with ``newest``, the ``limit`` newest, newest first."""
        sql = ("SELECT id, game_id, event_id, ts, kind, text, player, prominent "
               "FROM announcements WHERE retracted=0 AND id>?")
        args: tuple = (after_id,)
        if game_id is not None:
            sql += " AND game_id=?"
            args += (game_id,)
        if session_id is not None:
            sql += " AND game_id IN (SELECT id FROM games WHERE session_id=?)"
            args += (session_id,)
        order = " ORDER BY id DESC LIMIT ?" if newest else " ORDER BY id LIMIT ?"
        rows = self._query(sql + order, args + (limit,))
        return [AnnouncementRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]))
                for r in rows]

    def retracted(self, game_id: int, limit: int = 200) -> list[int]:
        """Ids of the game's latest announcements that a re-judged move took back: a page
        that already shows them removes them."""
        rows = self._query("SELECT id FROM announcements WHERE game_id=? AND retracted=1 "
                           "ORDER BY id DESC LIMIT ?", (game_id, limit))
        return sorted(r[0] for r in rows)

    # ---- pending questions --------------------------------------------------------------

    def add_pending(self, game_id: int, kind: str, payload: dict[str, Any]) -> PendingRow:
        with self._tx() as db:
            ts = self._clock()
            cur = db.execute("INSERT INTO pending(game_id, ts, kind, payload) VALUES (?,?,?,?)",
                             (game_id, ts, kind, _dumps(payload)))
            return PendingRow(int(cur.lastrowid), game_id, ts, kind, payload, None, None)

    def pending(self, game_id: int, open_only: bool = True) -> list[PendingRow]:
        sql = "SELECT id, game_id, ts, kind, payload, resolved, answer FROM pending WHERE game_id=?"
        if open_only:
            sql += " AND resolved IS NULL"
        return [PendingRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5],
                           json.loads(r[6]) if r[6] else None)
                for r in self._query(sql + " ORDER BY id", (game_id,))]

    def resolve_pending(self, pending_id: int, answer: Any) -> PendingRow:
        with self._tx() as db:
            r = db.execute("SELECT id, game_id, ts, kind, payload, resolved FROM pending "
                           "WHERE id=?", (pending_id,)).fetchone()
            if r is None:
                raise StoreError(f"no question {pending_id}")
            if r[5] is not None:
                raise StoreError(f"question {pending_id} was already answered")
            now = self._clock()
            db.execute("UPDATE pending SET resolved=?, answer=? WHERE id=?",
                       (now, _dumps(answer), pending_id))
            return PendingRow(r[0], r[1], r[2], r[3], json.loads(r[4]), now, answer)

    def iter_tables(self) -> Iterator[str]:
        for (name,) in self._query("SELECT name FROM sqlite_master WHERE type='table' "
                                   "ORDER BY name"):
            yield name
