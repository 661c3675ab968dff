"""Recognition accuracy and speed of the shipped card classifier; prints a table.

    python benchmarks/bench_accuracy.py [--n 4800] [--model PATH] [--update-model-card]

Six measurements:
1. Held-out crops of the project's own art: faces rendered with seeds the model never saw
   (training uses seeds 0-2; these use 1000+), every style, under named poses and lights
   (``companion.vision.crops.POSES`` / ``LIGHTS``); top-1 accuracy split by style, pose and
   light, plus face-down and not-a-card recognition.
2. The two PySolFC decks in ``../shared/decks`` (art the model never saw) under the same
   poses and lights: zero-shot (deck mask only), then after enrolment with one image per
   card (the enrolment image itself is never a test crop: every test crop is a new
   rotation, scale, offset, light and camera noise of it).
3. The committed held-out fixture scenes (camera images: tilt, lens, JPEG, lights, hands):
   every card cut at its true position, read with its table's deck as served, split by
   style, pose, light, sharpness (thirds) and how much of the card shows; the same cards
   with no deck given.
4. Scenes rendered with seed 4242 (neither training nor fixtures; the set models are chosen
   on): whole face-up cards read with the deck mask, and how many readings clear the
   tracker's bar and are wrong all the same.
5. Our own art enrolled from its faces (a deck the model knows): the same crops read by
   the model alone and with the profile.
6. Time to classify a batch of 20 crops (median of many runs), split by stage.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.cards import DeckKind, deck_cards
from companion.vision.classify import DEFAULT_MODEL, CardClassifier
from companion.vision.crops import GENTLE, LIGHTS, POSES, eval_crop, place_card
from companion.vision.cues import sharpness
from companion.vision.enroll import enroll_folder, enroll_images, read_manifest
from companion.vision.model_card import load_model_card, write_model_card
from companion.vision.track import TableTracker

DECKS = ROOT.parent / "shared" / "decks"
PYSOL = {DeckKind.MUGHAL: DECKS / "pysol-mughal-ganjifa-xl",
         DeckKind.DASHAVATARA: DECKS / "pysol-dashavatara-ganjifa-xl"}
HELD_OUT_SEED = 1000
SURE = TableTracker().min_confidence  # above it a card is not asked about


def _conditions(i: int) -> tuple[str, str]:
    poses, lights = list(POSES), list(LIGHTS)
    return poses[i % len(poses)], lights[(i // len(poses)) % len(lights)]


def held_out(clf: CardClassifier, n: int, seed: int = 0) -> dict:
    from companion.synth.faces import N_STYLES, STYLES, render_back, render_face
    rng = np.random.default_rng(seed)
    cards = [c for d in DeckKind for c in deck_cards(d)]
    by = defaultdict(lambda: [0, 0])
    crops, truth, keys = [], [], []
    for i in range(n):
        card = cards[int(rng.integers(len(cards)))]
        style = i % N_STYLES
        pose, light = _conditions(i // N_STYLES)
        face = render_face(card, style, HELD_OUT_SEED + int(rng.integers(50)), 112)
        others = [render_face(cards[int(rng.integers(len(cards)))], style, HELD_OUT_SEED, 112)]
        crops.append(eval_crop(face, pose, light, rng, others))
        truth.append(card)
        keys.append((f"style {style} {STYLES[style].name}", f"pose {pose}", f"light {light}"))
    # The deck is known at a game table: each crop is read with its deck's suit mask.
    for deck in DeckKind:
        idx = [i for i, c in enumerate(truth) if c.deck is deck]
        res = CardClassifier(clf.model_path, deck=deck, threads=clf.threads,
                             rotations=clf.rotations).classify(np.stack([crops[i]
                                                                          for i in idx]))
        for j, i in enumerate(idx):
            ok = res.card_ids[j] == truth[i].id
            for k in ("all",) + keys[i]:
                by[k][0] += ok
                by[k][1] += 1
    # Face-down backs and not-a-card crops.
    from companion.vision.crops import not_a_card
    backs = [eval_crop(render_back(i % N_STYLES, HELD_OUT_SEED + i, 112), *_conditions(i), rng)
             for i in range(200)]
    faces = [render_face(cards[i], 0, HELD_OUT_SEED, 112) for i in range(0, 216, 9)]
    empty = [not_a_card(rng, faces) for _ in range(200)]
    rb, re_ = clf.classify(np.stack(backs)), clf.classify(np.stack(empty))
    by["face-down read as face-down"] = [int((rb.face_down > 0.5).sum()), len(backs)]
    by["not-a-card crops rejected"] = [sum(c is None for c in re_.card_ids), len(empty)]
    return dict(by)


FIXTURES = ROOT / "fixtures" / "scenes"


def _visibility(v: float) -> str:
    return "whole (>=0.95)" if v >= 0.95 else "partly covered (0.7-0.95)" if v >= 0.7 \
        else "mostly covered (<0.7)"


def fixture_scenes(clf: CardClassifier, radius_mm: float = 32.5) -> dict | None:
    """Every card in the committed held-out scenes, cut from the frame at its true table
    position as the detector would (so this measures the classifier, not detection).

    Each scene holds one deck, and a game table's deck is known (``serve`` and ``replay``
    read with the game's deck mask), so the cards are read with their deck's mask. The
    same cards read with no deck given are one more row."""
    from companion.cards import Card
    from companion.vision.crops import crop_from_scene
    index = FIXTURES / "index.json"
    if not index.is_file():
        return None
    crops, rows = [], []
    for js in sorted(FIXTURES.glob("scene_*.json")):
        d = json.loads(js.read_text())
        img = cv2.imread(str(FIXTURES / d["image"]))
        tilt = d["camera"]["tilt_deg"]
        pose = "tilt <15" if tilt < 15 else "tilt 15-30" if tilt < 30 else "tilt 30-45"
        for c in d["cards"]:
            crops.append(crop_from_scene(img, d, c, radius_mm))
            rows.append((c, pose, d["lighting"]))
    crops = np.stack(crops)
    sharp = sharpness(crops)
    judged_sharp = [sharp[i] for i, (c, _, _) in enumerate(rows)
                    if c["face_up"] and c["visible_fraction"] >= 0.7]
    thirds = np.percentile(judged_sharp, [100 / 3, 200 / 3])
    by = defaultdict(lambda: [0, 0])
    unmasked = clf.classify(crops)
    judged = []  # (reading, confidence, truth) of the face-up cards >= 0.7 visible
    backs = "face-down (visible >=0.7) read as face-down"
    for i, (c, _, _) in enumerate(rows):
        if c["visible_fraction"] < 0.7:
            continue
        if not c["face_up"]:
            by[backs][0] += unmasked.card_ids[i] is None
            by[backs][1] += 1
            continue
        key = "all (visible >=0.7), no deck given"
        by[key][0] += unmasked.card_ids[i] == c["card_id"]
        by[key][1] += 1
    for deck in DeckKind:
        idx = [i for i, (c, _, _) in enumerate(rows)
               if c["face_up"] and Card.parse(c["card_id"]).deck is deck]
        res = CardClassifier(clf.model_path, deck=deck, threads=clf.threads,
                             rotations=clf.rotations).classify(crops[idx])
        for j, i in enumerate(idx):
            c, pose, light = rows[i]
            ok = res.card_ids[j] == c["card_id"]
            vis = _visibility(c["visible_fraction"])
            by[f"visible {vis}"][0] += ok
            by[f"visible {vis}"][1] += 1
            if c["visible_fraction"] < 0.7:
                continue
            third = ("blurriest", "middle", "sharpest")[int(np.searchsorted(thirds, sharp[i]))]
            for k in ("all (visible >=0.7)", f"style {c['source']}", f"pose {pose}",
                      f"light {light}", f"sharpness: {third} third"):
                by[k][0] += ok
                by[k][1] += 1
            judged.append((res.card_ids[j], res.confidence[j], c["card_id"]))
    sure, wrong = _sure_counts(*zip(*judged))
    by[f"all (visible >=0.7), read at the tracker's bar ({SURE})"] = [sure, len(judged)]
    by["all (visible >=0.7), wrong among those"] = [wrong, sure]
    return dict(by)


CHOICE_SEED = 4242


def _sure_counts(card_ids, confidence, truth) -> tuple[int, int]:
    """Readings the tracker would accept without asking, and the wrong cards among them
    (what the referee would be told)."""
    sure = [cid != t for cid, conf, t in zip(card_ids, confidence, truth)
            if cid is not None and conf >= SURE]
    return len(sure), sum(sure)


def choice_scenes(clf: CardClassifier, count: int, seed: int = CHOICE_SEED) -> dict:
    """Whole face-up cards (visible >= 0.95) of ``count`` scenes rendered like the fixtures
    but with another seed, each deck read with its mask: top-1, the share read at the
    tracker's bar, and the wrong readings among those (what the referee would be told)."""
    import tempfile

    from companion.cards import Card
    from companion.synth.sceneset import write_scene_set
    from companion.vision.crops import crop_from_scene
    by_deck: dict[DeckKind, tuple[list, list]] = defaultdict(lambda: ([], []))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_scene_set(folder, count, seed=seed, width=960, height=540)
        for js in sorted(folder.glob("scene_*.json")):
            d = json.loads(js.read_text())
            img = cv2.imread(str(folder / d["image"]))
            for c in d["cards"]:
                if c["face_up"] and c["visible_fraction"] >= 0.95:
                    crops, truth = by_deck[Card.parse(c["card_id"]).deck]
                    crops.append(crop_from_scene(img, d, c))
                    truth.append(c["card_id"])
    n = right = sure = sure_wrong = 0
    for deck, (crops, truth) in by_deck.items():
        res = CardClassifier(clf.model_path, deck=deck, threads=clf.threads,
                             rotations=clf.rotations).classify(np.stack(crops))
        n += len(truth)
        right += sum(cid == t for cid, t in zip(res.card_ids, truth))
        got, wrong = _sure_counts(res.card_ids, res.confidence, truth)
        sure, sure_wrong = sure + got, sure_wrong + wrong
    return {"top-1": [right, n], f"read at the tracker's bar ({SURE})": [sure, n],
            "wrong among those": [sure_wrong, sure]}


