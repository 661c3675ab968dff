"""How the referee's re-judged story is told on the live stream.

The :class:`~companion.referee.Referee` judges every fact again whenever the story
changes; these compare the story before and after, say only what is new, and tell the
rulings that changed as corrections. They are list work on outputs alone (no table, no
engine), so they live apart from the referee.
"""

from __future__ import annotations

from companion.referee.values import RefereeOutput


def news(before: list[RefereeOutput], after: list[RefereeOutput]) -> list[RefereeOutput]:
    """What the stream has not said yet, of a story re-judged from ``before`` to ``after``."""
    same = 0
    while same < min(len(before), len(after)) and before[same] == after[same]:
        same += 1
    if same == len(before):  # the usual case: the story only grew
        return [live(o) for o in after[same:]]
    # The story changed inside (a card that happened earlier was told late, a
    # two-card turn): what it says now and did not say before. A superseded first card
    # travels inside its two-card ruling; rulings come as corrections.
    told = list(before[same:])
    out = []
    for o in after[same:]:
        if o in told:
            told.remove(o)
        elif o.kind != "superseded":
            out.append(live(o, changed=True))
    return out


def live(o: RefereeOutput, changed: bool = False) -> RefereeOutput:
    """A ruling as the live stream tells it. A two-card turn is a correction of its
    first card's ruling, found by that card's frame: the first card was announced on
    its own already. A ruling that changed, or came in among those told, is a
    correction too."""
    if o.kind != "ruling":
        return o
    if o.replaces:
        return RefereeOutput("correction", f"{o.text} (one turn, two cards)", o.frame,
                             o.timestamp, o.ruling, assumed=o.assumed, replaces=True)
    if changed:
        return RefereeOutput("correction", f"{o.text} (judged again in the order the "
                             "cards were laid)", o.frame, o.timestamp, o.ruling,
                             assumed=o.assumed)
    return o
