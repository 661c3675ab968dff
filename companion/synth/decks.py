"""Where a scene's card pictures come from: our own styles, or a real-art PySolFC deck.

Sources are named ``style-<n>`` for our art and ``pysol-mughal`` / ``pysol-dashavatara``
for the real-art decks in ``../shared/decks`` (evaluation only: never trained on, never
copied into the repository). ``COMPANION_DECKS`` overrides where those decks live.
"""

from __future__ import annotations

import csv
import os
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from companion.cards import Card, DeckKind
from companion.synth.faces import N_STYLES, render_face

PYSOL_FOLDERS = {"pysol-mughal": "pysol-mughal-ganjifa-xl",
                 "pysol-dashavatara": "pysol-dashavatara-ganjifa-xl"}


class DeckSourceError(ValueError):
    pass


def n_own_styles() -> int:
    return N_STYLES


def decks_dir() -> Path:
    env = os.environ.get("COMPANION_DECKS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2].parent / "shared" / "decks"


def pysol_available(source: str = "pysol-mughal") -> bool:
    return (decks_dir() / PYSOL_FOLDERS[source] / "manifest.csv").is_file()


def deck_of_source(source: str) -> DeckKind | None:
    if source == "pysol-mughal":
        return DeckKind.MUGHAL
    if source == "pysol-dashavatara":
        return DeckKind.DASHAVATARA
    return None


def _own_style(source: str) -> int | None:
    if source.startswith("style-") and source[6:].isdigit() and int(source[6:]) < N_STYLES:
        return int(source[6:])
    return None


def check_source(source: str) -> None:
    if _own_style(source) is None and source not in PYSOL_FOLDERS:
        raise DeckSourceError(f"unknown card source {source!r}: use style-0..style-"
                              f"{N_STYLES - 1} or one of {', '.join(PYSOL_FOLDERS)}")


def missing_cards(source: str, card_ids: set[str]) -> list[str]:
    """The cards of ``card_ids`` that the real-art deck ``source`` does not have, sorted."""
    return sorted(card_ids - set(_pysol_manifest(source)))


@lru_cache(maxsize=4)
def _pysol_manifest(source: str) -> dict[str, Path]:
    folder = decks_dir() / PYSOL_FOLDERS[source]
    path = folder / "manifest.csv"
    if not path.is_file():
        raise DeckSourceError(f"real-art deck {source!r} not found at {folder} "
                              "(set COMPANION_DECKS to the folder holding the decks)")
    with path.open(newline="") as f:
        return {row["card"]: folder / row["file"] for row in csv.DictReader(f)}


@lru_cache(maxsize=1024)
def _pysol_image(source: str, key: str, size: int) -> np.ndarray:
    path = _pysol_manifest(source).get(key)
    if path is None:
        raise DeckSourceError(f"{source} has no card {key!r}")
    img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        raise DeckSourceError(f"{path} is not a transparent PNG")
    interp = cv2.INTER_AREA if size < img.shape[0] else cv2.INTER_CUBIC
    out = cv2.resize(img, (size, size), interpolation=interp)
    out.setflags(write=False)
    return out


def card_image(source: str, card: Card | None, seed: int, size: int) -> np.ndarray:
    """BGRA picture of ``card`` (its back when None) from ``source`` at ``size`` px."""
    style = _own_style(source)
    if style is not None:
        return render_face(card, style, seed, size)
    check_source(source)
    return _pysol_image(source, "back" if card is None else card.id, size)
