"""Card faces: every card renders in every style, deterministically, and styles differ."""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
import pytest

from companion.cards import Card, DeckKind, Rank, Suit, deck_cards
from companion.synth import faces
from companion.synth.emblems import EMBLEMS
from companion.synth.faces import N_STYLES, StyleError, render_back, render_face
from companion.synth.pips import pip_layout

ALL_CARDS = deck_cards(DeckKind.MUGHAL) + deck_cards(DeckKind.DASHAVATARA)


def _digest(img: np.ndarray) -> str:
    return hashlib.sha256(img.tobytes()).hexdigest()


def test_there_are_at_least_six_styles_and_an_emblem_per_suit():
    assert N_STYLES >= 6
    assert set(EMBLEMS) == set(Suit)
    assert len(ALL_CARDS) == 216


@pytest.mark.parametrize("style", range(N_STYLES))
def test_every_face_renders_round_on_transparent_and_all_differ(style):
    digests = set()
    for card in ALL_CARDS:
        img = render_face(card, style, 0, 40)
        assert img.shape == (40, 40, 4) and img.dtype == np.uint8
        assert img[0, 0, 3] == 0 and img[-1, -1, 3] == 0  # corners outside the disc
        assert img[20, 20, 3] == 255
        digests.add(_digest(img))
    assert len(digests) == len(ALL_CARDS)
    back = render_back(style, 0, 40)
    assert back.shape == (40, 40, 4) and _digest(back) not in digests


def test_rendering_is_deterministic_without_the_cache():
    card = Card(Suit.KALKI, Rank.RAJA)
    first = [render_face(card, s, 7, 96) for s in range(N_STYLES)]
    faces._render_face.cache_clear()
    faces._render_back.cache_clear()
    again = [render_face(card, s, 7, 96) for s in range(N_STYLES)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert np.array_equal(render_back(3, 1, 64), render_face(None, 3, 1, 64))


def test_styles_look_different_from_each_other():
    for card in (Card(Suit.SURYA, Rank.FIVE), Card(Suit.MATSYA, Rank.VIZIER)):
        imgs = [render_face(card, s, 0, 64)[..., :3].astype(np.int16) for s in range(N_STYLES)]
        for a, b in itertools.combinations(range(N_STYLES), 2):
            diff = np.abs(imgs[a] - imgs[b]).mean()
            assert diff > 8, f"styles {a} and {b} look alike for {card} ({diff:.1f})"


def test_seed_varies_a_face_only_a_little():
    card = Card(Suit.PHUL, Rank.SEVEN)
    a, b = (render_face(card, 1, s, 64)[..., :3].astype(np.int16) for s in (0, 1))
    other = render_face(card, 4, 0, 64)[..., :3].astype(np.int16)
    assert not np.array_equal(a, b)
    assert np.abs(a - b).mean() < np.abs(a - other).mean()


def test_faces_render_at_any_size():
    for size in (16, 33, 180, 768):
        assert render_face(Card(Suit.RAMA, Rank.TEN), 2, 0, size).shape == (size, size, 4)


def test_disc_colour_follows_the_suit_colour_family():
    # The average hue of the disc should be nearest the suit's own colour among its deck.
    import cv2
    for deck in DeckKind:
        suits = [s for s in Suit if s.deck is deck and s.info.colour not in ("black", "white")]
        for suit in suits:
            img = render_face(Card(suit, Rank.ONE), 0, 0, 64)
            ring = img[5:10, 28:36, :3].reshape(-1, 3).mean(0)  # inside the border, top
            hue = cv2.cvtColor(np.uint8([[ring]]), cv2.COLOR_BGR2HSV)[0, 0, 0] * 2.0
            r, g, b = suit.info.rgb
            want = cv2.cvtColor(np.uint8([[[b, g, r]]]), cv2.COLOR_BGR2HSV)[0, 0, 0] * 2.0
            assert min(abs(hue - want), 360 - abs(hue - want)) < 40, suit


@pytest.mark.parametrize("kind", ["traditional", "grid", "ring", "scatter"])
def test_pip_layouts_have_n_pips_inside_the_disc_without_heavy_overlap(kind):
    rng = np.random.default_rng(0)
    for n in range(1, 11):
        pips = pip_layout(n, kind, rng)
        assert len(pips) == n
        for x, y, r, _ in pips:
            assert np.hypot(x, y) + r <= 1.0
        for (x0, y0, r0, _), (x1, y1, r1, _) in itertools.combinations(pips, 2):
            assert np.hypot(x0 - x1, y0 - y1) > 1.5 * max(r0, r1)


def test_bad_arguments_are_refused_clearly():
    with pytest.raises(StyleError, match="style must be"):
        render_face(ALL_CARDS[0], N_STYLES, 0, 64)
    with pytest.raises(StyleError, match="size_px"):
        render_face(ALL_CARDS[0], 0, 0, 4)
