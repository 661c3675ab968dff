"""Deck enrolment: learn a user's own deck from one image per card, then match against it.

A :class:`DeckProfile` holds, per enrolled card:
- embeddings of several rotated, lightly jittered views of the card (the model's fourth
  head), so nearest-match works at any rotation;
- a rotation-invariant polar template: the disc unrolled into (angle x radius) so a rotation
  is a cyclic shift, matched against a crop by FFT cross-correlation over all shifts;
- the pip count measured by :mod:`companion.vision.cues` (number cards);
and per suit the mean colour signature; and, when the manifest has the deck's back,
embeddings of views of the back, so that a face-down card of a plain-backed deck is not
read as the face it happens to look most like.

The image comparisons themselves (polar templates, re-centring, alignment, local detail
matches) are in :mod:`companion.vision.match`. Recognition scores every (crop, enrolled
card) pair by combining these with the model's suit and rank heads;
:mod:`companion.vision.assign` then gives a frame's crops distinct cards (each card exists
once in a deck) and flags a crop whose best card was taken by a better-matching crop as a
possible duplicate.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.cards import Card, CardIdError, DeckKind, Suit, suits_of
from companion.vision import cues
from companion.vision.crops import CROP_PX, GENTLE, place_card
from companion.vision.match import (
    Region,
    align,
    align_candidates,
    grey,
    polar_similarity_to,
    polar_spectra,
    polar_templates,
    recentre,
)

if TYPE_CHECKING:
    from companion.vision.classify import CardClassifier, HeadOutputs

VIEWS = 12
PROFILE_VERSION = 1


class ProfileError(ValueError):
    """A deck folder, manifest or profile file that cannot be used, with the reason."""


@dataclass(frozen=True)
class Weights:
    """How the evidence adds up into one score per (crop, card); a softmax turns it into p."""

    # Tuned on the PySolFC Mughal deck under camera jitter; the Dashavatara deck is the
    # check that they carry over (docs/benchmarks.md).
    embedding: float = 24.0  # x best cosine similarity among the card's views
    template: float = 20.0  # x best normalised polar correlation
    heads: float = 0.5  # x log p(suit) p(rank) from the model
    pips: float = 0.6  # penalty per emblem of difference (number cards)
    colour: float = 8.0  # x Hellinger distance to the suit's colour signature
    fine: float = 30.0  # x aligned correlation where the suit's cards differ (top suits)
    fine_suits: int = 2  # how many of the best-scoring suits get the fine comparison
    # ... of which a suit whose best card scores this far below the best card is left out
    # (e^-8 of the probability: no detail brings it back). Most crops then compare one
    # suit, not two, which takes a third off the time of reading with a profile.
    fine_margin: float = 8.0
    fine_turns: int = 3  # candidate turns of the crop whose details are each compared
    # How much of the evidence above still counts between the number cards of one suit.
    # It sees the whole card, and two number cards that differ only by a small numeral
    # (PySolFC) differ there mostly by noise: 0.25 of cosine is 6 points, which outvoted
    # the numeral's detail match. Within a suit it keeps 0.3 of its say (and ``fine``
    # went from 60 to 30). With three turns compared: PySolFC Mughal, the tuning deck,
    # 92.5% -> 94.1% right and sure-but-wrong 11 -> 3; Dashavatara, the check, 94.0% ->
    # 94.9% and 11 -> 3; our own art enrolled 99.5% -> 99.7% and 1 -> 0 (576, 720 and
    # 576 crops).
    within: float = 0.3
    # A reading is no surer than the match of the detail that tells its card from the rest
    # of its suit, when that match is below this (a numeral covered by a hand or a
    # neighbour, or misread): on the Mughal tuning set this kept 92% of the sure readings
    # and cut the wrong ones among them from 10 to 3; on Dashavatara, untuned, 21 to 7.
    detail_bar: float = 0.6


# How much nearer the back than any face a crop must be to be read as face down. On the
# real-art films (cosine similarity, back minus best face) face-up crops reach at most
# 0.15-0.19, and their 99th percentile is below 0; face-down crops start at 0.08-0.18 and
# their 1st percentile is 0.20-0.30.
BACK_MARGIN = 0.1


@dataclass(frozen=True)
class DeckProfile:
    name: str
    deck: DeckKind
    card_ids: tuple[str, ...]  # M enrolled cards
    view_embeddings: np.ndarray  # (M * VIEWS, D) float32, card-major
    templates: np.ndarray  # (M, 3, POLAR_ANGLES, POLAR_RADII) float32, normalised
    pips: np.ndarray  # (M,) int: measured emblem count, -1 for court cards
    suit_signatures: dict[str, np.ndarray]  # suit id -> colour signature
    grey: np.ndarray  # (M, 96, 96) float32: each card's disc, turned to its suit's reference
    suit_weights: dict[str, np.ndarray]  # suit id -> (96, 96) where its number cards differ
    weights: Weights = Weights()
    # Share of the enrolment views the model alone names right: near 1 for art it was
    # trained on (our printed deck), a few per cent for PySolFC. See classify.KNOWN_ART.
    model_agreement: float = 0.0
    # Views of the deck's back (VIEWS, D), when it was enrolled: see :meth:`looks_like_back`.
    back_embeddings: np.ndarray | None = None

    def looks_like_back(self, heads: HeadOutputs) -> np.ndarray:
        """(N,) bool: crops nearer the enrolled back than every enrolled face. The model
        learnt backs from our own art; a real deck's plain back (the PySolFC Mughal deck's
        is one brown disc) it can take for a face, and the profile then names a card that
        lies face down (7 "cards" in the stock pile of the dim real-art film)."""
        if self.back_embeddings is None or not len(heads.embedding):
            return np.zeros(len(heads.embedding), bool)
        back = (heads.embedding @ self.back_embeddings.T).max(axis=1)
        return back > (heads.embedding @ self.view_embeddings.T).max(axis=1) + BACK_MARGIN

    def card_probabilities(self, crops: np.ndarray, heads: HeadOutputs
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(ids (M,), probabilities (N, M), detail (N, M)) over the enrolled cards for each
        crop; ``detail`` is how well the card's telling region matched (-1: not compared)."""
        s, detail = self.scores(crops, heads)
        return np.array(self.card_ids), _softmax(s), detail

    def scores(self, crops: np.ndarray, heads: HeadOutputs) -> tuple[np.ndarray, np.ndarray]:
        """(score (N, M), detail match (N, M), -1 for cards outside the compared suits)."""
        w = self.weights
        m = len(self.card_ids)
        n = len(crops)
        detail = np.full((n, m), -1.0, np.float32)
        if n == 0:
            return np.zeros((0, m), np.float32), detail
        crops = np.stack([recentre(c) for c in crops])
        emb = heads.embedding @ self.view_embeddings.T  # (N, M * V)
        s = w.embedding * emb.reshape(n, m, -1).max(axis=2)
        s += w.template * polar_similarity_to(polar_templates(crops), self._polar_spectra)
        s += w.heads * np.log(np.clip(self.model_probabilities(heads), 1e-6, 1.0))
        counts = np.array([cues.pip_count(c) for c in crops])
        diff = np.abs(counts[:, None] - self.pips[None, :])
        s -= w.pips * np.where(self._is_number[None, :], np.minimum(diff, 4), 0)
        sigs = np.stack([cues.colour_signature(c) for c in crops])
        s -= w.colour * cues.signature_distance(sigs[:, None, :], self._suit_sigs[None, :, :])
        for numbers in self._number_cards:  # see Weights.within
            top = s[:, numbers].max(axis=1, keepdims=True)
            s[:, numbers] = top + w.within * (s[:, numbers] - top)
        if w.fine:
            fine, detail = self._fine(crops, s, self._card_suits)
            s += w.fine * fine
        else:  # no detail compared: nothing to hold a reading back
            detail[:] = 1.0
        return s.astype(np.float32), detail

    def _fine(self, crops: np.ndarray, coarse: np.ndarray, suits: list[str]
              ) -> tuple[np.ndarray, np.ndarray]:
        """Aligned comparison with every card of the best suits, weighted to where they differ.

        Cards of one suit often share everything but a numeral or the pip count; this turns
        the crop to the suit's reference card, centres it, and correlates it with each card
        of the suit, mostly over the pixels where that suit's cards differ from each other.
        Cards outside the best suits get the lowest fine score of the crop. Returns (fine
        score relative to the best compared card of its kind, see :attr:`_is_number`; the
        match itself, -1 where not compared).
        """
        n, m = coarse.shape
        fine = np.zeros((n, m), np.float32)
        detail = np.full((n, m), -1.0, np.float32)
        q_grey = [grey(c) for c in crops]
        for i in range(n):
            order = np.argsort(-coarse[i])
            best_suits: list[str] = []
            for j in order:
                if coarse[i, j] < coarse[i, order[0]] - self.weights.fine_margin:
                    break
                if suits[j] not in best_suits:
                    best_suits.append(suits[j])
                if len(best_suits) == self.weights.fine_suits:
                    break
            got = np.zeros(m, bool)
            for su in best_suits:
                members, ref, region = self._suits[su]
                detail[i, members] = self._turned_matches(q_grey[i], ref, region)
                got[members] = True
                courts = self._courts[su]  # each card relative to the best of its kind
                if len(courts):
                    fine[i, courts] = detail[i, courts] - detail[i, courts].max()
            numbers = got & self._is_number
            if numbers.any():
                fine[i, numbers] = detail[i, numbers] - detail[i, numbers].max()
            fine[i, ~got] = fine[i, got].min() if got.any() else 0.0
        return fine, detail

    def _turned_matches(self, query: np.ndarray, ref: int, region: Region) -> np.ndarray:
        """The detail match of each card of a suit, at the best of the crop's candidate turns.

        Emblems that look alike half a turn (or a quarter) apart can leave the whole-image
        alignment on the wrong turn, with the numeral then compared against blank rim. On
        PySolFC Mughal, comparing the numeral at each of three turns read 542 of 576 cards
        right against 535 at the best-aligned turn alone.
        """
        turns = align_candidates(query, self.grey[ref], self.weights.fine_turns)
        return np.max([region.matches(a) for a in turns], axis=0)

    @cached_property
    def _polar_spectra(self) -> np.ndarray:
        return polar_spectra(self.templates)  # the same for every crop read

    @cached_property
    def _suits(self) -> dict[str, tuple[np.ndarray, int, Region]]:
        """Per suit: its cards' indices, its reference card, and the region where its
        number cards differ, ready to match (the same for every crop)."""
        suits = np.array(self._card_suits)
        out = {}
        for su in dict.fromkeys(suits):
            members = np.flatnonzero(suits == su)
            region = Region.of(self.grey[members], _box(self.suit_weights[su]))
            out[su] = (members, int(members[0]), region)
        return out

    @cached_property
    def _is_number(self) -> np.ndarray:
        """(M,) bool: the number cards; the others are courts.

        The fine comparison ranks number cards against every compared number card, and a
        court against its suit's courts; a number card or a court is the coarse evidence's
        call. A suit's numeral box held against a court matches a blank field or a figure's
        edge about as well as a half-seen numeral: PySolFC Mughal crops of a Barat 4 (its
        "4" in plain view) and of a Barat 1 were read as the Barat raja, though the whole
        card (an emblem, not a figure) favoured a number card. Number cards are compared
        across suits because a crop turned onto another suit's emblem puts its numeral in
        the wrong place: a Rama 1 under a warm light, whose colour looked like Balarama's,
        matched the Rama 1's numeral at 0.96 and no Balarama number card above 0.37.
        Courts are not, since a deck draws one court figure on every suit's colour."""
        return self.pips >= 0

    @cached_property
    def _courts(self) -> dict[str, np.ndarray]:
        """Per suit, its court cards' indices."""
        return {su: members[~self._is_number[members]]
                for su, (members, *_) in self._suits.items()}

    @cached_property
    def _number_cards(self) -> list[np.ndarray]:
        """Per suit with number cards, their indices."""
        groups = [members[self._is_number[members]] for members, *_ in self._suits.values()]
        return [g for g in groups if len(g)]

    @cached_property
    def _card_suits(self) -> list[str]:
        return [cid.rpartition("-")[0] for cid in self.card_ids]

    @cached_property
    def _suit_sigs(self) -> np.ndarray:
        """(M, H): each enrolled card's suit colour signature."""
        return np.stack([self.suit_signatures[su] for su in self._card_suits])

    def model_probabilities(self, heads: HeadOutputs) -> np.ndarray:
        """(N, M) the model's own p(suit) * p(rank) of each enrolled card."""
        suit_idx, rank_idx = self._head_index
        return heads.suit[:, suit_idx] * heads.rank[:, rank_idx]

    @cached_property
    def _head_index(self) -> tuple[np.ndarray, np.ndarray]:
        """Each enrolled card's column in the model's suit and rank heads."""
        suits = [s.value for s in Suit]
        cards = [Card.parse(c) for c in self.card_ids]
        return (np.array([suits.index(c.suit.value) for c in cards]),
                np.array([int(c.rank) - 1 for c in cards]))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def _disc(n: int = CROP_PX, frac: float = 0.92) -> np.ndarray:
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) - (n - 1) / 2
    return (np.hypot(xx, yy) <= frac * n / 2).astype(np.float32)


