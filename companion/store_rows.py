"""The rows that :class:`~companion.store.Store` hands back: a game, an event, an
announcement, an open question, each with the JSON the dashboard is sent.

Plain frozen values with no SQL in them, kept apart from the store's queries so that each
file stays small; ``companion.store`` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameRow:
    id: int
    session_id: int
    number: int
    game: str
    players: int
    seats: tuple[str, ...]
    options: dict[str, Any]
    started: float
    ended: float | None
    result: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "session_id": self.session_id, "number": self.number,
                "game": self.game, "players": self.players, "seats": list(self.seats),
                "options": self.options, "started": self.started, "ended": self.ended,
                "result": self.result}


@dataclass(frozen=True)
class EventRow:
    id: int
    game_id: int
    seq: int
    ts: float
    kind: str
    status: str
    payload: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "seq": self.seq, "ts": self.ts, "kind": self.kind,
                "status": self.status, **self.payload}


@dataclass(frozen=True)
class AnnouncementRow:
    id: int
    game_id: int
    event_id: int | None
    ts: float
    kind: str
    text: str
    player: int | None
    prominent: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game_id": self.game_id, "event_id": self.event_id,
                "ts": self.ts, "kind": self.kind, "text": self.text, "player": self.player,
                "prominent": self.prominent}


@dataclass(frozen=True)
class PendingRow:
    id: int
    game_id: int
    ts: float
    kind: str
    payload: dict[str, Any]
    resolved: float | None
    answer: Any

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "game_id": self.game_id, "ts": self.ts, "kind": self.kind,
                **self.payload, "resolved": self.resolved, "answer": self.answer}
