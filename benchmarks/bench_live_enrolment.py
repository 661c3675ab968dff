"""A real deck enrolled live, from the camera, against the same deck enrolled from its images.

    python benchmarks/bench_live_enrolment.py [--per-card 6] [--light neutral]
    python benchmarks/bench_live_enrolment.py --films /tmp/realart [--answer-after 90]
    python benchmarks/bench_live_enrolment.py --learnt /tmp/realart [--answer-after 90]
    python benchmarks/bench_live_enrolment.py --speed /tmp/realart   # after --learnt

A player with a real deck seldom has a scan of every card: the dashboard's "Enrol a deck"
page (``companion.web.enroll``) lets them lay the cards out on the mat, a table-full at a
time, and confirm each card's name. The profile is then built from the camera's own crops:
a card about 80 px across in a 1280x720 frame, seen through the lens and the light of the
room, not a clean picture. This measures what that costs.

The PySolFC decks in ``../shared/decks`` (art the model never saw) are laid out face up and
apart, 20 cards a scan, in rendered 1280x720 frames of the whole mat (the scene renderer,
as the real-art films are made), and each card is cut at its place as the detector cuts it
(``crops.crop_from_frame``); the confirmed labels are the scene's truth. The test crops are
those of ``bench_accuracy.pysol`` (the same seed): each card put on the table under the
benchmark's poses and lights. Printed: read right, read at the tracker's bar, wrong among
those, for the profile from the deck's images and for the live one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_accuracy import PYSOL, SURE, pysol_crops, pysol_faces, read_in_frames
from film_events import LEGEND, _real_art_films, print_events, run_video

from companion.cards import DeckKind, deck_cards
from companion.games import get_game
from companion.record import GameRecord
from companion.synth.camera import random_pose
from companion.synth.scene import (
    MAT_SIZE_MM,
    CardPlacement,
    Scene,
    random_scene_spec,
    render_scene,
)
from companion.train_scenes import CARD_RADIUS_MM
from companion.vision.classify import CardClassifier
from companion.vision.crops import crop_from_frame
from companion.vision.cues import sharpness
from companion.vision.enroll import (
    SHARP_ENOUGH,
    enroll_folder,
    enroll_images,
    load_profile,
    save_profile,
)

PER_SCAN = 20


def _cut(scene: Scene, centre_mm) -> np.ndarray:
    """The card at ``centre_mm`` cut from the scene's frame as the detector cuts it."""
    return crop_from_frame(scene.image, centre_mm, CARD_RADIUS_MM, scene.homography,
                           scene.camera.K, scene.camera.k1)


