"""Whose hand laid each Kendra Kari card, as the referee saw it, against the film's record;
prints a table.

    python benchmarks/bench_hand_seats.py FILM.mp4 [FILM.mp4 ...] [--model]

Each film (``companion synth-game --game kendra-kari ...``, with its JSON beside it) runs
through ``film_events.run_video`` as the section "2026-11-29, 11:26-14:26 UTC" of
docs/benchmarks.md ran it: the deck's PySolFC profile (``--model``: the model alone), the
players answering every question. For each card the referee saw laid by a hand ("laid"
facts, their first sighting), the hand's seat (``Fact.seat``) is compared with the player
the record says laid it: right, wrong, or no hand seen.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import film_events

from companion.record import GameRecord


def hand_seats(film: Path, enrolled: bool) -> tuple[int, int, int, list[tuple]]:
    """(right, wrong, none, [(card, frame, seat seen, seat that laid it)]) for one film."""
    made: list = []
    film_events.run_video(film, oracle=False, answer_unsure=True, enrolled=enrolled,
                          answer_who=True, referees=made)
    record = GameRecord.from_json(json.loads(film.with_suffix(".json").read_text())["record"])
    laid_by = {c.id: m.player for m in record.moves if m.action != "draw" for c in m.cards}
    right = wrong = none = 0
    bad, seen = [], set()
    for f in made[-1]._facts:
        if f.kind != "laid" or f.card is None or f.card.id in seen or f.card.id not in laid_by:
            continue
        seen.add(f.card.id)
        truth = laid_by[f.card.id]
        if f.seat is None:
            none += 1
        elif f.seat == truth:
            right += 1
        else:
            wrong += 1
            bad.append((f.card.id, f.frame, f.seat, truth))
    return right, wrong, none, bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("films", nargs="+", type=Path)
    ap.add_argument("--model", action="store_true", help="the model alone, no profile")
    args = ap.parse_args()
    total = [0, 0, 0]
    print(f"{'film':28s} {'right':>6s} {'wrong':>6s} {'none':>5s}  wrong ones (card, frame, "
          "seen, laid by)")
    for film in args.films:
        if not film.with_suffix(".json").is_file():
            print(f"{film}: no film record beside it (synth-game writes FILM.json)",
                  file=sys.stderr)
            return 2
        right, wrong, none, bad = hand_seats(film, enrolled=not args.model)
        total = [total[0] + right, total[1] + wrong, total[2] + none]
        print(f"{film.stem:28s} {right:6d} {wrong:6d} {none:5d}  {bad}", flush=True)
    print(f"{'all':28s} {total[0]:6d} {total[1]:6d} {total[2]:5d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
