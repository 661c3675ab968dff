"""Deck enrolment: learn a user's own deck from one image per card, and keep it on disk.

The :class:`~companion.vision.deck_profile.DeckProfile` it builds holds, per enrolled card:
- embeddings of several rotated, lightly jittered views of the card (the model's fourth
  head), so nearest-match works at any rotation;
- a rotation-invariant polar template: the disc unrolled into (angle x radius) so a rotation
  is a cyclic shift, matched against a crop by FFT cross-correlation over all shifts;
- the pip count measured by :mod:`companion.vision.cues` (number cards);
and per suit the mean colour signature; and, when the manifest has the deck's back,
embeddings of views of the back, so that a face-down card of a plain-backed deck is not
read as the face it happens to look most like. How a crop is read against it is in
:mod:`companion.vision.deck_profile`.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.cards import Card, CardIdError, DeckKind, suits_of
from companion.vision import cues
from companion.vision.crops import CROP_PX, GENTLE, place_card
from companion.vision.deck_profile import DeckProfile
from companion.vision.match import (
    align,
    align_colour,
    disc_correlation,
    grey,
    polar_templates,
)

if TYPE_CHECKING:
    from companion.vision.classify import CardClassifier, HeadOutputs

VIEWS = 12
PROFILE_VERSION = 1
# Where ``companion enroll --name NAME`` saves a profile (NAME.npz), relative to where it runs
PROFILES_DIR = Path("profiles")
# A live enrolment crop less sharp than this (cues.sharpness) is marked as blurred, to be
# scanned again: about the median of the cards in rendered table scenes. A PySolFC Mughal
# deck enrolled from scans as they came named 135 of 308 scene cards right first; with its
# blurred cards scanned again, 206 (bench_live_enrolment.py).
SHARP_ENOUGH = 0.06


class ProfileError(ValueError):
    """A deck folder, manifest or profile file that cannot be used, with the reason."""


def _disc(n: int = CROP_PX, frac: float = 0.92) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - (n - 1) / 2
    return (np.hypot(xx, yy) <= frac * n / 2).astype(np.float32)


_DISC = _disc()
# Camera crops: where a suit's cards differ is looked for inside this smaller disc. The
# rim's misregistration from card to card draws arcs of spread at the rim, and inside 0.92
# such an arc outweighed the numeral (which PySolFC prints at the rim) for 4 of the 10
# Dashavatara suits when their pictures lay with the numeral toward a corner. The same
# camera pictures of that deck read 153 of 308 scene cards right as laid (any turn) and
# 217 turned upright; inside 0.84, 205 and 221 (Mughal: 135 and 186, now 189 and 200), and
# as laid the wrong sure readings went from 21 to 8 (Mughal 39 to 20; docs/benchmarks.md).
_RIMLESS = _disc(frac=0.84)
_RIM_INSIDE = _RIMLESS > 0


def _references_first(ids: tuple[str, ...], greys: dict[str, np.ndarray], cut: bool
                      ) -> tuple[str, ...]:
    """``ids`` grouped by suit, each suit's reference card first: every card of the suit is
    turned onto it at enrolment, and every crop read as one of them at play
    (``DeckProfile._suits``). It is a number card: number cards turned onto a court's
    figure do not line up, and the region where they differ then falls on the emblem.

    Pictures (``cut`` False) line up anyway; the first number card given is kept (with the
    one most like the others, 51 rather than 54+ of 60 PySolFC Mughal crops were sure).
    Camera crops come in the order the players named them, each with its own few pixels of
    centring error and blur: the reference is the number card that the suit's other number
    cards match best once turned onto it (the median correlation inside the rim). A PySolFC
    Dashavatara deck learnt from one game's answers, where the first card named of a suit
    was often the court that led a trick, named 178 of 308 scene cards right first with the
    first card named as the reference, 198 with the first number card, and 238 with this
    (bench_live_enrolment.py --learnt). Scanned on the Enrol page, 245 and 255 of 308
    (at any turn and upright) became 250 and 253."""
    by_suit: dict[str, list[str]] = {}
    for cid in ids:
        by_suit.setdefault(cid.rpartition("-")[0], []).append(cid)
    ref_of = {}
    for su, members in by_suit.items():
        numbers = [c for c in members if not Card.parse(c).rank.is_face]
        ref_of[su] = numbers[0] if numbers else members[0]
        if cut and len(numbers) > 2:
            ref_of[su] = max(numbers, key=lambda r: float(np.median(
                [disc_correlation(align(greys[q], greys[r]), greys[r], _RIM_INSIDE)
                 for q in numbers if q != r])))
    # each reference just before its suit's first card, the rest as given: a manifest that
    # starts each suit with its 1 gives the profile it gave before
    return tuple(dict.fromkeys(c for cid in ids for c in (ref_of[cid.rpartition("-")[0]], cid)))


def _suit_references(ids: tuple[str, ...], greys: np.ndarray, cut: bool = False
                     ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each card turned to its suit's first card, and per suit a weight map that is high
    where the suit's number cards differ (and a little everywhere on the disc).

    ``cut``: the cards are camera crops (live enrolment), each scanned under its own blur
    and with its own few pixels of centring error. The spread of the suit's number cards
    is then taken robustly (the median deviation, so that one blurred scan does not count
    as a difference), and only its strongest patch is kept, since the rim's misregistration
    draws a ring of spread around every disc. With the plain spread the region was the whole
    disc in every suit of a live-enrolled PySolFC deck, and numerals were not compared."""
    suits = [cid.rpartition("-")[0] for cid in ids]
    out = greys.copy()
    weights: dict[str, np.ndarray] = {}
    for su in dict.fromkeys(suits):
        members = [j for j, s in enumerate(suits) if s == su]
        ref = greys[members[0]]
        for j in members[1:]:
            out[j] = align(greys[j], ref)
        # Number cards of a suit often differ only in a numeral or in their pips: the
        # weight map (and the fine comparison) looks there.
        numbers = [j for j in members if not Card.parse(ids[j]).rank.is_face]
        if len(numbers) >= 2:
            spread = _robust_spread(out[numbers]) if cut else out[numbers].std(axis=0)
            spread = cv2.GaussianBlur(spread, (0, 0), 2.0)
            if cut:
                spread = _strongest_patch(spread * _RIMLESS)
            wmap = np.clip(spread / (0.35 * spread.max() + 1e-6), 0.0, 1.0)
        else:
            wmap = np.ones_like(ref)
        weights[su] = ((0.002 + wmap) * (_RIMLESS if cut else _DISC)).astype(np.float32)
    return out, weights


