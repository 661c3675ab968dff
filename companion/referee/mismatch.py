"""Where the physical table and the game disagree (``Referee`` says ``desync`` until they
match again).

Both checks take what the referee saw and what the game holds as plain values: the top
card seen on each zone, and a test for "the game has seen this card played"."""

from __future__ import annotations

from collections.abc import Callable

from companion.cards import Card
from companion.games.base import Ruling, Verdict
from companion.layouts import Layout
from companion.referee.values import RefereeOutput

Played = Callable[[Card], bool]


def ring_problems(tops: dict[str, Card], expected: dict[str, Card],
                  already_played: Played) -> list[str]:
    """Kendra Kari: each position's top card (``tops``) against the one the game has
    there (``expected``). A card the game never accepted is to be taken back."""
    problems = []
    for zone in [f"pos{k}" for k in range(1, 8)]:
        top, want = tops.get(zone), expected.get(zone)
        if want is not None and top != want:
            problems.append(f"{want.name} should lie on Position {zone[3:]}"
                            + (f", not {top.name}" if top else ""))
        elif top is not None and top != want and not already_played(top):
            problems.append(f"take {top.name} back from Position {zone[3:]}")
    return problems


def spot_problems(tops: dict[str, Card], rulings: list[Ruling], layout: Layout,
                  is_move_zone: Callable[[str], bool], already_played: Played) -> list[str]:
    """Trick games: a card the game refused still lies on a player's spot.

    Ganjifa: "if anyone leads a beatable card ... the move must be withdrawn". A
    refused card that stays is a table the game does not have: the referee says so
    until it is taken back, or until the story changes so that the card fits (a card
    laid before it, named late). A refused card the game plays on with, its error
    announced (``already_played``: Ganjifa's follow that shows the lead was wrong),
    is part of the game and no mismatch."""
    last: dict[Card, Ruling] = {card: r for r in rulings for card in r.move.cards}
    problems = []
    for zone_id, top in tops.items():
        ruling = last.get(top) if is_move_zone(zone_id) else None
        if ruling is not None and ruling.verdict is Verdict.ILLEGAL \
                and not already_played(top):
            problems.append(f"{top.name} on {layout.place(zone_id)} was refused; take it back")
    return problems


class SyncWatch:
    """``check(problems, frame, ts) -> outputs``: "desync" when problems appear (after
    ``grace_s`` of them: see ``companion.referee.SPOT_GRACE_S``), "resync" when they are gone."""

    def __init__(self, grace_s: float = 0.0):
        self.grace_s = grace_s
        self.desynced = ""  # why the table and the game disagree, or ""
        self._since: float | None = None  # when the current problems began

    def check(self, problems: list[str], frame: int, ts: float) -> list[RefereeOutput]:
        if not problems:
            self._since = None
        elif self._since is None:
            self._since = ts
        if problems and not self.desynced:
            if ts - self._since < self.grace_s:
                return []
            self.desynced = "; ".join(problems)
            return [RefereeOutput("desync", f"The table does not match the game: "
                                  f"{self.desynced}. Waiting until it does.", frame, ts)]
        if not problems and self.desynced:
            self.desynced = ""
            return [RefereeOutput("resync", "The table matches the game again.", frame, ts)]
        return []
