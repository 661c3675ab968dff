"""Whether the model knows the art of the deck on the table (between classify and track).

The shipped model is trained only on our own art. On a deck it never saw it names hardly
any card right (2.6% and 0.8% of the PySolFC camera crops), and the few cards it is sure of
are mostly wrong (6 of the 8 Mughal crops it read at 0.8 or more). Without a deck profile
such a table gets a question about nearly every card, with no word of why, and now and
then a wrong card named surely.

The two kinds of art are far apart in how often the model is sure. Share of the face-up
card readings at the tracker's bar (0.8), the model alone, on each fixture film (our art)
and on the same film drawn with the PySolFC decks' art (``bench_pipeline.py --real-art``):

| film | our art: at 60 readings / lowest after / at the end | PySolFC art: at any time |
|---|---|---|
| ganjifa-4p | 0.95 / 0.49 / 0.68 | 0.00 |
| kendra-kari-4p | 0.97 / 0.93 / 0.93 | 0.00 |
| kendra-kari-hard | 0.65 / 0.65 / 0.73 | 0.00 |

On the 300 fixture scenes' face-up cards, however covered (a third of them less than 0.7 in
view), the share is 0.53 in dim light and 0.56-0.63 in the other five lights.

So after ``min_readings`` readings, a share under ``unfamiliar_below`` says the art is new
to the model. The pipeline then takes no card on the model's word alone (every card is put
to the players, best guesses first), and the dashboard says why and how to have the
cards read: enrol the deck.

Such a verdict is judged again on every ``recheck_readings`` readings that follow: at least
``familiar_above`` of them sure, and the model is trusted again. Nothing on the real-art
films comes near (no reading at the bar at all); it is for a table of our own art first
seen in poor conditions (a camera still setting its exposure), which should not be asked
about every card for the rest of the game.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ArtVerdict:
    """How surely the model read ``readings`` face-up cards (the first ones; with ``again``,
    those since it found the art new), and what that says."""

    readings: int
    sure: int  # of those, read at least at the bar
    familiar: bool
    again: bool = False  # judged again, on the readings after the art was found new

    @property
    def share(self) -> float:
        return self.sure / self.readings if self.readings else 0.0

    def words(self) -> str:
        """The verdict for the players, e.g. "the model does not know this deck's art (sure
        of 0 of the first 60 card readings)"."""
        knows = "knows" if self.familiar else "does not know"
        which = "last" if self.again else "first"
        return (f"the model {knows} this deck's art (sure of {self.sure} of the {which} "
                f"{self.readings} card readings)")

    def to_json(self) -> dict[str, Any]:
        return {"readings": self.readings, "sure": self.sure, "familiar": self.familiar,
                "again": self.again}


class ArtFamiliarity:
    """``update(classifications) -> ArtVerdict | None``: a verdict on the frame where one is
    reached, None on every other frame. The first comes after ``min_readings`` face-up
    readings; after "new art", another may come on the readings that follow (see above).

    The verdict is about the deck, not the game, so it stands until :meth:`reset`."""

    def __init__(self, bar: float = 0.8, min_readings: int = 60,
                 unfamiliar_below: float = 0.25, recheck_readings: int = 200,
                 familiar_above: float = 0.5):
        self.bar = bar
        self.min_readings = min_readings
        self.unfamiliar_below = unfamiliar_below
        self.recheck_readings = recheck_readings
        self.familiar_above = familiar_above
        self.reset()

    def reset(self) -> None:
        self.readings = 0  # since the start, or since the art was found new
        self.sure = 0
        self.verdict: ArtVerdict | None = None

    def update(self, classifications: Any) -> ArtVerdict | None:
        if classifications is None or (self.verdict is not None and self.verdict.familiar):
            return None
        c = classifications
        for i in range(len(c)):
            # a reading given again for a card waiting its turn is not a new one
            if c.card_ids[i] is not None and c.is_evidence(i):
                self.readings += 1
                self.sure += bool(c.confidence[i] >= self.bar)
        if self.verdict is None:
            if self.readings < self.min_readings:
                return None
            familiar = self.sure >= self.unfamiliar_below * self.readings
            return self._judged(ArtVerdict(self.readings, self.sure, familiar))
        if self.readings < self.recheck_readings:
            return None
        if self.sure >= self.familiar_above * self.readings:
            return self._judged(ArtVerdict(self.readings, self.sure, True, again=True))
        self.readings = self.sure = 0
        return None

    def _judged(self, verdict: ArtVerdict) -> ArtVerdict:
        self.verdict = verdict
        self.readings = self.sure = 0
        return verdict
