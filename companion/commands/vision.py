"""Vision verbs: `train`, `identify`, `enroll` (one small register function per verb)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.cli import UsageError


def register(sub: argparse._SubParsersAction) -> None:
    for add in (_register_train, _register_identify, _register_enroll):
        add(sub)
    from companion.commands import vision_table  # `calibrate`, `replay` (the seeing half)
    vision_table.register(sub)


# -- train ---------------------------------------------------------------------------------

def _register_train(sub) -> None:
    p = sub.add_parser("train", help="train the card classifier on rendered art (needs the "
                                     "[train] extra: torch)")
    p.add_argument("--out", type=Path, default=None,
                   help="where to write the ONNX model (default: models/card_classifier.onnx)")
    p.add_argument("--minutes", type=float, default=None, help="training time budget")
    p.add_argument("--pool", type=int, default=None, help="how many training crops to render")
    p.add_argument("--seeds", default=None, help="comma-separated render seeds, e.g. 0,1,2")
    p.add_argument("--input-px", type=int, default=None, choices=(48, 64, 80, 96),
                   help="the network's input size (crops are 96 px; default 64)")
    p.add_argument("--max-passes", type=int, default=None, help="at most this many passes")
    p.add_argument("--scenes", type=int, default=None,
                   help="whole training scenes to cut cards from (default 20000; 0: none)")
    p.add_argument("--threads", type=int, default=None, help="torch threads (default 1)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes rendering training crops (default 2)")
    p.add_argument("--batch", type=int, default=None, help="crops per step (default 128)")
    p.add_argument("--device", default=None, help="torch device, e.g. cuda (default cpu)")
    p.add_argument("--stream-capacity", type=int, default=None,
                   help="render while training until the pool holds this many crops "
                        "(for many cores; default: render the pool first)")
    p.add_argument("--max-reuse", type=float, default=None,
                   help="with --stream-capacity: train on at most this many times the crops "
                        "the pool holds, waiting for it to grow until it is full (default: no "
                        "limit)")
    p.add_argument("--device-crops", type=int, default=None,
                   help="pasted crops made on the training device added to each step's "
                        "batch (for a GPU, where rendering on the CPU is short; default 0)")
    p.add_argument("--widths", default=None, help="the network's widths, e.g. 16,32,64,128")
    p.add_argument("--also-widths", default=None,
                   help="other sizes to train on the same batches, e.g. 24,48,96,192;32,64,"
                        "128,256 (exported next to --out)")
    p.add_argument("--checkpoint", type=Path, default=None,
                   help="also save the trained weights here")
    p.add_argument("--float", action="store_true",
                   help="export float weights, not int8 (for a training machine whose "
                        "onnxruntime is not the serving one: quantize there with "
                        "--from-checkpoint)")
    p.add_argument("--from-checkpoint", type=Path, default=None,
                   help="train nothing: export the weights a run saved with --checkpoint "
                        "(the size given by --widths, else its first) to --out")
    p.add_argument("--init-from", type=Path, default=None,
                   help="train on from the weights of this exported model (ONNX of the "
                        "same widths), e.g. models/card_classifier.onnx")
    p.add_argument("--hold-embedding", type=float, default=None,
                   help="with --init-from: weight of a loss holding the embedding to the "
                        "starting model's (deck profiles match embeddings; default 0)")
    p.add_argument("--lr", type=float, default=None, help="peak learning rate (default 0.004)")
    p.add_argument("--crop-seed", type=int, default=None,
                   help="seed of the pasted training crops (default 1, the shipped model's)")
    p.add_argument("--scene-seed", type=int, default=None,
                   help="seed of the training scenes (default 9001)")
    p.add_argument("--tiny", action="store_true",
                   help="a seconds-long smoke run on a few cards (for CI)")
    p.set_defaults(handler=_train)


def _train(args: argparse.Namespace) -> int:
    import dataclasses
    try:
        from companion import train as T
    except ModuleNotFoundError as e:
        raise UsageError(f"training needs {e.name}: pip install -e '.[train]'") from None
    if args.from_checkpoint:
        try:
            T.export_checkpoint(args.from_checkpoint, args.out or T.TrainConfig.out,
                                _widths(args.widths) if args.widths else None)
        except (OSError, ValueError) as e:
            raise UsageError(str(e)) from None
        return 0
    if args.tiny:
        cfg = T.tiny_config(args.out or Path("models/tiny_classifier.onnx"))
    else:
        cfg = T.TrainConfig(**({"out": args.out} if args.out else {}))
    changes = {}
    if args.minutes is not None:
        if args.minutes <= 0:
            raise UsageError("--minutes must be positive")
        changes["minutes"] = args.minutes
    if args.pool is not None:
        if args.pool < 2 * cfg.batch:
            raise UsageError(f"--pool must be at least {2 * cfg.batch}")
        changes["pool"] = args.pool
    if args.scenes is not None:
        if args.scenes < 0:
            raise UsageError("--scenes must be 0 or more")
        changes["scenes"] = args.scenes
    for name in ("input_px", "max_passes", "threads", "workers", "batch", "stream_capacity",
                 "device_crops"):
        value = getattr(args, name)
        if value is not None:
            if value < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
            changes[name] = value
    if args.max_reuse is not None:
        if not args.max_reuse > 1 or not args.stream_capacity:
            raise UsageError("--max-reuse must be more than 1, with --stream-capacity")
        changes["max_reuse"] = args.max_reuse
    if args.seeds:
        try:
            changes["seeds"] = tuple(int(s) for s in args.seeds.split(","))
        except ValueError:
            raise UsageError(f"--seeds takes integers like 0,1,2, got {args.seeds!r}") from None
    if args.device:
        changes["device"] = args.device
    if args.widths:
        changes["widths"] = _widths(args.widths)
    if args.also_widths:
        changes["also_widths"] = tuple(_widths(w) for w in args.also_widths.split(";"))
    if args.checkpoint:
        changes["checkpoint"] = args.checkpoint
    if args.float:
        changes["quantize"] = False
    if args.init_from:
        if not args.init_from.is_file():
            raise UsageError(f"--init-from {args.init_from}: no such model")
        changes["init_from"] = args.init_from
    if args.hold_embedding is not None:
        if not args.hold_embedding > 0:
            raise UsageError("--hold-embedding must be positive")
        changes["hold_embedding"] = args.hold_embedding
    if args.lr is not None:
        if not args.lr > 0:
            raise UsageError("--lr must be positive")
        changes["lr"] = args.lr
    if args.crop_seed is not None:
        changes["seed"] = args.crop_seed
    if args.scene_seed is not None:
        from companion.train_scenes import EVALUATION_SCENE_SEEDS
        if args.scene_seed in EVALUATION_SCENE_SEEDS:
            raise UsageError(f"--scene-seed {args.scene_seed} renders "
                             f"{EVALUATION_SCENE_SEEDS[args.scene_seed]}: never train on them")
        changes["scene_seed"] = args.scene_seed
    cfg = dataclasses.replace(cfg, **changes)
    try:
        T.train(cfg, log=lambda m: print(m, flush=True))
    except ValueError as e:
        raise UsageError(str(e)) from None
    return 0


def _widths(text: str) -> tuple[int, int, int, int]:
    try:
        widths = tuple(int(w) for w in text.split(","))
    except ValueError:
        widths = ()
    if len(widths) != 4 or min(widths) < 1:
        raise UsageError(f"widths are four positive integers like 16,32,64,128, got {text!r}")
    return widths


# -- identify ------------------------------------------------------------------------------

# Face-up cards a photo must hold for its readings to say whether the model knows the art
# (a table is judged on 60 readings: companion.vision.familiar).
IDENTIFY_MIN_READINGS = 8


def _register_identify(sub) -> None:
    p = sub.add_parser("identify", help="list the cards seen in a still image")
    p.add_argument("image", type=Path)
    p.add_argument("--deck", default=None,
                   help="a deck profile from `companion enroll` (its name or .npz) or a deck kind: "
                        "mughal, dashavatara")
    p.add_argument("--model", type=Path, default=None)
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.set_defaults(handler=_identify)


def _classifier(model: Path | None, deck: str | None):
    from companion.cards import CardIdError, DeckKind
    from companion.vision.classify import DEFAULT_MODEL, CardClassifier, ModelError
    from companion.vision.enroll import ProfileError, find_profile, load_profile
    profile, kind = None, None
    if deck:
        path = find_profile(deck)
        if path.suffix == ".npz" or path.exists():
            try:
                profile = load_profile(path)
            except ProfileError as e:
                raise UsageError(str(e)) from None
        else:
            try:
                kind = DeckKind.parse(deck)
            except CardIdError as e:
                raise UsageError(f"--deck: {e}; or give a profile .npz") from None
    try:
        return CardClassifier(model or DEFAULT_MODEL, deck=kind, profile=profile)
    except ModelError as e:
        raise UsageError(str(e)) from None


def _identify(args: argparse.Namespace) -> int:
    import cv2

    from companion.cards import Card
    from companion.vision.identify import find_cards
    if not args.image.is_file():
        raise UsageError(f"{args.image}: no such image file")
    image = cv2.imread(str(args.image), cv2.IMREAD_COLOR)
    if image is None:
        raise UsageError(f"{args.image}: not an image OpenCV can read")
    clf = _classifier(args.model, args.deck)
    found = find_cards(image)
    res = clf.classify(found.crops)
    if clf.deck is None and len(res):
        # One deck lies on a table: read again with the suits of the deck most cards are from.
        from collections import Counter

        from companion.cards import DeckKind
        from companion.vision.classify import CardClassifier
        decks = Counter(Card.parse(c).deck for c in res.card_ids if c)
        if decks:
            deck: DeckKind = decks.most_common(1)[0][0]
            res = CardClassifier(clf.model_path, deck=deck).classify(found.crops)
    art = None
    if clf.may_not_know_the_art:  # as the pipeline judges a table, on this photo's cards
        from companion.vision.familiar import ArtFamiliarity
        art = ArtFamiliarity(min_readings=IDENTIFY_MIN_READINGS).update(res)
    rows = []
    for i in range(len(res)):
        cid = res.card_ids[i]
        kind = "card" if cid else ("face-down" if res.face_down[i] > res.not_card[i]
                                   else "not a card")
        rows.append({
            "card": cid, "name": Card.parse(cid).name if cid else kind,
            "suit": cid.rpartition("-")[0] if cid else None,
            "rank": cid.rpartition("-")[2] if cid else None,
            "confidence": round(float(res.confidence[i]), 4),
            "position_px": [round(float(v), 1) for v in found.centres_px[i]],
            "position_mm": ([round(float(v), 1) for v in found.centres_mm[i]]
                            if found.centres_mm is not None else None),
            "duplicate": bool(res.duplicates[i]) if len(res.duplicates) else False,
            "candidates": [[c, round(p, 4)] for c, p in res.topk[i]],
        })
    if args.json:
        json.dump({"image": str(args.image), "view": found.view, "cards": rows,
                   "art": art.to_json() if art else None,
                   "timing_ms": {k: round(v, 3) for k, v in res.timing_ms.items()}},
                  sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    print(f"{args.image}: {sum(r['card'] is not None for r in rows)} cards "
          f"({len(rows)} discs, {found.view} view)")
    for r in rows:
        where = r["position_mm"] or r["position_px"]
        unit = "mm" if r["position_mm"] else "px"
        flag = "  DUPLICATE?" if r["duplicate"] else ""
        print(f"  {r['name']:24} {r['confidence']:6.3f}  at ({where[0]:.0f}, {where[1]:.0f}) "
              f"{unit}{flag}")
    if art is not None and not art.familiar:
        print(f"{art.words()}: the names above are guesses; enrol the deck "
              "(companion enroll) and pass its profile as --deck")
    return 0


# -- enroll --------------------------------------------------------------------------------

def _register_enroll(sub) -> None:
    p = sub.add_parser("enroll", help="build a deck profile from one image per card")
    p.add_argument("--deck-dir", type=Path, required=True, help="folder of card images")
    p.add_argument("--manifest", type=Path, default=None,
                   help="CSV with columns file,card (default: DECK_DIR/manifest.csv)")
    p.add_argument("--name", required=True, help="profile name, e.g. mydeck")
    p.add_argument("--out", type=Path, default=None,
                   help="profile path (default: profiles/NAME.npz; --deck NAME finds it)")
    p.add_argument("--model", type=Path, default=None)
    p.set_defaults(handler=_enroll)


def _enroll(args: argparse.Namespace) -> int:
    from companion.vision.classify import (
        DEFAULT_MODEL,
        KNOWN_ART,
        UNKNOWN_ART_BAR,
        CardClassifier,
        ModelError,
    )
    from companion.vision.enroll import PROFILES_DIR, ProfileError, enroll_folder, save_profile
    if not args.deck_dir.is_dir():
        raise UsageError(f"--deck-dir {args.deck_dir}: not a folder")
    try:
        clf = CardClassifier(args.model or DEFAULT_MODEL)
    except ModelError as e:
        raise UsageError(str(e)) from None
    manifest = args.manifest or args.deck_dir / "manifest.csv"
    try:
        profile = enroll_folder(args.deck_dir, manifest, args.name, clf)
    except ProfileError as e:
        raise UsageError(str(e)) from None
    out = args.out or PROFILES_DIR / f"{args.name}.npz"
    save_profile(profile, out)
    back = ("and its back" if profile.back_embeddings is not None else
            "(no back in the manifest: face-down cards are left to the model)")
    print(f"enrolled {len(profile.card_ids)} cards of a {profile.deck.value} deck {back} as "
          f"{args.name!r} -> {out}")
    how = ("the model knows this art: with the profile it picks among look-alike cards, "
           "and the model alone says how sure a reading is"
           if profile.model_agreement >= KNOWN_ART else
           "new art to the model: readings with this profile come from the deck's own images, "
           f"and a card is taken only on readings at least {UNKNOWN_ART_BAR:.0%} sure")
    print(f"the model alone names {profile.model_agreement:.0%} of the enrolled views; {how}")
    return 0