def pysol_faces(deck: DeckKind) -> dict[str, np.ndarray] | None:
    """Card id -> BGRA face of the PySolFC deck, or None when ``../shared`` lacks it."""
    folder = PYSOL[deck]
    if not folder.is_dir():
        return None
    rows = [(f, c) for f, c in read_manifest(folder / "manifest.csv") if c != "back"]
    return {c: cv2.imread(str(folder / f), cv2.IMREAD_UNCHANGED) for f, c in rows}


def pysol_crops(faces: dict[str, np.ndarray], per_card: int, rng: np.random.Generator
                ) -> tuple[np.ndarray, list[str], list[float]]:
    """``per_card`` camera crops of every card (poses and lights in turn), their card ids,
    and how much of the detail that tells each card from its suit shows (``_in_view``)."""
    crops, truth, in_view = [], [], []
    ids = list(faces)
    telling = _telling_region(faces)
    for k in range(per_card):
        for cid in ids:
            pose, light = _conditions(k + len(crops))
            other = faces[ids[int(rng.integers(len(ids)))]]
            state = rng.bit_generator.state
            crops.append(eval_crop(faces[cid], pose, light, rng, [other]))
            truth.append(cid)
            in_view.append(_in_view(faces[cid], telling, pose, light, state, other))
    return np.stack(crops), truth, in_view


