"""Zones in the players' words (``Layout.place``): questions and notes name a spot by
where it lies at the table, never by its id."""

from __future__ import annotations

import re

import pytest

from companion.layouts import available_layouts, load_layout


@pytest.mark.parametrize("game, zone, words", [
    ("ganjifa", "play0", "Player 1's play spot"),
    ("ganjifa", "deni2", "Player 3's Deni spot"),
    ("ganjifa", "won3", "Player 4's won pile"),
    ("kendra-kari", "pos7", "Position 7"),
    ("kendra-kari", "stock", "the stock"),
    ("shakti", "pile1", "Player 2's discard pile"),
    ("udvasa", "build0", "build pile B1"),
])
def test_a_zone_is_named_as_the_players_see_it(game, zone, words):
    assert load_layout(game).place(zone) == words


def test_every_zone_of_every_layout_has_words_of_its_own():
    for game in available_layouts():
        layout = load_layout(game)
        places = [layout.place(z.id) for z in layout.zones]
        assert len(set(places)) == len(places), game  # no two spots sound alike
        # no id such as "play0" or "pos1" shows through
        assert not any(re.search(r"[a-z]\d", p) for p in places), game


def test_no_zone_is_the_table():
    assert load_layout("ganjifa").place(None) == "the table"


@pytest.mark.parametrize("game", ["komi", "nakash", "sama"])
def test_a_hand_spot_reaches_the_outer_cards_of_a_hand_laid_side_by_side(game):
    """Three cards 40 mm apart, the outer one a little further out as hands lay them, lie
    on the hand spot (a Sama film: the face-up card 50 mm out was on no zone, never
    reported); a card as far from a spot without a reach lies on none."""
    layout, tracker_radius = load_layout(game), 45.0
    hand = layout.zone("hand3")
    x, y = hand.center_mm
    assert layout.zone_at(x + 50, y, tracker_radius) == hand
    assert layout.zone_at(x, y - 100, tracker_radius) is None  # (off the mat)
    stock = layout.zone("stock")
    assert stock.reach_mm is None
    sx, sy = stock.center_mm
    assert layout.zone_at(sx + 50, sy, tracker_radius) is None
    # between a spot and the stock, the nearer centre wins
    assert layout.zone_at(x, y + 0.4 * (sy - y), tracker_radius) == hand
    assert layout.zone_at(x, y + 0.7 * (sy - y), tracker_radius) == stock