_DISC = _disc()


def _box(weights: np.ndarray, pad: int = 2) -> tuple[int, int, int, int]:
    """(y0, y1, x0, x1) around where a suit's cards differ most."""
    ys, xs = np.nonzero(weights > 0.3 * weights.max())
    n = weights.shape[0]
    return (max(0, ys.min() - pad), min(n, ys.max() + 1 + pad),
            max(0, xs.min() - pad), min(n, xs.max() + 1 + pad))


def _suit_references(ids: tuple[str, ...], greys: np.ndarray
                     ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Each card turned to its suit's first card, and per suit a weight map that is high
    where the suit's number cards differ (and a little everywhere on the disc)."""
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
            std = out[numbers].std(axis=0)
            std = cv2.GaussianBlur(std, (0, 0), 2.0)
            wmap = np.clip(std / (0.35 * std.max() + 1e-6), 0.0, 1.0)
        else:
            wmap = np.ones_like(ref)
        weights[su] = ((0.002 + wmap) * _DISC).astype(np.float32)
    return out, weights


# -- building a profile --------------------------------------------------------------------

def card_crop(image: np.ndarray) -> np.ndarray:
    """A 96x96 BGR crop of the one card in ``image`` (BGRA with transparency, or BGR)."""
    if image.ndim == 3 and image.shape[2] == 4:
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
                  seed: int = 0, back: np.ndarray | None = None) -> DeckProfile:
    """A profile from one image per card id (BGRA face or BGR photo), and of the deck's
    back when given."""
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
    ids = tuple(c.id for c in cards)
    crops = np.stack([card_crop(images[cid]) for cid in ids])
    views = []
    for cid in ids:
        face = _as_face(images[cid])
        views.extend(place_card(face, rng, GENTLE) for _ in range(VIEWS))
    heads, _ = classifier.heads(np.stack(views))
    agreement = _model_agreement(classifier, heads, np.repeat(ids, VIEWS), decks)
    pips = np.array([cues.pip_count(c) if not Card.parse(cid).rank.is_face else -1
                     for c, cid in zip(crops, ids)])
    sigs: dict[str, list[np.ndarray]] = {}
    for c, card in zip(crops, cards):
        sigs.setdefault(card.suit.value, []).append(cues.colour_signature(c))
    turned, suit_weights = _suit_references(ids, np.stack([grey(c) for c in crops]))
    back_emb = None
    if back is not None:
        face = _as_face(back)
        back_emb = classifier.heads(np.stack([place_card(face, rng, GENTLE)
                                              for _ in range(VIEWS)]))[0].embedding
    return DeckProfile(name=name, deck=decks.pop(), card_ids=ids,
                       view_embeddings=heads.embedding.astype(np.float32),
                       templates=polar_templates(crops), pips=pips,
                       suit_signatures={k: np.mean(v, axis=0) for k, v in sigs.items()},
                       grey=turned, suit_weights=suit_weights, model_agreement=agreement,
                       back_embeddings=back_emb)


