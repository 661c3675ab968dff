"""Fixtures for the dashboard: an app on a temporary database, its test client, a
simulated Kendra Kari record to feed it, and for the browser tests a served dashboard
(``server``) with Debian's Chromium driven by Playwright (``browser``, ``page``)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

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


# -- the browser tests ----------------------------------------------------------------------

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _browser_missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (scripts/install-browser-deps.sh installs it)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is missing (pip install -e '.[dev]')"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`companion serve` in a subprocess on a free 127.0.0.1 port: the demo source unless
    ``extra`` names another (argparse takes the last ``--source``)."""

    def __init__(self, db: Path, *extra: str):
        self.db, self.extra = db, extra
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--source", "demo", "--host",
             "127.0.0.1", "--port", str(self.port), "--db", str(self.db), *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                self.get("/api/state")
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"server died: {self.proc.stdout.read()}") from None
                time.sleep(0.1)
        raise RuntimeError("server did not answer within 30 s")

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            return json.loads(r.read())

    def post(self, path: str, body: dict):
        req = urllib.request.Request(self.url + path, json.dumps(body).encode(),
                                     {"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read())

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


@pytest.fixture
def server(tmp_path):
    servers: list[Server] = []

    def make(*extra: str, db: Path | None = None) -> Server:
        s = Server(db or tmp_path / "companion.db", *extra).start()
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.kill()


@pytest.fixture(scope="module")
def browser():
    missing = _browser_missing()
    if missing and (os.environ.get("CI") or os.environ.get("COMPANION_REQUIRE_BROWSER")):
        pytest.fail(f"browser tests required but cannot run: {missing}")
    if missing:
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"