def _robust_spread(stack: np.ndarray) -> np.ndarray:
    """Per pixel, the median absolute deviation over the images of ``stack``."""
    return np.median(np.abs(stack - np.median(stack, axis=0)), axis=0)


def _strongest_patch(spread: np.ndarray) -> np.ndarray:
    """``spread`` kept only on its connected region above half its peak that holds the peak."""
    labels = cv2.connectedComponents((spread > 0.5 * spread.max()).astype(np.uint8))[1]
    return np.where(labels == labels.flat[int(np.argmax(spread))], spread, 0.0)


# -- building a profile --------------------------------------------------------------------

def card_crop(image: np.ndarray, cut: bool = False) -> np.ndarray:
    """A 96x96 BGR crop of the one card in ``image`` (BGRA with transparency, or BGR).

    ``cut``: a BGR ``image`` is a crop the detector cut (the card's disc spans the square,
    as live enrolment keeps them), used as it is. Searched for the largest circle like a
    photo, 59 of 96 such crops of a PySolFC deck were cut again inside the card, at the
    rim's inner line or around the emblem: the profile learnt those cards at another size
    than the detector cuts them at play (bench_live_enrolment.py)."""
    if cut and image.ndim == 3 and image.shape[2] == 3:
        bgr = image
    elif image.ndim == 3 and image.shape[2] == 4:
        ys, xs = np.nonzero(image[..., 3] > 127)
        if len(xs) == 0:
            raise ProfileError("the image is fully transparent")
        x0, x1, y0, y1 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        face = image[y0:y1, x0:x1]
        a = face[..., 3:4].astype(np.float32) / 255
        grey = np.full(face.shape[:2] + (3,), 128, np.float32)
        bgr = (face[..., :3] * a + grey * (1 - a)).astype(np.uint8)
    elif image.ndim == 3 and image.shape[2] == 3:
        bgr = _largest_disc(image)
    else:
        raise ProfileError(f"expected a colour image, got shape {image.shape}")
    return cv2.resize(bgr, (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA)


def _largest_disc(image: np.ndarray) -> np.ndarray:
    """The square around the largest circle in a photo of one card (else the centre square)."""
    h, w = image.shape[:2]
    grey = cv2.medianBlur(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), 5)
    circles = cv2.HoughCircles(grey, cv2.HOUGH_GRADIENT, 1.5, min(h, w) / 2, param1=120,
                               param2=40, minRadius=int(min(h, w) * 0.25),
                               maxRadius=int(min(h, w) * 0.55))
    if circles is not None:
        x, y, r = max(circles[0], key=lambda c: c[2])
        x0, y0 = int(max(0, x - r)), int(max(0, y - r))
        x1, y1 = int(min(w, x + r)), int(min(h, y + r))
        if x1 - x0 > 8 and y1 - y0 > 8:
            return image[y0:y1, x0:x1]
    s = min(h, w)
    return image[(h - s) // 2:(h - s) // 2 + s, (w - s) // 2:(w - s) // 2 + s]


def enroll_images(images: dict[str, np.ndarray], name: str, classifier: CardClassifier,
                  seed: int = 0, back: np.ndarray | None = None, cut: bool = False
                  ) -> DeckProfile:
    """A profile from one image per card id (BGRA face or BGR photo), and of the deck's
    back when given. ``cut``: the BGR images are crops the detector cut from the camera's
    frames (live enrolment), not photos (:func:`card_crop`)."""
    if not images:
        raise ProfileError("no card images to enrol")
    cards = []
    for cid in images:
        try:
            cards.append(Card.parse(cid))
        except CardIdError as e:
            raise ProfileError(str(e)) from None
    decks = {c.deck for c in cards}
    if len(decks) != 1:
        raise ProfileError(f"a profile is one deck; these cards mix {sorted(d.value for d in decks)}")
    if len(set(cards)) != len(cards):
        raise ProfileError("a card appears twice in the manifest")
    rng = np.random.default_rng(seed)
    crop_of = {c.id: card_crop(images[c.id], cut) for c in cards}
    grey_of = {cid: grey(c) for cid, c in crop_of.items()}
    ids = _references_first(tuple(crop_of), grey_of, cut)
    crops = np.stack([crop_of[cid] for cid in ids])
    views = []
    for cid in ids:
        face = _as_face(images[cid], cut)
        views.extend(place_card(face, rng, GENTLE) for _ in range(VIEWS))
    heads, _ = classifier.heads(np.stack(views))
    agreement = _model_agreement(classifier, heads, np.repeat(ids, VIEWS), decks)
    pips = np.array([cues.pip_count(c) if not Card.parse(cid).rank.is_face else -1
                     for c, cid in zip(crops, ids)])
    sigs: dict[str, list[np.ndarray]] = {}
    for c, card in zip(crops, cards):
        sigs.setdefault(card.suit.value, []).append(cues.colour_signature(c))
    turned, suit_weights = _suit_references(ids, np.stack([grey_of[c] for c in ids]), cut)
    back_emb = None
    if back is not None:
        face = _as_face(back, cut)
        back_emb = classifier.heads(np.stack([place_card(face, rng, GENTLE)
                                              for _ in range(VIEWS)]))[0].embedding
    return DeckProfile(name=name, deck=decks.pop(), card_ids=ids,
                       view_embeddings=heads.embedding.astype(np.float32),
                       templates=polar_templates(crops), pips=pips,
                       suit_signatures={k: np.mean(v, axis=0) for k, v in sigs.items()},
                       grey=turned, suit_weights=suit_weights, model_agreement=agreement,
                       back_embeddings=back_emb, model=classifier.fingerprint, from_camera=cut,
                       pictures=crops if cut else None,
                       back_picture=card_crop(back, cut) if cut and back is not None else None,
                       court_pictures=_courts_turned(ids, crops))


def _courts_turned(ids: tuple[str, ...], crops: np.ndarray) -> np.ndarray:
    """The court cards' crops in ``ids`` order, each turned onto the first court of its
    rank, so that one alignment of a camera crop compares it with all of them
    (DeckProfile._court_grounds). A crop that matches the first as it lies stays as it
    lies: a figure on a ground as pale as its lightest colours (the PySolFC Balarama raja)
    has little grey contrast to align by, and pictures of a deck line up already."""
    courts = [j for j, cid in enumerate(ids) if Card.parse(cid).rank.is_face]
    first: dict[str, np.ndarray] = {}
    out = []
    for j in courts:
        rank = ids[j].rpartition("-")[2]
        if rank not in first:
            first[rank] = grey(crops[j])
            out.append(crops[j])
            continue
        ref, turned = first[rank], align_colour(crops[j], first[rank])
        keep = (disc_correlation(grey(crops[j]), ref, _RIM_INSIDE)
                >= disc_correlation(grey(turned), ref, _RIM_INSIDE))
        out.append(crops[j] if keep else turned)
    return np.stack(out) if out else np.zeros((0,) + crops.shape[1:], np.uint8)


def _model_agreement(classifier: CardClassifier, heads: HeadOutputs, truth: np.ndarray,
                     decks: set[DeckKind]) -> float:
    """The share of views whose card the model alone names (within the deck's suits)."""
    allowed = {s.value for d in decks for s in suits_of(d)}
    suits = [s.value for s in classifier.suits]
    suit_p = np.where([s in allowed for s in suits], heads.suit, -1.0)
    named = [Card(classifier.suits[s], classifier.ranks[r]).id
             for s, r in zip(suit_p.argmax(axis=1), heads.rank.argmax(axis=1))]
    return float(np.mean([n == t for n, t in zip(named, truth)]))


def _as_face(image: np.ndarray, cut: bool = False) -> np.ndarray:
    """A BGRA round face for the view generator: photos get a circular alpha."""
    crop = card_crop(image, cut)
    alpha = np.zeros(crop.shape[:2], np.uint8)
    cv2.circle(alpha, (CROP_PX * 8, CROP_PX * 8), (CROP_PX // 2) * 16, 255, -1, cv2.LINE_AA, 4)
    if image.ndim == 3 and image.shape[2] == 4:
        a = cv2.resize(image[..., 3], (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA)
        alpha = np.minimum(alpha, a)
    return np.dstack([crop, alpha])


def read_manifest(manifest: Path) -> list[tuple[str, str]]:
    if not manifest.is_file():
        raise ProfileError(f"manifest {manifest} not found (a CSV with columns file,card)")
    with manifest.open(newline="") as fh:
        reader = csv.DictReader(fh)
        if not reader.fieldnames or {"file", "card"} - set(reader.fieldnames):
            raise ProfileError(f"{manifest}: expected columns file,card, got {reader.fieldnames}")
        return [(r["file"].strip(), r["card"].strip()) for r in reader]


def enroll_folder(deck_dir: Path, manifest: Path, name: str,
                  classifier: CardClassifier) -> DeckProfile:
    """`companion enroll`: one image per card, and the back's when the manifest has it."""
    if not deck_dir.is_dir():
        raise ProfileError(f"{deck_dir}: not a folder")
    images = {}
    for file, cid in read_manifest(manifest):
        path = deck_dir / file
        img = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise ProfileError(f"{path}: missing or not an image")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
        images[cid] = img
    back = images.pop("back", None)
    return enroll_images(images, name, classifier, back=back)


def save_profile(profile: DeckProfile, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"version": PROFILE_VERSION, "name": profile.name, "deck": profile.deck.value,
            "card_ids": list(profile.card_ids), "views": VIEWS,
            "suits": sorted(profile.suit_signatures),
            "model_agreement": profile.model_agreement, "model": profile.model,
            "from_camera": profile.from_camera}
    # written whole, then put in place: a profile added to replaces one in use
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(
        tmp, meta=np.array(json.dumps(meta)), view_embeddings=profile.view_embeddings,
        templates=profile.templates.astype(np.float16), pips=profile.pips,
        suit_signatures=np.stack([profile.suit_signatures[s] for s in meta["suits"]]),
        grey=profile.grey.astype(np.float16),
        suit_weights=np.stack([profile.suit_weights[s] for s in meta["suits"]]).astype(
            np.float16),
        **({} if profile.back_embeddings is None else
           {"back_embeddings": profile.back_embeddings}),
        **{k: v for k, v in (("pictures", profile.pictures),
                             ("back_picture", profile.back_picture),
                             ("court_pictures", profile.court_pictures)) if v is not None})
    tmp.replace(path)


def find_profile(name: str | Path) -> Path:
    """A profile's path from the command line: ``name`` itself, or, where no such file is,
    the profile ``companion enroll --name NAME`` saved (``PROFILES_DIR/NAME.npz``)."""
    path, saved = Path(name), PROFILES_DIR / f"{name}.npz"
    return saved if not path.exists() and path.suffix != ".npz" and saved.is_file() else path


def load_profile(path: str | Path) -> DeckProfile:
    path = Path(path)
    if not path.is_file():
        raise ProfileError(f"deck profile {path} not found (make one with `companion enroll`)")
    try:
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        if meta.get("version") != PROFILE_VERSION:
            raise ProfileError(f"{path}: profile version {meta.get('version')}, this code "
                               f"reads {PROFILE_VERSION}; enrol the deck again")
        card_ids = tuple(meta["card_ids"])
        pictures = z["pictures"] if "pictures" in z.files else None
        if "court_pictures" in z.files:
            courts = z["court_pictures"]
        else:  # saved before they were kept: a camera profile's own crops give them
            courts = None if pictures is None else _courts_turned(card_ids, pictures)
        return DeckProfile(
            name=meta["name"], deck=DeckKind.parse(meta["deck"]), card_ids=card_ids,
            view_embeddings=z["view_embeddings"].astype(np.float32),
            templates=z["templates"].astype(np.float32), pips=z["pips"].astype(int),
            suit_signatures=dict(zip(meta["suits"], z["suit_signatures"].astype(np.float32))),
            grey=z["grey"].astype(np.float32),
            suit_weights=dict(zip(meta["suits"], z["suit_weights"].astype(np.float32))),
            model_agreement=float(meta.get("model_agreement", 0.0)),
            back_embeddings=(z["back_embeddings"].astype(np.float32)
                             if "back_embeddings" in z.files else None),
            model=str(meta.get("model", "")), from_camera=bool(meta.get("from_camera", False)),
            pictures=pictures,
            back_picture=z["back_picture"] if "back_picture" in z.files else None,
            court_pictures=courts)
    except (OSError, KeyError, ValueError) as e:
        if isinstance(e, ProfileError):
            raise
        raise ProfileError(f"{path}: not a deck profile ({e})") from None
