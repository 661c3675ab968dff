"""The table referee on one film's recorded sightings, judged two ways; prints a table.

    python benchmarks/bench_referee_order.py --films /tmp/realart [--video ganjifa-4p.mp4]
                                             [--profile] [--events FILE]

The pipeline runs once over the film (``--profile``: with a profile enrolled from the
film's own deck, two doubtful cards read a frame, as ``bench_pipeline.py`` runs it) and its
tracker events are kept (``--events FILE`` keeps them between runs). The same events then
go to the referee twice, players answering every question with the film's truth:

- *as laid*: what the referee does now, facts in the order their cards were laid
  (``TrackEvent.since``);
- *as reported*: each event's ``since`` dropped, so facts are judged in the order the
  tracker reported them (the referee before cards were ordered by when they were laid).

And for the questions about laid cards: how many hold up the judging, how often the first
button offered is the card that lies there, and how many offer one card only.
No motion maps are kept, so on the Kendra Kari ring no hand is seen: use a trick game's film.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from film_events import MODEL, enrolled_profile, lcs, model_classifier, truth_on

from companion.games import get_game
from companion.layouts import load_layout
from companion.record import GameRecord
from companion.referee import Referee
from companion.vision.detect import CardDetector
from companion.vision.pipeline import DOUBTFUL_PER_FRAME, Pipeline
from companion.vision.reuse import ReadingReuse
from companion.vision.source import open_source
from companion.vision.track import TableTracker


def sightings(video: Path, meta: dict, profile: bool) -> list:
    """[(frame, timestamp, events)] for every frame with tracker events."""
    rec = GameRecord.from_json(meta["record"])
    deck = get_game(rec.game).DECK
    classifier, reuse = model_classifier(deck), None
    if classifier is None:
        raise SystemExit(f"no model at {MODEL}")
    if profile:
        from companion.vision.classify import CardClassifier
        source = meta.get("source") or f"style-{meta['style']}"
        classifier = CardClassifier(MODEL, profile=enrolled_profile(source, meta["seed"], deck,
                                                                     classifier))
        reuse = ReadingReuse(max_doubtful=DOUBTFUL_PER_FRAME)
    pipe = Pipeline(classifier, TableTracker(load_layout(rec.game)), detector=CardDetector(),
                    reuse=reuse)
    return [(r.frame_index, r.timestamp, list(r.events))
            for r in map(pipe.process, open_source(str(video)).frames()) if r.events]


def judge(stream: list, meta: dict, as_laid: bool) -> dict:
    rec = GameRecord.from_json(meta["record"])
    game = get_game(rec.game)
    ref = Referee(rec.game, rec.players, rec.options, load_layout(rec.game))
    asked = {"holding": 0, "first right": 0, "one choice": 0}
    outputs = []
    for frame, ts, events in stream:
        if not as_laid:
            events = [dataclasses.replace(e, since=-1) for e in events]
        for e in events:
            if e.kind == "unsure" and ref.is_move_zone(e.zone) and not ref._seen_there(e):
                choices = ref.choices_for(e)
                truth = truth_on(meta["frame_truth"], e.last_frame, e.zone)
                asked["holding"] += 1
                asked["first right"] += bool(choices) and choices[0][0] == truth
                asked["one choice"] += len(choices) == 1
        said = ref.observe(events, frame, ts)
        outputs += said
        questions = [(e.last_frame, e.zone) for e in events if e.kind == "unsure"]
        questions += [(o.frame, o.zone) for o in said if o.kind == "doubt"]
        for at, zone in questions:
            truth = truth_on(meta["frame_truth"], at, zone)
            if truth:
                outputs += ref.confirm(truth, zone, frame, ts)
    truth_moves = [game.public_move(rec.moves[m["index"]]) for m in meta["moves"]]
    rulings = ref.rulings()
    return {"moves": lcs([r.move for r in rulings], truth_moves), "of": len(truth_moves),
            "illegal": sum(r.verdict.value == "illegal" for r in rulings),
            "desync": sum(o.kind == "desync" for o in outputs),
            "doubt": sum(o.kind == "doubt" for o in outputs), **asked}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--films", type=Path, default=ROOT / "fixtures" / "videos")
    ap.add_argument("--video", default="ganjifa-4p.mp4")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--events", type=Path, default=None, help="keep the sightings here")
    args = ap.parse_args()
    video = args.films / args.video
    meta = json.loads(video.with_suffix(".json").read_text())
    if args.events is not None and args.events.is_file():
        stream = pickle.loads(args.events.read_bytes())
    else:
        stream = sightings(video, meta, args.profile)
        if args.events is not None:
            args.events.write_bytes(pickle.dumps(stream))
    print(f"\n## The referee on {video} ({'enrolled profile' if args.profile else 'model alone'}"
          "), players answer")
    print(f"{'judged':12} {'moves':>9} {'illegal':>7} {'desync':>6} {'doubt':>5} "
          f"{'asked':>5} {'1st right':>9} {'1 choice':>8}")
    for label, as_laid in (("as reported", False), ("as laid", True)):
        r = judge(stream, meta, as_laid)
        print(f"{label:12} {r['moves']:4d}/{r['of']:<4d} {r['illegal']:7d} {r['desync']:6d} "
              f"{r['doubt']:5d} {r['holding']:5d} {r['first right']:9d} {r['one choice']:8d}")
    print("asked: unsure cards that held up the judging; 1st right: of those, the first "
          "button offered was the card that lay there; 1 choice: only one card offered")
    return 0


if __name__ == "__main__":
    sys.exit(main())
