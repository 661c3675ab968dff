"""The tracker's output value: one change of the table (see ``companion.vision.track``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TrackEvent:
    kind: str  # "appeared" | "removed" | "cleared" | "unsure"
    card_id: str | None  # None: face-down card (appeared/removed), unsure, or cleared
    center_mm: tuple[float, float]
    zone: str | None  # the layout zone the card is in (None outside every zone)
    confidence: float  # 0..1: how sure the tracker is of card_id (unsure: of the best guess)
    first_frame: int  # the frame span the decision rests on
    last_frame: int
    timestamp: float  # of last_frame
    track_id: int = -1
    # unsure and appeared: the top readings (an appeared card's, should the game doubt it)
    candidates: tuple[tuple[str, float], ...] = ()
    # appeared: the card it was laid on top of; unsure: the card that lay there surely
    # before its readings turned (a card laid on it, or a hand resting over it)
    covers: str | None = None
    resolves: bool = False  # appeared: names the card of this track's last unsure event
    # appeared/unsure: the frame the card was first seen where it lies (-1: not known).
    # A doubtful card settles frames after it was laid, maybe after the next player's card.
    since: int = -1
    # unsure: the confidence the tracker needed to name the card (None: not an unsure
    # event). The referee may still name it, knowing cards the tracker does not.
    needed: float | None = None

    def to_json(self) -> dict:
        d = {"kind": self.kind, "card": self.card_id, "zone": self.zone,
             "center_mm": [round(float(v), 1) for v in self.center_mm],
             "confidence": round(float(self.confidence), 3),
             "frames": [self.first_frame, self.last_frame],
             "timestamp": round(self.timestamp, 3), "track": self.track_id}
        if self.candidates:
            d["candidates"] = [[c, round(p, 3)] for c, p in self.candidates]
        if self.covers:
            d["covers"] = self.covers
        if self.resolves:
            d["resolves"] = True
        if self.since >= 0:
            d["since"] = self.since
        if self.needed is not None:
            d["needed"] = round(self.needed, 3)
        return d
