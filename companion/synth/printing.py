"""Print-and-play: the deck and the table mat as PDFs (reportlab).

The deck: A4 pages of twelve 65 mm round cards at 300 dpi with cut circles, each page of
faces followed by its page of backs mirrored for long-edge duplex printing, after a cover
page listing the cards. The mat: vector drawing of ``calibration/mat.json`` (ArUco
markers at their exact millimetre positions) and the game's zones, either on one A2 page
or tiled over A4 pages with overlap and cut marks.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
from reportlab.lib.pagesizes import A2, A4, landscape
from reportlab.lib.units import mm
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen.canvas import Canvas

from companion.cards import Card, DeckKind, deck_cards, suits_of
from companion.layouts import Layout, Mat, load_layout, load_mat
from companion.synth.faces import STYLES, render_back, render_face, style_of
from companion.synth.table import aruco_bits, zone_style

DPI = 300
CARD_MM = 65.0
COLS, ROWS = 3, 4
GAP_X_MM, GAP_Y_MM = 2.5, 6.0
A4_MARGIN_MM = 10.0
TILE_OVERLAP_MM = 10.0

Progress = Callable[[int, int], None]


def card_px(diameter_mm: float = CARD_MM, dpi: int = DPI) -> int:
    return round(diameter_mm / 25.4 * dpi)


def _jpeg(bgra: np.ndarray) -> ImageReader:
    """The round card on white, as a JPEG the PDF embeds as is (keeps the file small)."""
    a = bgra[..., 3:4].astype(np.float32) / 255
    bgr = (bgra[..., :3] * a + 255 * (1 - a)).astype(np.uint8)
    _ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return ImageReader(io.BytesIO(buf.tobytes()))


def card_slots(page_w_mm: float = 210.0, page_h_mm: float = 297.0,
               mirrored: bool = False) -> list[tuple[float, float]]:
    """Centres (mm from the page's top-left) of the twelve card slots, row by row."""
    grid_w = COLS * CARD_MM + (COLS - 1) * GAP_X_MM
    grid_h = ROWS * CARD_MM + (ROWS - 1) * GAP_Y_MM
    x0 = (page_w_mm - grid_w) / 2 + CARD_MM / 2
    y0 = (page_h_mm - grid_h) / 2 + CARD_MM / 2 + 4
    out = []
    for r in range(ROWS):
        for c in range(COLS):
            col = COLS - 1 - c if mirrored else c
            out.append((x0 + col * (CARD_MM + GAP_X_MM), y0 + r * (CARD_MM + GAP_Y_MM)))
    return out


def _draw_card(cv: Canvas, img: ImageReader, x_mm: float, y_mm: float, page_h: float) -> None:
    r = CARD_MM / 2
    cv.drawImage(img, (x_mm - r) * mm, page_h - (y_mm + r) * mm, CARD_MM * mm, CARD_MM * mm)
    cv.setStrokeColorRGB(0.55, 0.55, 0.55)
    cv.setLineWidth(0.25)
    cv.setDash(2, 2)
    cv.circle(x_mm * mm, page_h - y_mm * mm, r * mm, stroke=1, fill=0)
    cv.setDash()


def write_deck_pdf(deck: DeckKind, style: int, out: Path, seed: int = 0,
                   progress: Progress | None = None, dpi: int = DPI) -> int:
    """Writes the deck; returns the number of pages."""
    st = style_of(style)
    cards = deck_cards(deck)
    _page_w, page_h = A4
    cv = Canvas(str(out), pagesize=A4, pageCompression=1)
    cv.setTitle(f"Ganjifa {deck.value} deck, style {style} ({st.name})")
    cv.setAuthor("ganjifa-companion")
    _cover(cv, deck, style, seed, dpi)
    cv.showPage()
    size = card_px(CARD_MM, dpi)
    back = _jpeg(render_back(style, seed, size))
    pages = 1
    for i, suit in enumerate(suits_of(deck)):
        suit_cards = [c for c in cards if c.suit is suit]
        _page_header(cv, f"{suit.title} ({suit.info.english}) - faces, page {pages + 1}")
        for card, (x, y) in zip(suit_cards, card_slots()):
            _draw_card(cv, _jpeg(render_face(card, style, seed, size)), x, y, page_h)
        cv.showPage()
        _page_header(cv, f"{suit.title} - backs (print double-sided, flip on the long edge)")
        for _, (x, y) in zip(suit_cards, card_slots(mirrored=True)):
            _draw_card(cv, back, x, y, page_h)
        cv.showPage()
        pages += 2
        if progress:
            progress(i + 1, len(suits_of(deck)))
    cv.save()
    return pages


def _page_header(cv: Canvas, text: str) -> None:
    cv.setFont("Helvetica", 8)
    cv.setFillColorRGB(0.3, 0.3, 0.3)
    cv.drawCentredString(A4[0] / 2, A4[1] - 8 * mm, text)


def _cover(cv: Canvas, deck: DeckKind, style: int, seed: int, dpi: int) -> None:
    _w, h = A4
    st = STYLES[style]
    cv.setFont("Helvetica-Bold", 20)
    cv.drawString(20 * mm, h - 30 * mm, f"Ganjifa - {deck.value.capitalize()} deck")
    cv.setFont("Helvetica", 11)
    lines = [
        (f"Art style {style} ({st.name}), seed {seed}. {len(deck_cards(deck))} round cards of "
        f"{CARD_MM:.0f} mm at {dpi} dpi."),
        "Print at 100 % (no 'fit to page'), double-sided, flipping on the long edge:",
        "each page of faces is followed by its page of backs. Cut along the dashed circles;",
        "glue onto card stock for a sturdier deck. Check the scale bar below: it must be 50 mm.",
    ]
    for i, line in enumerate(lines):
        cv.drawString(20 * mm, h - (42 + 6 * i) * mm, line)
    y = h - 72 * mm
    cv.setLineWidth(1)
    cv.line(20 * mm, y, 70 * mm, y)
    for x in (20, 70):
        cv.line(x * mm, y - 2 * mm, x * mm, y + 2 * mm)
    cv.drawString(73 * mm, y - 1.2 * mm, "50 mm")
    cv.setFont("Helvetica-Bold", 12)
    cv.drawString(20 * mm, h - 86 * mm, "Cards")
    cv.setFont("Helvetica", 9)
    y = h - 94 * mm
    for i, suit in enumerate(suits_of(deck)):
        info = suit.info
        names = ", ".join(Card(suit, r).rank.english for r in sorted({c.rank for c in deck_cards(
            deck) if c.suit is suit}))
        cv.drawString(20 * mm, y, f"Pages {2 + 2 * i}-{3 + 2 * i}: {suit.title} "
                                  f"({info.english}, {info.colour}, emblem: {info.symbol})")
        cv.drawString(28 * mm, y - 4.5 * mm, names)
        y -= 12 * mm


# -- the mat ---------------------------------------------------------------------------------


def _rgb(bgr: tuple[int, int, int]) -> tuple[float, float, float]:
    return bgr[2] / 255, bgr[1] / 255, bgr[0] / 255


def _draw_mat(cv: Canvas, mat: Mat, layout: Layout | None, ox: float, oy_top: float) -> None:
    """Draws the mat with its top-left corner at page point (ox, oy_top), y up (PDF)."""

    def pt(x_mm: float, y_mm: float) -> tuple[float, float]:
        return ox + x_mm * mm, oy_top - y_mm * mm

    w, h = mat.size_mm
    cv.setStrokeColorRGB(0.12, 0.12, 0.12)
    cv.setLineWidth(1.0 * mm / 2.83)
    x, y = pt(8, h - 8)
    cv.rect(x, y, (w - 16) * mm, (h - 16) * mm, stroke=1, fill=0)
    cv.setFillColorRGB(0, 0, 0)
    for m in mat.markers:
        bits = aruco_bits(mat.dictionary, m.id)
        n = bits.shape[0]
        (x0, y0), *_ = mat.marker_corners_mm(m)
        cell = mat.marker_size_mm / n
        for i in range(n):
            for j in range(n):
                if not bits[i, j]:
                    # Cells overlap a hair so that no white seams appear between them.
                    px, py = pt(x0 + j * cell, y0 + (i + 1) * cell)
                    cv.rect(px, py, cell * mm + 0.15, cell * mm + 0.15, stroke=0, fill=1)
        cv.setFont("Helvetica", 7)
        cv.setFillColorRGB(0.4, 0.4, 0.4)
        lx, ly = pt(x0, y0 + mat.marker_size_mm + 5)
        cv.drawString(lx, ly, f"marker {m.id}")
        cv.setFillColorRGB(0, 0, 0)
    if layout is None:
        return
    r = mat.card_diameter_mm / 2
    for z in layout.zones:
        colour, factor = zone_style(z.kind)
        cv.setStrokeColorRGB(*_rgb(colour))
        cv.setFillColorRGB(*_rgb(colour))
        cv.setLineWidth(0.8)
        cx, cy = pt(*z.center_mm)
        cv.circle(cx, cy, r * factor * mm, stroke=1, fill=0)
        cv.setFont("Helvetica", 9)
        cv.drawCentredString(cx, cy - (r * factor + 5) * mm, z.label)
    cv.setFillColorRGB(0.3, 0.3, 0.3)
    cv.setFont("Helvetica", 8)
    tx, ty = pt(w / 2, 17)
    cv.drawCentredString(tx, ty, f"Ganjifa companion mat - {layout.game}  ({w:.0f} x {h:.0f} mm; "
                                 "markers must stay uncovered)")


def tiles(mat: Mat) -> list[tuple[int, int, float, float, float, float]]:
    """A4 portrait tiles: (row, col, x0, y0, width, height) of the mat region in mm."""
    pw, ph = A4[0] / mm - 2 * A4_MARGIN_MM, A4[1] / mm - 2 * A4_MARGIN_MM
    step_x, step_y = pw - TILE_OVERLAP_MM, ph - TILE_OVERLAP_MM
    w, h = mat.size_mm
    cols = math.ceil((w - TILE_OVERLAP_MM) / step_x)
    rows = math.ceil((h - TILE_OVERLAP_MM) / step_y)
    return [(r, c, c * step_x, r * step_y, min(pw, w - c * step_x), min(ph, h - r * step_y))
            for r in range(rows) for c in range(cols)]


def write_mat_pdf(game: str | None, out: Path, paper: str = "a4") -> int:
    """Writes the mat for ``game`` (None: markers only); returns the number of pages."""
    mat = load_mat()
    layout = load_layout(game) if game else None
    if paper == "a2":
        size = landscape(A2)
        cv = Canvas(str(out), pagesize=size)
        cv.setTitle(f"Ganjifa companion mat ({game or 'markers only'}), A2")
        _draw_mat(cv, mat, layout, 0.0, size[1])
        cv.showPage()
        cv.save()
        return 1
    if paper != "a4":
        raise ValueError(f"paper must be 'a4' or 'a2', got {paper!r}")
    cv = Canvas(str(out), pagesize=A4)
    cv.setTitle(f"Ganjifa companion mat ({game or 'markers only'}), tiled on A4")
    parts = tiles(mat)
    rows = 1 + max(p[0] for p in parts)
    cols = 1 + max(p[1] for p in parts)
    for r, c, x0, y0, tw, th in parts:
        left, top = A4_MARGIN_MM * mm, A4[1] - A4_MARGIN_MM * mm
        cv.saveState()
        path = cv.beginPath()
        path.rect(left, top - th * mm, tw * mm, th * mm)
        cv.clipPath(path, stroke=0, fill=0)
        _draw_mat(cv, mat, layout, left - x0 * mm, top + y0 * mm)
        cv.restoreState()
        _tile_marks(cv, left, top, tw, th, r, c, rows, cols, x0, y0)
        cv.showPage()
    cv.save()
    return len(parts)


def _tile_marks(cv: Canvas, left, top, tw, th, r, c, rows, cols, x0, y0) -> None:
    cv.setStrokeColorRGB(0.5, 0.5, 0.5)
    cv.setLineWidth(0.3)
    for x, y in ((left, top), (left + tw * mm, top), (left, top - th * mm),
                 (left + tw * mm, top - th * mm)):
        cv.line(x - 4 * mm, y, x + 4 * mm, y)
        cv.line(x, y - 4 * mm, x, y + 4 * mm)
    cv.setDash(1, 2)
    if c + 1 < cols:  # the next tile to the right starts here: glue it over this strip
        x = left + (tw - TILE_OVERLAP_MM) * mm
        cv.line(x, top, x, top - th * mm)
    if r + 1 < rows:
        y = top - (th - TILE_OVERLAP_MM) * mm
        cv.line(left, y, left + tw * mm, y)
    cv.setDash()
    cv.setFont("Helvetica", 7)
    cv.setFillColorRGB(0.35, 0.35, 0.35)
    cv.drawString(left, 4 * mm, f"Tile row {r + 1}/{rows}, column {c + 1}/{cols}: mat "
                                f"x {x0:.0f}-{x0 + tw:.0f} mm, y {y0:.0f}-{y0 + th:.0f} mm. "
                                "Print at 100 %. Overlap the next tile on the dotted line.")