def _model_agreement(classifier: CardClassifier, heads: HeadOutputs, truth: np.ndarray,
                     decks: set[DeckKind]) -> float:
    """The share of views whose card the model alone names (within the deck's suits)."""
    allowed = {s.value for d in decks for s in suits_of(d)}
    suits = [s.value for s in classifier.suits]
    suit_p = np.where([s in allowed for s in suits], heads.suit, -1.0)
    named = [Card(classifier.suits[s], classifier.ranks[r]).id
             for s, r in zip(suit_p.argmax(axis=1), heads.rank.argmax(axis=1))]
    return float(np.mean([n == t for n, t in zip(named, truth)]))


def _as_face(image: np.ndarray) -> np.ndarray:
    """A BGRA round face for the view generator: photos get a circular alpha."""
    crop = card_crop(image)
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
            "model_agreement": profile.model_agreement}
    np.savez_compressed(
        path, meta=np.array(json.dumps(meta)), view_embeddings=profile.view_embeddings,
        templates=profile.templates.astype(np.float16), pips=profile.pips,
        suit_signatures=np.stack([profile.suit_signatures[s] for s in meta["suits"]]),
        grey=profile.grey.astype(np.float16),
        suit_weights=np.stack([profile.suit_weights[s] for s in meta["suits"]]).astype(
            np.float16),
        **({} if profile.back_embeddings is None else
           {"back_embeddings": profile.back_embeddings}))


