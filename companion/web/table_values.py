"""The plain values a :class:`~companion.web.table.TableSession` keeps and stores: the
camera's status, the live game rebuilt from the store, and the announcements a ruling
becomes.

They hold no lock and touch no store, so they live apart from the session's methods;
``companion.web.table`` imports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.games.base import Ruling, Verdict


@dataclass
class CameraStatus:
    ok: bool = False
    text: str = "starting"
    source: str = ""
    fps: float = 0.0
    demo_label: str = ""
    frame: int = -1  # index of the last frame handled, counted by the source
    art: str = ""  # what to do about a deck whose art the model does not know, while it lies

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "text": self.text, "source": self.source, "art": self.art,
                "fps": round(self.fps, 1), "demo_label": self.demo_label, "frame": self.frame}


@dataclass
class _Live:
    """The in-memory game rebuilt from the store."""

    game_id: int
    module: Any
    options: Any
    referee: Any
    manual_state: Any = None  # the engine state when the game is played on the manual board
    move_events: list = field(default_factory=list)


def _announcement_items(ruling: Ruling) -> list[dict[str, Any]]:
    items = [{"kind": e.kind, "text": e.text, "player": e.player, "prominent": e.announce}
             for e in ruling.events]
    if ruling.verdict is Verdict.ILLEGAL and not any(ruling.reason in e.text
                                                     for e in ruling.events):
        items.append({"kind": "illegal", "text": f"Not allowed: {ruling.reason}",
                      "player": ruling.move.player, "prominent": True})
    elif ruling.verdict is Verdict.UNVERIFIABLE and ruling.reason:
        items.append({"kind": "unverifiable", "text": f"Cannot check: {ruling.reason}",
                      "player": ruling.move.player, "prominent": False})
    return items
