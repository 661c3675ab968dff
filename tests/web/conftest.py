"""Fixtures for the dashboard: an app on a temporary database, its test client, and a
simulated Kendra Kari record to feed it."""

from __future__ import annotations

import pytest

from companion.record import simulate
from companion.web import create_app


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "companion.db"


@pytest.fixture
def make_app(db_path):
    apps = []

    def make(**config):
        app = create_app({"DATABASE": str(db_path), "TESTING": True, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        rt = app.extensions["companion"]
        rt.stop()
        rt.store.close()


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


def record_with(kind: str, game: str = "kendra-kari", players: int = 4):
    """The first simulated game (seeds 0, 1, ...) whose events include ``kind``."""
    for seed in range(200):
        rec = simulate(game, players, {}, seed)
        if any(e.kind == kind for evs in rec.events for e in evs):
            return rec
    raise AssertionError(f"no simulated {game} game with a {kind!r} event in 200 seeds")


@pytest.fixture(scope="session")
def bridge_record():
    return record_with("bridge")


def _start(client, game="kendra-kari", players=4, **extra):
    r = client.post("/api/setup", json={"game": game, "players": players,
                                        "seats": ["Asha", "Ben", "Chitra", "Dev"][:players],
                                        **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["game_id"]


@pytest.fixture
def start():
    """``start(client, game=..., players=..., **setup)``: begin a game, return its id."""
    return _start