def read_in_frames(clf: CardClassifier, crops: np.ndarray, frames: list[slice] | None = None
                   ) -> tuple[list, list, list[float]]:
    """Card ids, confidences and ms per frame of ``crops``, each frame read together:
    ``frames`` (slices of ``crops``), or 20 at a time. A frame holds about 20 cards, and the
    each-card-once assignment of a profile works on such groups (distinct cards, as on a
    real table)."""
    if frames is None:
        frames = [slice(s, s + 20) for s in range(0, len(crops), 20)]
    read, conf, frame_ms = [], [], []
    for f in frames:
        t0 = time.perf_counter()
        res = clf.classify(crops[f])
        frame_ms.append((time.perf_counter() - t0) * 1e3)
        read.extend(res.card_ids)
        conf.extend(res.confidence)
    return read, conf, frame_ms


def pysol(clf: CardClassifier, deck: DeckKind, per_card: int, seed: int = 1) -> dict | None:
    folder = PYSOL[deck]
    faces = pysol_faces(deck)
    if faces is None:
        return None
    rng = np.random.default_rng(seed)
    ids = list(faces)
    crops, truth, in_view = pysol_crops(faces, per_card, rng)
    zero = CardClassifier(clf.model_path, deck=deck, threads=clf.threads,
                             rotations=clf.rotations).classify(crops)
    t0 = time.perf_counter()
    profile = enroll_folder(folder, folder / "manifest.csv", folder.name, clf)
    enrol_s = time.perf_counter() - t0
    enrolled_clf = CardClassifier(clf.model_path, profile=profile, threads=clf.threads,
                                   rotations=clf.rotations)
    read, conf, frame_ms = read_in_frames(enrolled_clf, crops)
    right = np.array([a == t for a, t in zip(read, truth)])
    sure, sure_wrong = _sure_counts(read, conf, truth)
    in_view = np.array(in_view)
    seen, hidden = in_view >= 0.75, in_view < 0.5
    hidden_sure = int((np.array(conf)[hidden] >= SURE).sum())
    # The same deck under gentle conditions only: a well-centred crop, mild light and noise.
    right_g = n_g = 0
    for _ in range(2):
        for s in range(0, len(ids), 20):
            part = ids[s:s + 20]
            res = enrolled_clf.classify(np.stack([place_card(faces[c], rng, GENTLE)
                                                  for c in part]))
            right_g += sum(a == c for a, c in zip(res.card_ids, part))
            n_g += len(part)
    right_z = suit_z = rank_z = numbers = numbers_right = 0
    for a, t in zip(zero.card_ids, truth):
        right_z += a == t
        suit_z += a is not None and a.rpartition("-")[0] == t.rpartition("-")[0]
        rank_z += a is not None and a.rpartition("-")[2] == t.rpartition("-")[2]
        # This deck's courts are one picture in every suit, told apart only by its colours.
        if t.rpartition("-")[2].isdigit():
            numbers += 1
            numbers_right += a == t
    sure_z, sure_wrong_z = _sure_counts(zero.card_ids, zero.confidence, truth)
    n = len(truth)
    return {"zero-shot": [right_z, n], "zero-shot suit only": [suit_z, n],
            "zero-shot rank only": [rank_z, n], "zero-shot, number cards": [numbers_right, numbers],
            f"zero-shot, read surely (>= {SURE})": [sure_z, n],
            "zero-shot, read surely but wrong": [sure_wrong_z, sure_z],
            "enrolled": [int(right.sum()), n], "enrolled, gentle conditions": [right_g, n_g],
            f"enrolled, read surely (>= {SURE})": [sure, n], "enrolled, read surely but wrong":
            [sure_wrong, sure],
            "enrolled, telling detail >= 75% in view": [int(right[seen].sum()), int(seen.sum())],
            "enrolled, telling detail < 50% in view": [int(right[hidden].sum()),
                                                        int(hidden.sum())],
            f"... of those read surely (>= {SURE})": [hidden_sure, int(hidden.sum())],
            "enrol seconds": enrol_s, "enrolled ms per 20 crops": statistics.median(frame_ms)}


