"""Where the physical table and the game disagree (``Referee`` says ``desync`` until they
match again)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from companion.cards import Card, deck_cards
from companion.games.base import Ruling, Verdict, seat_name

if TYPE_CHECKING:
    from companion.referee import Referee


def ring_problems(ref: Referee) -> list[str]:
    """Kendra Kari: each position's top card against the one the game has there."""
    expected = ref.expected_table()
    accepted = getattr(ref.engine.state, "out", 0)  # every card the game saw played
    index = {c: i for i, c in enumerate(deck_cards(ref.module.DECK))}
    problems = []
    for zone in [f"pos{k}" for k in range(1, 8)]:
        stack = ref._table.get(zone, [])
        top = stack[-1] if stack else None
        want = expected.get(zone)
        if want is not None and top != want:
            problems.append(f"{want.name} should lie on Position {zone[3:]}"
                            + (f", not {top.name}" if top else ""))
        elif top is not None and top != want and not (accepted >> index[top]) & 1:
            problems.append(f"take {top.name} back from Position {zone[3:]}")
    return problems


def spot_problems(ref: Referee) -> list[str]:
    """Trick games: a card the game refused still lies on a player's spot.

    Ganjifa: "if anyone leads a beatable card ... the move must be withdrawn". A
    refused card that stays is a table the game does not have: the referee says so
    until it is taken back, or until the story changes so that the card fits (a card
    laid before it, named late). A refused card the game plays on with, its error
    announced (``_already_played``: Ganjifa's follow that shows the lead was wrong),
    is part of the game and no mismatch."""
    last: dict[Card, Ruling] = {}
    for o in ref._derived.outputs:
        if o.kind == "ruling" and o.ruling is not None:
            for card in o.ruling.move.cards:
                last[card] = o.ruling
    problems = []
    for zone_id, stack in ref._table.items():
        ruling = last.get(stack[-1]) if stack and ref.is_move_zone(zone_id) else None
        if ruling is not None and ruling.verdict is Verdict.ILLEGAL \
                and not ref._already_played(stack[-1]):
            zone = ref.layout.zone(zone_id)
            problems.append(f"{stack[-1].name} on {seat_name(zone.seat)}'s {zone.kind} "
                            "spot was refused; take it back")
    return problems
