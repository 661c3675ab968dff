"""Procedural round card faces in several art styles, deterministic from (card, style, seed).

A face is a disc in the suit's colour family with a border, the suit emblem as pips on
number cards (1..10) and a figure on the court cards (the vizier rides, the raja sits on a
throne). Styles differ the way real decks do: palette, emblem stroke and fill, pip
arrangement, border pattern, lacquer sheen, wear and whether an index numeral is printed.
The seed only jitters a style (hue, scatter, wear marks), so it is the same deck style.

Everything is drawn at twice the size with OpenCV's anti-aliased primitives and then
reduced with area averaging; there is no clock or global state, so a face is
byte-identical for the same arguments.
"""

from __future__ import annotations

import colorsys
import zlib
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from companion.cards import Card, Rank
from companion.synth.emblems import draw_emblem
from companion.synth.figures import draw_rider, draw_throne
from companion.synth.pen import Colour, Ink, Pen, circle_pts
from companion.synth.pips import pip_layout

_SUPERSAMPLE = 2
_CACHE_MAX_PX = 384  # print-size faces are drawn once each; caching them costs memory


@dataclass(frozen=True)
class Style:
    name: str
    bg_light: float  # lightness of the disc in the suit's hue (0 dark .. 1 white)
    bg_sat: float  # saturation multiplier of the suit colour for the disc
    emblem: str  # "cream" | "suit-dark" | "white" | "gold" | "suit-bright"
    outline: float  # emblem outline width (unit coords of a pip); 0 = none
    hollow: bool  # emblems drawn as outlines only
    pips: str  # "traditional" | "grid" | "ring" | "scatter"
    border: str  # "double" | "band" | "beads" | "zigzag" | "stripes" | "petals"
    sheen: float  # strength of the lacquer highlight 0..1
    wear: float  # 0 crisp .. 1 heavily worn
    numeral: str  # "" none | "top" | "bottom" | "corners"
    back: tuple[Colour, Colour]  # BGR colours of the back's field and pattern


STYLES: tuple[Style, ...] = (
    Style("lacquer", 0.32, 1.0, "cream", 0.06, False, "traditional", "double", 0.8, 0.15, "",
          ((30, 30, 120), (90, 190, 220))),
    Style("pale-print", 0.82, 0.7, "suit-dark", 0.0, False, "grid", "band", 0.0, 0.0, "top",
          ((120, 80, 30), (230, 230, 240))),
    Style("ink-outline", 0.9, 0.35, "suit-dark", 0.08, True, "ring", "beads", 0.2, 0.35,
          "corners", ((40, 60, 40), (200, 220, 200))),
    Style("antique", 0.4, 0.55, "cream", 0.05, False, "scatter", "zigzag", 0.4, 0.85, "",
          ((40, 70, 100), (150, 190, 210))),
    Style("bright", 0.5, 1.25, "white", 0.1, False, "traditional", "stripes", 0.5, 0.05,
          "bottom", ((20, 20, 20), (40, 200, 240))),
    Style("night-court", 0.16, 0.9, "gold", 0.04, False, "ring", "beads", 0.9, 0.25, "",
          ((60, 20, 50), (60, 170, 210))),
    Style("ivory", 0.88, 0.2, "suit-bright", 0.06, False, "traditional", "petals", 0.3, 0.5,
          "top", ((30, 90, 150), (210, 235, 245))),
    Style("folk", 0.62, 1.1, "suit-dark", 0.0, False, "grid", "zigzag", 0.15, 0.6, "",
          ((90, 40, 120), (160, 220, 240))),
)
N_STYLES = len(STYLES)


class StyleError(ValueError):
    pass


def style_of(style: int) -> Style:
    if not isinstance(style, (int, np.integer)) or not 0 <= style < N_STYLES:
        raise StyleError(f"style must be an integer 0..{N_STYLES - 1}, got {style!r}")
    return STYLES[int(style)]


def _rng(*parts) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32("|".join(map(str, parts)).encode()))


def _hls_bgr(h: float, light: float, sat: float) -> Colour:
    r, g, b = colorsys.hls_to_rgb(h % 1.0, min(max(light, 0.0), 1.0), min(max(sat, 0.0), 1.0))
    return (round(b * 255), round(g * 255), round(r * 255))