def own_enrolled(clf: CardClassifier, deck: DeckKind, per_card: int, style: int = 6,
                 seed: int = HELD_OUT_SEED) -> dict:
    """Our own art enrolled from its faces, as a player with our printed deck would on the
    "Enrol a deck" page: the model was trained on this art (``classify.KNOWN_ART``). The
    same camera crops read by the model alone and with the profile, in frame-sized batches
    of distinct cards."""
    from companion.synth.faces import render_face
    faces = {c.id: render_face(c, style, seed, 112) for c in deck_cards(deck)}
    profile = enroll_images(faces, "own", CardClassifier(clf.model_path, deck=deck))
    rng = np.random.default_rng(seed)
    ids = list(faces)
    crops, truth = [], []
    for k in range(per_card):
        for cid in ids:
            crops.append(eval_crop(faces[cid], *_conditions(k + len(crops)), rng))
            truth.append(cid)
    out = {}
    for how, reader in (("model alone", CardClassifier(clf.model_path, deck=deck)),
                        ("enrolled", CardClassifier(clf.model_path, profile=profile))):
        read, conf, _ms = read_in_frames(reader, np.stack(crops))
        sure, wrong = _sure_counts(read, conf, truth)
        out[how] = [sum(a == t for a, t in zip(read, truth)), len(truth)]
        out[f"{how}, read surely (>= {SURE})"] = [sure, len(truth)]
        out[f"{how}, read surely but wrong"] = [wrong, sure]
    out["model agreement at enrolment"] = profile.model_agreement
    return out


