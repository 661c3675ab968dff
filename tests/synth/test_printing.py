"""The printable PDFs, rasterised: markers where mat.json says, the right cards on pages."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.cards import DeckKind, deck_cards, suits_of
from companion.cli import main
from companion.layouts import available_layouts, load_mat
from companion.synth.faces import render_back, render_face
from companion.synth.printing import (
    A4_MARGIN_MM,
    card_px,
    card_slots,
    tiles,
    write_deck_pdf,
    write_mat_pdf,
)

pdfium = pytest.importorskip("pypdfium2", reason="pypdfium2 (dev extra) rasterises the PDFs")

PX_PER_MM = 4.0


def _pages(path, px_per_mm=PX_PER_MM):
    pdf = pdfium.PdfDocument(str(path))
    scale = px_per_mm * 25.4 / 72
    return [pdf[i].render(scale=scale).to_numpy()[..., :3].copy() for i in range(len(pdf))]


def _detect(img):
    mat = load_mat()
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, mat.dictionary))
    corners, ids, _ = cv2.aruco.ArucoDetector(d, cv2.aruco.DetectorParameters()).detectMarkers(
        cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)}


def _check_markers(found, offset_px=(0.0, 0.0)):
    mat = load_mat()
    assert sorted(found) == [m.id for m in mat.markers]
    for m in mat.markers:
        want = np.array(mat.marker_corners_mm(m)) * PX_PER_MM + offset_px
        # aruco reports corners at pixel centres of the edge: within a pixel of the truth.
        assert np.abs(found[m.id] - want).max() < 1.5, (m.id, found[m.id], want)


def test_a2_mat_has_the_markers_at_their_millimetre_positions(tmp_path):
    out = tmp_path / "mat.pdf"
    assert main(["print-mat", "--game", "kendra-kari", "--paper", "a2", "--out", str(out)]) == 0
    (page,) = _pages(out)
    mat = load_mat()
    assert abs(page.shape[0] - mat.size_mm[1] * PX_PER_MM) <= 1  # the A2 page is the mat
    assert abs(page.shape[1] - mat.size_mm[0] * PX_PER_MM) <= 1
    _check_markers(_detect(page))


def test_a4_tiles_reassemble_into_the_mat(tmp_path):
    out = tmp_path / "mat.pdf"
    mat = load_mat()
    pages = write_mat_pdf("ganjifa", out, "a4")
    rendered = _pages(out)
    assert pages == len(rendered) == len(tiles(mat))
    w, h = (round(v * PX_PER_MM) for v in mat.size_mm)
    canvas = np.full((h, w, 3), 255, np.uint8)
    m = round(A4_MARGIN_MM * PX_PER_MM)
    for (r, c, x0, y0, tw, th), page in zip(tiles(mat), rendered):
        x, y = round(x0 * PX_PER_MM), round(y0 * PX_PER_MM)
        pw, ph = min(round(tw * PX_PER_MM), w - x), min(round(th * PX_PER_MM), h - y)
        canvas[y:y + ph, x:x + pw] = np.minimum(canvas[y:y + ph, x:x + pw],
                                                page[m:m + ph, m:m + pw])
    _check_markers(_detect(canvas))


@pytest.mark.parametrize("game", available_layouts())
def test_every_layout_prints(tmp_path, game):
    out = tmp_path / f"{game}.pdf"
    assert write_mat_pdf(game, out, "a2") == 1
    assert out.read_bytes().startswith(b"%PDF")


def test_deck_pdf_has_a_cover_then_faces_and_mirrored_backs(tmp_path):
    out = tmp_path / "deck.pdf"
    dpi = 75  # the layout is the same at any dpi; 300 dpi is the default (768 px cards)
    assert card_px() == 768
    pages = write_deck_pdf(DeckKind.DASHAVATARA, 2, out, seed=0, dpi=dpi)
    suits = suits_of(DeckKind.DASHAVATARA)
    assert pages == 1 + 2 * len(suits)
    rendered = _pages(out, px_per_mm=dpi / 25.4)
    assert len(rendered) == pages
    size = card_px(65.0, dpi)
    first_suit = [c for c in deck_cards(DeckKind.DASHAVATARA) if c.suit is suits[0]]
    back = render_back(2, 0, size)[..., :3].astype(np.int16)

    def crops(page, xy):  # the slot, and shifted by a pixel: cards sit at sub-pixel spots
        x, y = (round(v * dpi / 25.4 - size / 2) for v in xy)
        return [page[y + dy:y + dy + size, x + dx:x + dx + size].astype(np.int16)
                for dx in (-1, 0, 1) for dy in (-1, 0, 1)]

    def diff(a, b):
        # Inside the disc only (the cut circle is drawn on the rim), after a blur that
        # forgives JPEG and the rasteriser's resampling but not a different card.
        yy, xx = np.mgrid[0:size, 0:size]
        inside = np.hypot(xx - size / 2, yy - size / 2) < size * 0.42
        a, b = (cv2.GaussianBlur(v.astype(np.float32), (0, 0), 2.0) for v in (a, b))
        return np.abs(a - b)[inside].mean()

    faces_page, backs_page = rendered[1], rendered[2]
    for card, xy in zip(first_suit, card_slots()):
        want = render_face(card, 2, 0, size)[..., :3].astype(np.int16)
        other = render_face(first_suit[(first_suit.index(card) + 1) % 12], 2, 0, size)
        same = min(diff(c, want) for c in crops(faces_page, xy))
        different = min(diff(c, other[..., :3].astype(np.int16)) for c in crops(faces_page, xy))
        assert same < 6 and different > 1.5 * same, (card, same, different)
    for xy in card_slots(mirrored=True):
        assert min(diff(c, back) for c in crops(backs_page, xy)) < 6
    assert rendered[0].mean() > 200  # the cover is mostly text on white


def test_backs_mirror_the_faces_for_long_edge_duplex():
    fronts, backs = card_slots(), card_slots(mirrored=True)
    for (fx, fy), (bx, by) in zip(fronts, backs):
        assert fy == by and abs((fx + bx) - 210.0) < 1e-6


def test_bad_print_arguments_are_refused(tmp_path, capsys):
    assert main(["print-deck", "--deck", "tarot", "--out", str(tmp_path / "d.pdf")]) == 2
    assert "unknown deck" in capsys.readouterr().err
    assert main(["print-mat", "--game", "chess", "--out", str(tmp_path / "m.pdf")]) == 2
    assert "no zone layout" in capsys.readouterr().err
    assert main(["print-mat", "--game", "komi", "--out", str(tmp_path / "m.png")]) == 2
    assert "must end in .pdf" in capsys.readouterr().err
