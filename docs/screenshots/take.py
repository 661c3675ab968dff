"""Take the dashboard screenshots in this folder from the built-in demo (the real vision
pipeline on the filmed games), as the README and docs/dashboard.md show them.

    .venv/bin/python docs/screenshots/take.py        # about 4 minutes

Needs the shipped model and Playwright with Debian's chromium, as the browser tests do.
The demo runs on a fresh temporary database, so the scoreboard holds only its rounds."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent
URL = "http://127.0.0.1:5077"
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _get(path: str) -> dict:
    with urllib.request.urlopen(URL + path, timeout=5) as r:
        return json.load(r)


def _post(path: str, body: dict) -> dict:
    req = urllib.request.Request(URL + path, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)


def _wait(test, what: str, limit: float = 400) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            state = _get("/api/state")
            if test(state):
                return state
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit(f"the demo never showed {what} in {limit:.0f} s")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "serve", "--source", "demo", "--port",
             "5077", "--db", f"{tmp}/demo.db", "--profiles-dir", f"{tmp}/profiles",
             "--demo-speed", "2"], cwd=ROOT)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            headless=True, args=ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                _shoot_all(page)
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    return 0


def _shot(page, path: str, name: str, settle: float = 2.0) -> None:
    page.goto(URL + path)
    time.sleep(settle)
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=True)
    print("took", name)


def _shoot_all(page) -> None:
    _wait(lambda s: s["game"] and s["game"]["game"] == "kendra-kari"
          and s["game"]["move_count"] >= 14, "Kendra Kari's first bridge")
    _shot(page, "/", "table")
    _shot(page, "/played", "played")
    _shot(page, "/setup", "setup")
    page.goto(URL + "/learn")
    page.select_option("#pick-suit", "cheng")
    page.select_option("#pick-rank", "raja")
    page.wait_for_selector("#card-view:not([hidden])")
    page.screenshot(path=str(OUT / "learn.png"), full_page=True)
    print("took learn")
    page.goto(URL + "/enroll")
    page.click("#e-scan")
    page.wait_for_selector("#e-cards select", timeout=30_000)
    time.sleep(1)
    page.screenshot(path=str(OUT / "enroll.png"), full_page=True)
    print("took enroll")
    _wait(lambda s: s["game"] and s["game"]["game"] == "ganjifa" and s["game"]["pending"],
          "a question in the Ganjifa game")
    _shot(page, "/", "table-pipeline")
    page.goto(URL + "/confirm")
    page.wait_for_selector("#moves li")
    page.locator("#moves li").nth(1).click()
    grid = page.locator("#pending details.deck-grid summary")
    if grid.count():  # the deck's cards as buttons, as a player at a deck new to it opens them
        grid.first.click()
    time.sleep(1)
    page.screenshot(path=str(OUT / "confirm.png"), full_page=True)
    print("took confirm")
    _shot(page, "/scoreboard", "scoreboard")
    _post("/api/setup", {"game": "kanji-guti", "players": 2, "seats": ["Omar", "Mira"],
                         "manual": True})
    page.goto(URL + "/manual")
    for _ in range(6):  # a few moves in, so the board has seeds moved and a capture or two
        page.locator("#m-moves button").first.click()
        time.sleep(0.4)
    page.screenshot(path=str(OUT / "manual.png"), full_page=True)
    print("took manual")


if __name__ == "__main__":
    sys.exit(main())