def _telling_region(faces: dict[str, np.ndarray]) -> np.ndarray:
    """The face pixels where a suit's number cards differ from each other (a small numeral
    on PySolFC art): what alone tells those cards apart."""
    numbers = [c for c in faces if c.rpartition("-")[2].isdigit()]
    spread = np.zeros(faces[numbers[0]].shape[:2], np.float32)
    for suit in {c.rpartition("-")[0] for c in numbers}:
        same = np.stack([faces[c][..., :3] for c in numbers if c.startswith(suit + "-")])
        spread = np.maximum(spread, same.astype(np.float32).std(axis=0).max(axis=2))
    return cv2.dilate((spread > 40).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0


def _in_view(face, region, pose: str, light: str, state: dict, other) -> float:
    """How much of ``region`` a test crop shows: the crop is drawn again from the same
    random state with the region painted in two opposite colours, as it was drawn and
    with the card centred, full size and uncovered; the pixels that differ between the
    two paints are where the region is seen (a hand, a neighbour or the crop's edge can
    hide a numeral that alone tells a card from the rest of its suit)."""

    def seen(jit) -> int:
        out = []
        for paint in ((0, 255, 0), (255, 0, 255)):
            f = face.copy()
            f[..., :3][region] = paint
            rng = np.random.default_rng()
            rng.bit_generator.state = state
            out.append(LIGHTS[light](place_card(f, rng, jit, [other]), rng).astype(np.int32))
        return int((np.abs(out[0] - out[1]).sum(axis=2) > 150).sum())

    whole = seen(replace(POSES[pose], scale=(1.0, 1.0), offset=0.0, occlude_p=0.0))
    return min(1.0, seen(POSES[pose]) / max(whole, 1))


def speed(clf: CardClassifier, runs: int = 200) -> dict:
    from companion.synth.faces import render_face
    rng = np.random.default_rng(0)
    cards = deck_cards(DeckKind.MUGHAL)
    crops = np.stack([eval_crop(render_face(cards[i * 4], i % 8, 0, 112), "flat", "even", rng)
                      for i in range(20)])
    times = defaultdict(list)
    for _ in range(20):
        clf.classify(crops)
    for _ in range(runs):
        t0 = time.perf_counter()
        res = clf.classify(crops)
        times["total"].append((time.perf_counter() - t0) * 1e3)
        for k, v in res.timing_ms.items():
            times[k].append(v)
    return {k: statistics.median(v) for k, v in times.items()}


def _pct(v) -> str:
    if not v[1]:
        return f"none ({v[0]}/0)"
    return f"{100 * v[0] / v[1]:.2f}% ({v[0]}/{v[1]})"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--n", type=int, default=4800, help="held-out crops of our own art")
    ap.add_argument("--per-card", type=int, default=6, help="PySolFC test crops per card")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rotations", type=int, default=4, choices=(1, 2, 4),
                    help="quarter-turns each crop is read at (4: as served)")
    ap.add_argument("--choice-scenes", type=int, default=200,
                    help=f"scenes of seed {CHOICE_SEED} to read (0: skip)")
    ap.add_argument("--update-model-card", action="store_true")
    args = ap.parse_args(argv)
    clf = CardClassifier(args.model, threads=args.threads, rotations=args.rotations)
    t0 = time.time()
    rows: list[tuple[str, str]] = []
    ho = held_out(clf, args.n)
    for k, v in sorted(ho.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        rows.append((f"own art, held-out seeds: {k}", _pct(v)))
    card_acc = {"held-out own art (top-1)": _pct(ho["all"])}
    for k in ho:
        if k.startswith(("pose", "light", "style")):
            card_acc[f"held-out own art, {k}"] = _pct(ho[k])
    card_acc["face-down recognised"] = _pct(ho["face-down read as face-down"])
    card_acc["not-a-card rejected"] = _pct(ho["not-a-card crops rejected"])
    fx = fixture_scenes(clf)
    if fx is None:
        rows.append(("fixture scenes", f"skipped: {FIXTURES} absent"))
    else:
        for k, v in sorted(fx.items(), key=lambda kv: (not kv[0].startswith("all"), kv[0])):
            rows.append((f"fixture scenes: {k}", _pct(v)))
            card_acc[f"fixture scenes {k}"] = _pct(v)
    if args.choice_scenes:
        for k, v in choice_scenes(clf, args.choice_scenes).items():
            rows.append((f"seed-{CHOICE_SEED} scenes, whole cards: {k}", _pct(v)))
            card_acc[f"seed-{CHOICE_SEED} scenes, whole cards, {k}"] = _pct(v)
    for deck in DeckKind:
        r = pysol(clf, deck, args.per_card)
        if r is None:
            rows.append((f"PySolFC {deck.value}", f"skipped: {PYSOL[deck]} absent"))
            continue
        for k in (k for k, v in r.items() if isinstance(v, list)):
            rows.append((f"PySolFC {deck.value}: {k}", _pct(r[k])))
            card_acc[f"PySolFC {deck.value} {k}"] = _pct(r[k])
        rows.append((f"PySolFC {deck.value}: enrolment time", f"{r['enrol seconds']:.1f} s"))
        rows.append((f"PySolFC {deck.value}: enrolled reading, median per 20 crops",
                     f"{r['enrolled ms per 20 crops']:.0f} ms"))
    for deck in DeckKind:
        r = own_enrolled(clf, deck, args.per_card)
        for k, v in r.items():
            label = f"own art enrolled, {deck.value}: {k}"
            rows.append((label, _pct(v) if isinstance(v, list) else f"{v:.3f}"))
            card_acc[f"own art enrolled, {deck.value}, {k}"] = (
                _pct(v) if isinstance(v, list) else round(v, 3))
    for r in sorted({1, args.rotations}):
        sp = speed(CardClassifier(args.model, threads=args.threads, rotations=r))
        how = "1 reading" if r == 1 else f"as served ({r} turns when the first is unsure)"
        for k, v in sp.items():
            rows.append((f"batch of 20 crops, {how}: {k}", f"{v:.2f} ms"))
        card_acc[f"batch of 20 crops, {how}, median ms"] = round(sp["total"], 2)
    card_acc["read with rotations"] = args.rotations
    w = max(len(r[0]) for r in rows)
    print(f"{'measurement':{w}}  result")
    print("-" * (w + 30))
    for k, v in rows:
        print(f"{k:{w}}  {v}")
    print(f"\n({time.time() - t0:.0f} s; model {args.model.name}, "
          f"{args.model.stat().st_size / 1e6:.2f} MB, onnxruntime threads {args.threads}, "
          f"{args.rotations} rotation(s))")
    if args.update_model_card:
        card = load_model_card(args.model)
        card["accuracy"] = card_acc
        write_model_card(args.model, card)
        print(f"updated {args.model.with_suffix('.json')} and .md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