@dataclass(frozen=True)
class Palette:
    disc: Colour
    border: Colour
    border_detail: Colour
    emblem: Ink
    figure: Ink
    numeral: Colour


def palette(card: Card, st: Style, rng: np.random.Generator) -> Palette:
    r, g, b = (c / 255 for c in card.suit.info.rgb)
    h, light, sat = colorsys.rgb_to_hls(r, g, b)
    h += rng.uniform(-0.02, 0.02)
    achromatic = sat < 0.15 or light < 0.18 or light > 0.8
    # Black and white suits keep their lightness; coloured suits take the style's.
    if achromatic:
        disc_l = 0.12 + 0.1 * st.bg_light if light < 0.5 else 0.9 - 0.05 * (1 - st.bg_light)
        disc_s = 0.05
    else:
        disc_l, disc_s = st.bg_light, sat * st.bg_sat
    disc_l += rng.uniform(-0.04, 0.04)
    disc = _hls_bgr(h, disc_l, disc_s)
    light_disc = disc_l > 0.55
    suit_dark = _hls_bgr(h, 0.22 if not achromatic or light < 0.5 else 0.45, min(1, sat * 1.2))
    suit_bright = _hls_bgr(h, 0.45 if not achromatic else (0.15 if light < 0.5 else 0.55),
                           min(1.0, sat * 1.3 + 0.1))
    cream, ink = (200, 235, 245), (25, 25, 30)
    fills = {"cream": cream, "white": (250, 250, 250), "gold": (60, 180, 225),
             "suit-dark": suit_dark, "suit-bright": suit_bright}
    fill = fills[st.emblem]
    if st.emblem in ("cream", "white", "gold") and light_disc:
        fill = suit_dark  # a light emblem would vanish on a light disc
    elif st.emblem.startswith("suit") and not light_disc:
        fill = cream  # likewise a dark emblem on a dark disc
    line = ink if st.emblem != "gold" else (40, 90, 120)
    detail = ink if fill != ink else cream
    if st.hollow:
        emblem = Ink(None, fill, max(st.outline, 0.06), fill)
    else:
        emblem = Ink(fill, line, st.outline, detail if st.outline == 0 else line)
    figure = Ink(fill, line, max(st.outline, 0.03), suit_bright if light_disc else suit_dark)
    border = suit_dark if light_disc else _hls_bgr(h, 0.7, 0.5 if not achromatic else 0.0)
    border_detail = (60, 180, 225) if not light_disc else cream
    b, g, r = disc
    bright_disc = 0.114 * b + 0.587 * g + 0.299 * r > 140  # luma: yellow is bright too
    return Palette(disc, border, border_detail, emblem, figure, ink if bright_disc else cream)


def _draw_border(img: np.ndarray, pen: Pen, st: Style, pal: Palette,
                 rng: np.random.Generator) -> float:
    """Draws the border ring; returns the radius (unit) left for the inside."""
    kind = st.border
    band = Pen(img, pen.cx, pen.cy, pen.scale, Ink(pal.border, pal.border, 0, pal.border_detail))
    band.poly(circle_pts(0, 0, 1.0, 96))
    band.with_ink(Ink(pal.disc, pal.disc, 0, pal.disc)).poly(circle_pts(0, 0, 0.86, 96))
    d = pal.border_detail
    if kind == "double":
        band.stroke(circle_pts(0, 0, 0.965, 96), 0.015, d, closed=True)
        band.stroke(circle_pts(0, 0, 0.885, 96), 0.015, d, closed=True)
    elif kind == "beads":
        n = 36
        for a in np.linspace(0, 2 * np.pi, n, endpoint=False) + rng.uniform(0, 0.05):
            band.dot(0.93 * np.cos(a), 0.93 * np.sin(a), 0.028, d)
    elif kind == "zigzag":
        a = np.linspace(0, 2 * np.pi, 65)
        r = np.where(np.arange(65) % 2 == 0, 0.97, 0.89)
        band.stroke(np.stack([r * np.cos(a), r * np.sin(a)], 1), 0.018, d)
    elif kind == "stripes":
        for a in np.linspace(0, 2 * np.pi, 48, endpoint=False):
            band.stroke([(0.87 * np.cos(a), 0.87 * np.sin(a)),
                         (0.99 * np.cos(a + 0.06), 0.99 * np.sin(a + 0.06))], 0.025, d)
    elif kind == "petals":
        for a in np.degrees(np.linspace(0, 2 * np.pi, 24, endpoint=False)):
            t = np.radians(a)
            band.with_ink(Ink(d, d, 0, d)).ellipse(0.93 * np.cos(t), 0.93 * np.sin(t),
                                                   0.05, 0.025, a)
    band.stroke(circle_pts(0, 0, 0.86, 96), 0.012, pal.emblem.line, closed=True)
    return 0.84


