"""Browser tests of the questions the referee asks while the vision demo plays (Debian's
Chromium, driven by Playwright): the readings offered, the deck's other cards as a list and
as a grid, and the keys 1-9."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from companion.web.cardinfo import GONE_GROUP


def _confirm_page_of_the_demo(server, page) -> tuple:
    """The demo served fast, its Confirm page open, and the answers the page posts (URLs)."""
    if not (Path(__file__).resolve().parents[2] / "models" / "card_classifier.onnx").exists():
        pytest.skip("no shipped model: the demo asks no questions")
    srv = server("--demo-speed", "4")
    page.goto(srv.url + "/confirm")
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.url) if "/api/pending/" in r.url else None)
    return srv, posted


def _new_questions(srv, limit_s: float = 240):
    """(the game's state, a which-card question not seen before), as the demo asks them."""
    deadline, seen = time.monotonic() + limit_s, set()
    while True:
        assert time.monotonic() < deadline, "the demo asked nothing that stayed open"
        state = srv.get("/api/state")["game"] or {}
        asked = [p for p in state.get("pending", []) if p["kind"] == "unsure"
                 and p["id"] not in seen]
        if not asked:
            time.sleep(0.3)
            continue
        seen.add(asked[0]["id"])
        yield state, asked[0]


def test_a_card_not_among_the_readings_offered_is_chosen_from_the_deck(server, page):
    """The right card is not always among the readings a question offers (a deck enrolled
    live: about 7% of its cards). The question also lists the deck's other cards."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    srv, posted = _confirm_page_of_the_demo(server, page)
    for state, p in _new_questions(srv):
        other = page.locator(f'#pending [data-pending="{p["id"]}"] select[data-other]')
        offered = {str(c["value"]) for c in p["choices"]}
        card = next(card for card, _, _ in state["cards"] if card not in offered)
        try:
            other.wait_for(timeout=5_000)
            options = other.locator("option").all_inner_texts()
            groups = other.locator("optgroup").evaluate_all("gs => gs.map(g => g.label)")
            other.select_option(card, timeout=5_000)
            time.sleep(0.3)
            assert posted == []  # chosen, not yet given: a list changes under a stray key
            page.click(f'#pending button[data-give="{p["id"]}"]', timeout=5_000)
        except PlaywrightTimeout:  # the camera named the card itself meanwhile
            continue
        break
    assert [u.rsplit("/", 1)[1] for u in posted] == [str(p["id"])]
    assert options[0] == "another card…"
    # (as a set: a card played since the page drew the list has moved to the last group)
    assert sorted(options[1:]) == sorted(name for c, name, _ in state["cards"]
                                         if c not in offered)
    # by suit, the cards played or on the table last
    suits = {g for _, _, g in state["cards"]} - {GONE_GROUP}
    assert set(groups) - {GONE_GROUP} == suits and len(suits) >= 8
    assert GONE_GROUP not in groups[:-1]
    page.wait_for_selector(f'#pending [data-pending="{p["id"]}"]', state="detached")
    assert p["id"] not in [q["id"] for q in srv.get("/api/state")["game"]["pending"]]


def test_a_card_is_given_with_one_tap_on_the_decks_grid(server, page):
    """With art the reader does not know the card is rarely among the readings offered: the
    deck's cards are also buttons, a row a suit. The demo's deck is one the model knows, so
    the grid is closed until the player opens it, and then it stays open for the questions
    that follow."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    srv, posted = _confirm_page_of_the_demo(server, page)
    tried, opened = 0, False
    for state, p in _new_questions(srv):
        tried += 1
        item = f'#pending [data-pending="{p["id"]}"]'
        offered = {str(c["value"]) for c in p["choices"]}
        card, name, suit = next(row for row in state["cards"]
                                if row[0] not in offered and row[2] != GONE_GROUP)
        try:
            grid = page.locator(f"{item} details.deck-grid")
            grid.wait_for(timeout=5_000)
            could = [c for c in p["context"].get("could", []) if c not in offered]
            shown = grid.locator(".grid-could button").evaluate_all(
                "bs => bs.map(b => b.dataset.could)")
            assert shown == could  # the cards to look among first, as the referee said
            if could:  # named for the game: the ring's rules, or a hand seen at the table
                looks = "could lie here" if state["game"] == "kendra-kari" else "seen in this hand"
                assert grid.locator(".grid-could .grid-suit").inner_text() == looks
            if not opened:
                assert not grid.evaluate("d => d.open")  # closed until asked for
                page.click(f"{item} details.deck-grid summary", timeout=5_000)
                opened = True
            button = grid.locator(f'button[data-card="{card}"]')
            label = button.inner_text(timeout=5_000)
            row = button.locator("xpath=..").locator(".grid-suit").inner_text(timeout=5_000)
            assert posted == []
            button.click(timeout=5_000)
        except PlaywrightTimeout:  # the camera named the card itself meanwhile
            posted.clear()
            continue
        if tried > 1 or not posted:
            break
        posted.clear()  # answered: the next question's grid must be open already
    assert [u.rsplit("/", 1)[1] for u in posted] == [str(p["id"])]
    assert (label, row) == (name.split(" of ")[0], suit)
    assert grid.evaluate("d => d.open")
    page.wait_for_selector(item, state="detached")


def test_a_key_answers_the_first_question_with_that_choice(server, page):
    """At the table a key is quicker than a button: 1-9 give the first open question its
    first..ninth choice, but not while the player types or chooses from a list."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    _, posted = _confirm_page_of_the_demo(server, page)
    deadline = time.monotonic() + 240
    while True:
        assert time.monotonic() < deadline, "the demo asked nothing that stayed open"
        first = page.locator("#pending .pending-item").first
        try:
            first.wait_for(timeout=5_000)
            pid = first.get_attribute("data-pending")
            choices = first.locator("button[data-choice]")
            other = first.locator("select[data-other]")
            if choices.count() < 2 or not other.count():  # a which-card question, please
                time.sleep(0.3)
                continue
            second = choices.nth(1).get_attribute("data-choice")
            hint = first.locator(".keys").inner_text()
            other.focus()  # a key pressed while choosing from the list is not an answer
            page.keyboard.press("2")
            time.sleep(0.5)
            assert posted == []
            other.evaluate("s => s.blur()")
            with page.expect_request(lambda r, pid=pid: r.url.endswith(f"/api/pending/{pid}"),
                                     timeout=5_000) as req:
                page.keyboard.press("2")
        except PlaywrightTimeout:  # the camera named the card itself meanwhile
            posted.clear()
            continue
        break
    assert hint.startswith("Keys 1–")
    assert json.loads(req.value.post_data) == {"choice": json.loads(second)
                                               if second.isdigit() else second}
    assert len(posted) == 1  # once, however the question list is redrawn meanwhile