def live_crops(deck: DeckKind, seed: int = 7, light: str = "neutral",
               sharp: float = 0.0, tries: int = 6, upright: bool = False
               ) -> dict[str, np.ndarray]:
    """Card id -> the camera crop a live enrolment keeps of it: the deck laid out face up
    on the mat in scans of ``PER_SCAN`` cards, 5 x 4 apart, at any turn, the camera seeing
    the whole mat. A card whose crop is less sharp than ``sharp`` (``cues.sharpness``) is
    laid out and scanned again, at most ``tries`` times, and its sharpest crop kept (the
    dashboard marks such a card as blurred). ``upright``: each card laid the way up it is
    printed, within 10 degrees, as the page asks."""
    rng = np.random.default_rng(seed)
    w, h = MAT_SIZE_MM
    xs, ys = np.linspace(70, w - 70, 5), np.linspace(70, h - 70, 4)
    out: dict[str, np.ndarray] = {}
    best: dict[str, float] = {}
    todo = list(deck_cards(deck))
    for _ in range(tries):
        for start in range(0, len(todo), PER_SCAN):
            spec = random_scene_spec(rng, 1280, 720, source=f"pysol-{deck.value}", mat=True,
                                     placement="anywhere", n_cards=1, hands=0,
                                     lighting=light, face_down_rate=0.0)
            places = [CardPlacement(card, True, (float(xs[k % 5] + rng.normal(0, 4)),
                                                 float(ys[k // 5] + rng.normal(0, 4))),
                                    float(rng.uniform(-10, 10) if upright else
                                          rng.uniform(0, 360)), spec.cards[0].source,
                                    spec.cards[0].seed, None)
                      for k, card in enumerate(todo[start:start + PER_SCAN])]
            # a webcam that sees the whole mat, as `companion calibrate` asks for
            cam = random_pose(rng, 1280, 720, (w / 2, h / 2), w * 1.7, 20.0)
            scene = render_scene(dataclasses.replace(spec, cards=tuple(places), camera=cam))
            for t in scene.truth:
                if t.visible_fraction < 0.95:  # out of the camera's view: not detected
                    continue
                crop = _cut(scene, t.center_mm)
                s = float(sharpness(crop[None])[0])
                if s > best.get(t.card_id, -1.0):
                    out[t.card_id], best[t.card_id] = crop, s
        todo = [c for c in todo if best.get(c.id, -1.0) < sharp]
        if not todo:
            break
    return out


def scene_crops(deck: DeckKind, n_scenes: int, seed: int = 4243
                ) -> tuple[np.ndarray, list[str], list[slice]]:
    """Face-up cards at least 0.7 in view in ``n_scenes`` rendered scenes of the deck (any
    light, camera, hands and overlaps, as the fixture scenes), cut at their places, and
    each scene's share of them (a frame: its cards are read together)."""
    rng = np.random.default_rng(seed)
    crops, truth, frames = [], [], []
    for _ in range(n_scenes):
        scene = render_scene(random_scene_spec(rng, 1280, 720, source=f"pysol-{deck.value}"))
        start = len(crops)
        for t in scene.truth:
            if t.face_up and t.visible_fraction >= 0.7:
                crops.append(_cut(scene, t.center_mm))
                truth.append(t.card_id)
        if len(crops) > start:
            frames.append(slice(start, len(crops)))
    return np.stack(crops), truth, frames


def compare(deck: DeckKind, per_card: int, light: str, n_scenes: int) -> dict | None:
    """The deck read with the profile from its images, and from live scans: as they came,
    with each card the dashboard marks as blurred scanned again, and both again with the
    cards laid upright (at play they lie at any turn)."""
    faces = pysol_faces(deck)
    if faces is None:
        return None
    model = CardClassifier()
    crops, truth, _ = pysol_crops(faces, per_card, np.random.default_rng(1))
    # as bench_accuracy.pysol reads them: 20 distinct cards a frame
    tests = {"camera crops": (crops, truth, None), "scenes": scene_crops(deck, n_scenes)}
    folder = PYSOL[deck]
    profiles = {"images": enroll_folder(folder, folder / "manifest.csv", folder.name, model)}
    out = {}
    for how, sharp, upright in (("live", 0.0, False),
                                ("live, blurred scanned again", SHARP_ENOUGH, False),
                                ("live, laid upright", 0.0, True),
                                ("live, laid upright, blurred scanned again", SHARP_ENOUGH,
                                 True)):
        t0 = time.perf_counter()
        live = live_crops(deck, light=light, sharp=sharp, upright=upright)
        t1 = time.perf_counter()
        profiles[how] = enroll_images(live, how, model, cut=True)
        out[f"{how}: scans rendered and cut, s / profile built, s"] = [
            round(t1 - t0, 1), round(time.perf_counter() - t1, 1)]
    return out | read_with(profiles, tests)


def read_with(profiles: dict, tests: dict) -> dict:
    """Each test set (name -> crops, truth, frames) read with each profile: right (the
    first guess, the first button a question offers), and read at a bar / wrong."""
    out = {}
    for test, (crops, truth, frames) in tests.items():
        for how, profile in profiles.items():
            reader = CardClassifier(profile=profile)
            read, conf, _ms = read_in_frames(reader, crops, frames)
            out[f"{test}, enrolled from {how}: right"] = [
                sum(a == t for a, t in zip(read, truth)), len(truth)]
            # the tracker's bar, and the one a profile of art the model never saw is served at
            for bar in (SURE, reader.trust_bar):
                wrong = [a != t for a, c, t in zip(read, conf, truth)
                         if a is not None and c >= bar]
                out[f"{test}, enrolled from {how}: read at {bar} / wrong"] = [len(wrong),
                                                                              sum(wrong)]
    return out


def films(folder: Path, light: str, answer_after: int = 0) -> int:
    """With such a deck every card is asked about (``classify.ALWAYS_ASK``): the game
    follows only as well as the referee and the tracker handle the players' answers."""
    model, profiles, res = CardClassifier(), {}, []
    for film in _real_art_films(folder):
        meta = json.loads(film.with_suffix(".json").read_text())
        deck = get_game(GameRecord.from_json(meta["record"]).game).DECK
        if deck not in profiles:
            live = live_crops(deck, light=light, sharp=SHARP_ENOUGH, upright=True)
            profiles[deck] = enroll_images(live, "live", model, cut=True)
        res.append(run_video(film, oracle=False, answer_unsure=True, enrolled=True,
                             profile=profiles[deck], answer_after=answer_after))
    print_events("Real-art films, each deck enrolled live (laid upright, blurred cards "
                 f"scanned again), players answer {answer_after} frames after each question",
                 res)
    print(LEGEND)
    return 0


def learnt(folder: Path, n_scenes: int, answer_after: int = 0, seed_step: int = 100) -> int:
    """A deck the model does not know, enrolled by playing with it: each real-art film
    played with the model alone, the players answering every question, and the cards they
    named kept with their pictures (``Pipeline.learnt``, the dashboard's enrolment draft).
    The profile built from those pictures then reads the deck's test crops, and a second
    game of the same deck (the film's seed + ``seed_step``: other cards, hands and camera
    moves; its camera, light and style those of the film), model alone and with it.
    ``answer_after``: frames the players take to answer each question (a card may have gone
    by then). The second game's answers are then added to the profile (the Enrol page's
    "add these cards"), and the grown profile reads the test crops again."""
    import tempfile

    from companion.synth.video import film_game
    from companion.web.draft import Draft, added_to
    model = CardClassifier()
    for film in _real_art_films(folder):
        meta = json.loads(film.with_suffix(".json").read_text())
        deck = get_game(GameRecord.from_json(meta["record"]).game).DECK
        with tempfile.TemporaryDirectory() as tmp:
            draft = Draft.load(tmp)
            played = run_video(film, oracle=False, answer_unsure=True, draft=draft,
                               answer_after=answer_after)
        print(f"\n## {film.name}: {len(draft.cards)} of the {len(deck_cards(deck))} "
              f"{deck.value} cards named with a picture, from {played['answered']} answers")
        profile = enroll_images(draft.cards, "learnt", model, cut=True)
        save_profile(profile, folder / f"{film.stem}-learnt.npz")  # for --speed
        faces = pysol_faces(deck)
        crops, truth, _ = pysol_crops(faces, 6, np.random.default_rng(1))
        tests = {"camera crops": (crops, truth, None), "scenes": scene_crops(deck, n_scenes)}
        for k, v in read_with({"a game's answers": profile}, tests).items():
            print(f"{k:60} {v}")
        again = folder / f"{film.stem}-seed{meta['seed'] + seed_step}.mp4"
        if not again.is_file():
            film_game(meta["game"], meta["players"], meta["seed"] + seed_step, again,
                      style=meta["style"], size=tuple(meta["size"]),
                      max_moves=meta["filmed_moves"], hard=meta["hard"], pace=meta["pace"],
                      source=meta["source"])
        with tempfile.TemporaryDirectory() as tmp:
            more = Draft.load(tmp)  # the second game's answers, to add to the profile
            res = [played,
                   run_video(again, oracle=False, answer_unsure=True,
                             answer_after=answer_after),
                   run_video(again, oracle=False, answer_unsure=True, enrolled=True,
                             profile=profile, answer_after=answer_after, draft=more)]
        print_events(f"{film.name} (model alone), then a second game of the deck: model "
                     "alone, and with the profile learnt from the first game's answers "
                     "(players answer every question)", res)
        grown = added_to(profile, more.cards)  # as the Enrol page's "add these cards"
        print(f"\n{film.name}, the second game's answers added: {len(grown)} of the "
              f"{len(deck_cards(deck))} cards with a picture")
        for k, v in read_with({"two games' answers": enroll_images(grown, "grown", model,
                                                                   cut=True)}, tests).items():
            print(f"{k:60} {v}")
    print(LEGEND)
    return 0


def speed(folder: Path, frames: int = 200) -> int:
    """Pipeline speed on a still 1280x720 table of 20 cards of a real-art deck, as served
    (changed crops read, the next frame seen while this one is read): the model alone, and
    with each profile ``--learnt`` left in ``folder`` (it names no card by itself, so every
    card on the table is doubtful and read on every frame)."""
    from bench_pipeline import _speed_run, twenty_card_table
    profiles = sorted(folder.glob("*-learnt.npz"))
    if not profiles:
        print(f"no *-learnt.npz in {folder}: run --learnt {folder} first")
        return 1
    print("\n## Speed: a still 20-card table of the deck's art, as served "
          f"({frames} frames)\nreader                                   cards   fps  "
          "classify ms  track ms")
    for path in profiles:
        profile = load_profile(path)
        image, _ = twenty_card_table(source=f"pysol-{profile.deck.value}")
        for name, reader in (("model alone", CardClassifier()),
                             (f"{path.stem} ({len(profile.card_ids)} cards)",
                              CardClassifier(profile=profile))):
            r = _speed_run(image, frames, reader, reuse=True, overlap=True)
            print(f"{profile.deck.value + ', ' + name:40} {r['cards']:5.0f} {r['fps']:5.1f} "
                  f"{r['mean']['classify']:12.2f} {r['mean']['track']:9.2f}")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-card", type=int, default=6)
    ap.add_argument("--light", default="neutral", help="the room's light during the scans")
    ap.add_argument("--scenes", type=int, default=80, help="test scenes a deck")
    ap.add_argument("--films", type=Path, help="only: the real-art films (rendered into this "
                    "folder, or used again from it) read with each deck enrolled live, laid "
                    "upright and the blurred cards scanned again, the players answering")
    ap.add_argument("--learnt", type=Path, help="only: a profile learnt from the players' "
                    "answers while each real-art film (rendered into this folder, or used "
                    "again from it) is played with the model alone, and what it reads")
    ap.add_argument("--speed", type=Path, help="only: pipeline speed on a still 20-card "
                    "table with each profile --learnt left in this folder")
    ap.add_argument("--answer-after", type=int, default=0,
                    help="with --films or --learnt: frames the players take to answer each "
                         "question")
    args = ap.parse_args(argv)
    if args.speed:
        return speed(args.speed)
    if args.films:
        return films(args.films, args.light, args.answer_after)
    if args.learnt:
        return learnt(args.learnt, args.scenes, args.answer_after)
    for deck in DeckKind:
        res = compare(deck, args.per_card, args.light, args.scenes)
        if res is None:
            print(f"{deck.value}: no PySolFC deck in {PYSOL[deck]}; skipped")
            continue
        print(f"\n## {deck.value}, live scans in {args.light} light")
        for k, v in res.items():
            print(f"{k:60} {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
