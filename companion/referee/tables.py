"""Which judge follows each game at a camera table (how its sightings become its moves),
and why a game with a table layout is not followed yet."""

from __future__ import annotations

from companion.referee.exchanges import ExchangeJudge
from companion.referee.handfuls import HandfulJudge
from companion.referee.judges import KendraKariJudge, PerSeatJudge
from companion.referee.patience import PatienceJudge
from companion.referee.reveals import RevealJudge
from companion.referee.values import RefereeError

JUDGES = {"kendra-kari": KendraKariJudge, "ganjifa": PerSeatJudge, "hamrang": HandfulJudge,
          "ekrang": HandfulJudge, "komi": RevealJudge, "nakash": RevealJudge,
          "sama": ExchangeJudge, "udvasa": PatienceJudge}
# said with the refusal
UNJUDGED = {"shakti": " (a turn's draw and the cards discarded to a pile's bottom are out of "
                      "the camera's sight)"}


def judge_of(game: str, title: str) -> type:
    """The judge class of ``game`` (its registry name); a clear error for one without."""
    if game not in JUDGES:
        raise RefereeError(
            f"{title} is not refereed from the camera yet{UNJUDGED.get(game, '')}: enter "
            "its moves on the dashboard's manual board (Setup: \"play on the manual board\"), "
            f"or with `companion referee --game {game}`")
    return JUDGES[game]
