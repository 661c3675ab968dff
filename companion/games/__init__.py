"""The game registry. One module per game; modules import only ``companion.cards``
and the standard library (a test asserts it)."""

from __future__ import annotations

import importlib
import importlib.util

from companion.games.base import GameModule, UnknownGameError

_MODULES = {
    "kendra-kari": "kendra_kari",
    "ganjifa": "ganjifa",
    "udvasa": "udvasa",
    "ekrang": "ekrang",
    "komi": "komi",
    "nakash": "nakash",
    "hamrang": "hamrang",
    "shakti": "shakti",
    "sama": "sama",
    "kanji-guti": "kanji_guti",
}


def game_names() -> list[str]:
    """Names of the games whose modules are present."""
    return [n for n in _MODULES if importlib.util.find_spec(f"companion.games.{_MODULES[n]}")]


def get_game(name: str) -> GameModule:
    key = name.strip().lower().replace("_", "-")
    if key not in _MODULES or key not in game_names():
        raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return importlib.import_module(f"companion.games.{_MODULES[key]}")  # type: ignore[return-value]
