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