def _draw_numeral(img: np.ndarray, cx: float, cy: float, r_px: float, card: Card, st: Style,
                  colour: Colour) -> None:
    text = str(int(card.rank)) if not card.rank.is_face else card.rank.english[0]
    spots = {"top": [(0.0, -0.66, 0.55)], "bottom": [(0.0, 0.68, 0.6)],
             "corners": [(-0.5, -0.5, 0.45), (0.5, 0.5, 0.45)]}[st.numeral]
    font = cv2.FONT_HERSHEY_DUPLEX
    for x, y, size in spots:
        scale = size * r_px / 100
        th = max(1, round(scale * 2))
        (w, h), _ = cv2.getTextSize(text, font, scale, th)
        org = (round(cx + x * r_px - w / 2), round(cy + y * r_px + h / 2))
        cv2.putText(img, text, org, font, scale, colour, th, cv2.LINE_AA)


def _sheen(img: np.ndarray, mask: np.ndarray, strength: float, rng) -> np.ndarray:
    """Lacquer: a soft diagonal highlight and a slight darkening towards the rim."""
    n = img.shape[0]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    a = rng.uniform(0.6, 1.0) * np.pi
    d = xx * np.cos(a) + yy * np.sin(a) - rng.uniform(-0.15, 0.05)
    highlight = np.exp(-(d / 0.12) ** 2) * strength * 0.3
    rim = 1.0 - 0.35 * strength * np.clip((np.hypot(xx, yy) / 0.5) ** 4, 0, 1)
    out = img.astype(np.float32) * rim[..., None] + 255 * highlight[..., None]
    return out


