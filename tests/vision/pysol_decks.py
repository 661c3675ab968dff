"""The real-art decks beside the project (``../shared/decks``) as the tests read them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.classify import DEFAULT_MODEL
from companion.vision.enroll import read_manifest

DECKS = Path(__file__).resolve().parents[3] / "shared" / "decks"
MUGHAL_DIR = DECKS / "pysol-mughal-ganjifa-xl"
DASHAVATARA_DIR = DECKS / "pysol-dashavatara-ganjifa-xl"
needs_model = pytest.mark.skipif(not DEFAULT_MODEL.is_file(), reason="no shipped model")
needs_decks = pytest.mark.skipif(not MUGHAL_DIR.is_dir(),
                                 reason=f"real-art decks absent: {MUGHAL_DIR}")


def mughal_faces() -> dict[str, np.ndarray]:
    """Card id -> BGRA face of the PySolFC Mughal deck, its back left out."""
    return faces_of(MUGHAL_DIR)


def faces_of(folder: Path) -> dict[str, np.ndarray]:
    """Card id -> BGRA face of a PySolFC deck, its back left out."""
    return {card: cv2.imread(str(folder / f), cv2.IMREAD_UNCHANGED)
            for f, card in read_manifest(folder / "manifest.csv") if card != "back"}