def load_profile(path: Path) -> DeckProfile:
    if not path.is_file():
        raise ProfileError(f"deck profile {path} not found (make one with `companion enroll`)")
    try:
        z = np.load(path, allow_pickle=False)
        meta = json.loads(str(z["meta"]))
        if meta.get("version") != PROFILE_VERSION:
            raise ProfileError(f"{path}: profile version {meta.get('version')}, this code "
                               f"reads {PROFILE_VERSION}; enrol the deck again")
        return DeckProfile(
            name=meta["name"], deck=DeckKind.parse(meta["deck"]),
            card_ids=tuple(meta["card_ids"]),
            view_embeddings=z["view_embeddings"].astype(np.float32),
            templates=z["templates"].astype(np.float32), pips=z["pips"].astype(int),
            suit_signatures=dict(zip(meta["suits"], z["suit_signatures"].astype(np.float32))),
            grey=z["grey"].astype(np.float32),
            suit_weights=dict(zip(meta["suits"], z["suit_weights"].astype(np.float32))),
            model_agreement=float(meta.get("model_agreement", 0.0)),
            back_embeddings=(z["back_embeddings"].astype(np.float32)
                             if "back_embeddings" in z.files else None))
    except (OSError, KeyError, ValueError) as e:
        if isinstance(e, ProfileError):
            raise
        raise ProfileError(f"{path}: not a deck profile ({e})") from None
