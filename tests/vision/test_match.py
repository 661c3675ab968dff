"""Matching a crop against a deck profile's templates (companion.vision.match)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.cards import Card, DeckKind, deck_cards
from companion.synth.faces import render_face
from companion.vision.match import recentre


@pytest.mark.parametrize("box", [(20, 50, 30, 70), (2, 94, 2, 94)],
                         ids=["a numeral's box", "the whole disc"])
def test_local_matches_agree_with_opencvs_normalised_correlation(box):
    """A whole-disc box (a deck whose number cards differ by pips everywhere) searches an
    area clipped at the crop's edge, where the largest scale no longer fits."""
    from companion.vision.match import LOCAL_SCALES, local_matches, region_patches
    rng = np.random.default_rng(4)
    aligned = cv2.GaussianBlur(rng.random((96, 96)).astype(np.float32), (5, 5), 1.5)
    templates = np.stack([np.roll(aligned, (dy, dx), axis=(0, 1))
                          for dy, dx in ((0, 0), (2, -3), (9, 9))]).astype(np.float32)
    templates[2] = cv2.GaussianBlur(rng.random((96, 96)).astype(np.float32), (5, 5), 1.5)
    y0, y1, x0, x1 = box
    area = aligned[max(0, y0 - 5):y1 + 5, max(0, x0 - 5):x1 + 5]
    expected = []
    for t in templates:
        patch = t[y0:y1, x0:x1]
        scaled = [cv2.resize(patch, None, fx=s, fy=s) if s != 1.0 else patch
                  for s in LOCAL_SCALES]
        expected.append(max(float(cv2.matchTemplate(area, p, cv2.TM_CCOEFF_NORMED).max())
                            for p in scaled if p.shape[0] <= area.shape[0]))
    got = local_matches(aligned, region_patches(templates, box), box)
    assert got == pytest.approx(expected, abs=1e-4)
    # the shifted copy wraps round the border, inside a whole-disc box
    small = box[1] - box[0] < 60
    assert got[0] == pytest.approx(1.0, abs=1e-4) and got[1] > (0.99 if small else 0.8)
    assert got[2] < 0.5


def test_recentre_puts_an_off_centre_card_back_in_the_middle():
    face = cv2.resize(render_face(Card.parse("surya-7"), 0, 0, 112), (96, 96), interpolation=cv2.INTER_AREA)
    alpha = face[:, :, 3:] / 255.0
    centred = (face[:, :, :3] * alpha + 90 * (1 - alpha)).astype(np.uint8)
    shifted = cv2.warpAffine(centred, np.float32([[1, 0, 5], [0, 1, -4]]), (96, 96),
                             borderMode=cv2.BORDER_REPLICATE)
    err = np.abs(recentre(shifted).astype(int) - centred.astype(int))[16:80, 16:80].mean()
    assert err < 0.4 * np.abs(shifted.astype(int) - centred.astype(int))[16:80, 16:80].mean()
    blank = np.full((96, 96, 3), 120, np.uint8)
    assert np.array_equal(recentre(blank), blank)


def test_a_whole_disc_region_is_matched_at_half_resolution_and_still_counts_pips():
    """Our own art's number cards differ by pips all over the disc: their region is
    matched at half resolution, and each card still matches itself best."""
    from companion.vision.enroll import card_crop
    from companion.vision.match import Region, grey, local_matches, region_patches, rotated
    suit = deck_cards(DeckKind.MUGHAL)[:10]  # one suit's number cards
    greys = np.stack([grey(card_crop(render_face(c, 3, 5, 112))) for c in suit])
    whole = Region.of(greys, (2, 94, 2, 94))
    assert whole.step == 2 and whole.box == (1, 47, 1, 47)
    for k in range(len(greys)):  # as the detector cuts it: a little off centre, softer
        seen = cv2.GaussianBlur(rotated(greys[k], 0.0, (1.5, -2.0), 1.02), (0, 0), 0.8)
        assert int(np.argmax(whole.matches(seen))) == k
    box = (20, 50, 30, 70)
    numeral = Region.of(greys, box)
    assert numeral.step == 1
    assert np.array_equal(numeral.matches(greys[4]),
                          local_matches(greys[4], region_patches(greys, box), box))



def _figure_on(ground: tuple[int, int, int]) -> np.ndarray:
    """A 96 px card: one figure (three colours, off centre) on a flat ``ground``."""
    img = np.zeros((96, 96, 3), np.uint8)
    img[:] = ground
    cv2.circle(img, (40, 44), 22, (40, 90, 150), -1)
    cv2.rectangle(img, (50, 30), (70, 72), (220, 225, 230), -1)
    cv2.line(img, (20, 70), (60, 20), (20, 20, 20), 4)
    return img


def test_channel_correlations_ignore_the_lights_colour_but_not_a_grounds():
    """A white balance (a gain per channel) and a tone curve leave the court whose ground
    it was; the same figure on another ground, which the gains nearly turn it into, is
    matched worse (the PySolFC Surya and Chandra viziers: grey-green and grey grounds)."""
    from companion.vision.match import channel_correlations, channel_ranks
    green, grey_ = _figure_on((115, 132, 121)), _figure_on((89, 89, 89))
    gains = np.float32([89 / 115, 89 / 132, 89 / 121])  # the camera's, under a pink light
    cast = (255 * (green * gains / 255) ** 0.7 + 0.5).astype(np.uint8)
    ground = cast[2, 48].astype(int)
    assert ground.max() - ground.min() <= 1  # the grey-green ground looks grey
    r = channel_correlations(cast, channel_ranks(np.stack([green, grey_])))
    assert r[0] == pytest.approx(1.0, abs=0.01) and r[0] - r[1] > 0.1  # 0.22
    # the colours as seen (the suit's colour signature) take it for the grey one
    from companion.vision.cues import colour_signature, signature_distance
    seen = colour_signature(cast)
    assert (signature_distance(seen, colour_signature(grey_))
            < signature_distance(seen, colour_signature(green)))
    # Pearson's correlation of the values themselves, not of their ranks, is bent by the
    # tone curve: the ranks are what keep the right court at 1
    a, b = cast.reshape(-1, 3).astype(float), green.reshape(-1, 3).astype(float)
    assert min(np.corrcoef(a[:, c], b[:, c])[0, 1] for c in range(3)) < 0.995


def test_a_colour_crop_is_turned_as_its_grey_would_be():
    from companion.vision.match import align_colour, grey, rotated
    card = _figure_on((60, 160, 200))
    crop = rotated(card, 70.0, (2.0, -1.0))
    turned = align_colour(crop, grey(card))
    inside = np.hypot(*(np.mgrid[0:96, 0:96] - 47.5)) <= 36
    assert np.abs(turned[inside].astype(int) - card[inside]).mean() < 12