def _wear(img: np.ndarray, wear: float, rng: np.random.Generator) -> np.ndarray:
    """Age: grain, faded patches, scratches and chips at the rim, all from ``rng``."""
    n = img.shape[0]
    out = img.astype(np.float32)
    if wear <= 0:
        return out
    small = rng.normal(0, 1, (max(4, n // 16), max(4, n // 16))).astype(np.float32)
    blotch = cv2.resize(small, (n, n), interpolation=cv2.INTER_CUBIC)
    out = out * (1 - 0.08 * wear * blotch[..., None]) + 18 * wear * np.clip(blotch, 0, None)[
        ..., None]
    out += rng.normal(0, 7 * wear, (n, n, 1)).astype(np.float32)
    paper = np.array([150, 190, 205], np.float32)
    for _ in range(int(wear * 10)):
        p0 = rng.uniform(0.15, 0.85, 2) * n
        p1 = p0 + rng.normal(0, 0.15, 2) * n
        cv2.line(out, tuple(int(v) for v in p0), tuple(int(v) for v in p1),
                 tuple(float(v) for v in paper * 0.9 + 25), max(1, n // 300), cv2.LINE_AA)
    for _ in range(int(wear * 14)):
        a = rng.uniform(0, 2 * np.pi)
        r = n * 0.49
        c = (int(n / 2 + r * np.cos(a)), int(n / 2 + r * np.sin(a)))
        cv2.circle(out, c, max(1, int(rng.uniform(0.006, 0.02) * n)),
                   tuple(float(v) for v in paper), -1, cv2.LINE_AA)
    return out


def _finish(canvas: np.ndarray, size_px: int, alpha_hi: np.ndarray) -> np.ndarray:
    bgr = cv2.resize(np.clip(canvas, 0, 255).astype(np.uint8), (size_px, size_px),
                     interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha_hi, (size_px, size_px), interpolation=cv2.INTER_AREA)
    return np.dstack([bgr, alpha])


def _canvas(size_px: int) -> tuple[np.ndarray, np.ndarray, Pen]:
    n = size_px * _SUPERSAMPLE
    img = np.zeros((n, n, 3), np.uint8)
    alpha = np.zeros((n, n), np.uint8)
    # Centred on (n-1)/2 so that after the 2x reduction the disc sits at (size-1)/2,
    # filling the square: scenes map the face's pixel grid onto a 65 mm disc.
    c = (n - 1) / 2
    cv2.circle(alpha, (round(c * 16), round(c * 16)), round((n / 2 - 0.25) * 16), 255, -1,
               cv2.LINE_AA, 4)
    return img, alpha, Pen(img, c, c, n / 2 - 0.5, Ink(None, (0, 0, 0), 0, (0, 0, 0)))


def _check_size(size_px: int) -> None:
    if not isinstance(size_px, (int, np.integer)) or not 16 <= size_px <= 4096:
        raise StyleError(f"size_px must be an integer 16..4096, got {size_px!r}")


def render_face(card: Card | None, style: int, seed: int, size_px: int) -> np.ndarray:
    """The card (or the back when ``card`` is None) as BGRA uint8, round on transparent."""
    if card is None:
        return render_back(style, seed, size_px)
    if isinstance(size_px, (int, np.integer)) and size_px > _CACHE_MAX_PX:
        return _render_face.__wrapped__(card, int(style), int(seed), int(size_px)).copy()
    return _render_face(card, int(style), int(seed), int(size_px)).copy()


@lru_cache(maxsize=512)
def _render_face(card: Card, style: int, seed: int, size_px: int) -> np.ndarray:
    st = style_of(style)
    _check_size(size_px)
    rng = _rng(card.id, style, seed)
    pal = palette(card, st, rng)
    img, alpha, pen = _canvas(size_px)
    inner = _draw_border(img, pen, st, pal, rng)
    r_px = pen.scale * inner
    if card.rank.is_face:
        fig = pen.at(0, 0.04, inner * 0.92)
        draw = draw_throne if card.rank is Rank.RAJA else draw_rider
        draw(fig, card.suit, pal.figure, pal.emblem)
    else:
        n = int(card.rank)
        for x, y, r, rot in pip_layout(n, st.pips, rng, gap=st.numeral):
            draw_emblem(pen.at(x * inner, y * inner, r * inner, rot).with_ink(pal.emblem),
                        card.suit)
    if st.numeral:
        _draw_numeral(img, pen.cx, pen.cy, r_px, card, st, pal.numeral)
    out = _wear(img, st.wear, rng)
    out = _sheen(out, alpha, st.sheen, rng) if st.sheen > 0 else out
    face = _finish(out, size_px, alpha)
    face.setflags(write=False)
    return face


def render_back(style: int, seed: int, size_px: int) -> np.ndarray:
    """The back shared by every card of a style: a field with a rosette, no suit or rank."""
    return _render_back(int(style), int(seed), int(size_px)).copy()


@lru_cache(maxsize=64)
def _render_back(style: int, seed: int, size_px: int) -> np.ndarray:
    st = style_of(style)
    _check_size(size_px)
    rng = _rng("back", style, seed)
    field, pattern = st.back
    img, alpha, pen = _canvas(size_px)
    pen.with_ink(Ink(field, field, 0, pattern)).poly(circle_pts(0, 0, 1.0, 96))
    pen.stroke(circle_pts(0, 0, 0.9, 96), 0.03, pattern, closed=True)
    petals = 8 + 2 * (style % 4)
    ink = Ink(pattern, field, 0.01, field)
    for k in range(petals):
        a = 360 * k / petals
        t = np.radians(a)
        pen.with_ink(ink).ellipse(0.42 * np.cos(t), 0.42 * np.sin(t), 0.36, 0.1, a)
    pen.with_ink(Ink(field, pattern, 0.04, pattern)).poly(circle_pts(0, 0, 0.22, 48))
    pen.dot(0, 0, 0.08, pattern)
    for a in np.linspace(0, 2 * np.pi, 2 * petals, endpoint=False):
        pen.dot(0.8 * np.cos(a), 0.8 * np.sin(a), 0.03, pattern)
    out = _wear(img, st.wear * 0.7, rng)
    out = _sheen(out, alpha, st.sheen, rng) if st.sheen > 0 else out
    back = _finish(out, size_px, alpha)
    back.setflags(write=False)
    return back
