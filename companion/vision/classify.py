"""Classification stage: a batch of card crops -> card ids, confidences, face-down, embeddings.

One onnxruntime session runs the shipped model (``models/card_classifier.onnx``) on all the
crops of a frame at once. The model has four heads: suit (18 suits, restricted to the deck
in play by a mask), rank (12), kind (card / face-down / not a card) and an embedding. A
card's probability is p(suit) * p(rank); the top three such products are the candidates the
tracker shows when it is unsure.

With a :class:`~companion.vision.deck_profile.DeckProfile` the reading changes to the user's own
deck: nearest-match over the profile's embeddings and rotation-invariant templates, the
deck-independent cues (pip count, colour), and the model heads, combined per card.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from companion.cards import Card, DeckKind, Rank, Suit, suits_of
from companion.vision.cores import HALF_THE_CORES, one_blas_thread
from companion.vision.model_card import (
    ModelError,
    ProfileModelError,
    fingerprint,
    load_model_card,
)

if TYPE_CHECKING:
    from companion.vision.deck_profile import DeckProfile

INPUT_PX = 64
CROP_PX = 96
# A first reading below this is read again turned. At 0.95 the fixture scenes' cards are read
# as surely as with four turns for all (no more accepted wrong), and 0.34 of them only once.
REREAD_BELOW = 0.95
# Readings listed per crop, and by the tracker's unsure events. The referee offers the
# players the first three the game allows, and leaves out the weight of those already
# played (referee.elimination): with five, not three, the real-art Ganjifa film asked 33
# questions, not 37.
TOP_K = 5
# The served pipeline reads one frame while its other half sees the next (Pipeline.stream),
# so the model has half the cores: one on a 2-core laptop (its threads, where it has more
# than one, do not spin between calls, see CardClassifier).
THREADS = HALF_THE_CORES
# A doubtful card lying still is read again on every frame: at this many quarter turns a
# frame (two frames make all four). At 1 the fixture Ganjifa film asked 10 questions, not 8.
TURNS_AGAIN = 2
# The model alone this sure of a card holds back an enrolled reading that names another.
# Zero-shot on the PySolFC decks the model is this sure of 8 / 0 crops in 576 / 720.
MODEL_OVERRULES = 0.8
# A profile whose enrolment views the model alone names this well is of a deck the model
# knows (our printed deck). The card is then the one both the profile and the model find
# likely (their product), and the model says how sure. The profile's pip and detail
# comparisons, made for art the model never saw, misread our own art under a tilted
# camera: on 100 fixture scenes each read with its own deck enrolled (420 cards), the
# profile alone named 93.6% right, the model alone 96.9%, the two together 97.1%.
KNOWN_ART = 0.9
# With a profile of art the model does not know, a card is taken only on readings this sure.
# The real-art films' sure-but-wrong cards were read at 0.82-0.85 (a numeral off by one
# under blur); at this bar the Kendra Kari film names no wrong card (2 at the tracker's 0.8).
UNKNOWN_ART_BAR = 0.9
# A profile of art the model does not know, enrolled from the camera's own crops, names no
# card by itself: every reading is put to the players, its best guesses first. In such a
# crop a PySolFC numeral is about 5 px high, and of the readings such a profile made at least
# 0.99 sure, 0-3 in 27-43 were wrong (bench_live_enrolment.py); the same decks enrolled from
# pictures of their cards were wrong once in 303 readings at 0.9.
ALWAYS_ASK = 1.001  # above any probability
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "card_classifier.onnx"


class CropError(ValueError):
    """Crops that are not an (N, H, W, 3) uint8 BGR batch."""


def preprocess(crops: np.ndarray, size: int = INPUT_PX) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR crops -> (N, 3, size, size) float32 in 0..255, as the model
    wants (``size`` is the model card's input size)."""
    crops = np.asarray(crops)
    if crops.ndim != 4 or crops.shape[3] != 3 or crops.dtype != np.uint8:
        raise CropError(f"crops must be an (N, H, W, 3) uint8 BGR array, got shape "
                        f"{crops.shape} dtype {crops.dtype}")
    n, h, w = crops.shape[:3]
    if (h, w) == (size, size):
        out = crops
    elif n and (h, w) == (CROP_PX, CROP_PX):
        # One resize of the crops stacked as a tall image: 96 -> 64 maps crop borders onto
        # output rows exactly, so area averaging never mixes two crops, and it is one call.
        # (The colour planes stacked as one grey image measured faster on one 2-core box
        # and 45% slower on another, an AMD EPYC: docs/benchmarks.md.)
        tall = cv2.resize(crops.reshape(n * h, w, 3), (size, n * size),
                          interpolation=cv2.INTER_AREA)
        out = tall.reshape(n, size, size, 3)
    else:
        out = np.empty((n, size, size, 3), np.uint8)
        for i in range(n):
            out[i] = cv2.resize(crops[i], (size, size), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(out.transpose(0, 3, 1, 2), dtype=np.float32)


@dataclass(frozen=True)
class Classifications:
    """Parallel arrays, one entry per crop; ``card_ids[i]`` is None for face-down/not a card."""

    card_ids: list[str | None]
    confidence: np.ndarray  # float32 (N,): probability of the reported card (or of the kind)
    face_down: np.ndarray  # float32 (N,)
    not_card: np.ndarray  # float32 (N,)
    topk: list[list[tuple[str, float]]]
    # float32 (N, D); empty when a stand-in (a test oracle) has no embedding to give
    embeddings: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    duplicates: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # (N,) bool
    timing_ms: dict[str, float] = field(default_factory=dict)
    # (N,) bool: False for a reading that is no new evidence for the tracker's vote: a
    # doubtful card's last reading, given again while the card waits its turn to be read
    # (companion.vision.reuse). Empty: every reading counts.
    evidence: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    # per crop, the model's single readings its heads were averaged from (a row per turn;
    # empty: a stand-in without a model)
    readings: list[HeadOutputs] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.card_ids)

    def row(self, i: int) -> ReadingRow:
        """Crop ``i``'s reading, to be kept and given again for an unchanged crop."""
        has = len(self.embeddings) == len(self)
        return ReadingRow(self.card_ids[i], float(self.confidence[i]), float(self.face_down[i]),
                          float(self.not_card[i]), tuple(self.topk[i]),
                          self.embeddings[i] if has else None,
                          bool(self.duplicates[i]) if len(self.duplicates) == len(self) else False,
                          self.readings[i] if len(self.readings) == len(self) else None)

    def is_evidence(self, i: int) -> bool:
        return len(self.evidence) != len(self) or bool(self.evidence[i])

    @classmethod
    def from_rows(cls, rows: list[ReadingRow], timing_ms: dict[str, float] | None = None,
                  evidence: list[bool] | None = None) -> Classifications:
        dims = {len(r.embedding) for r in rows if r.embedding is not None}
        if len(dims) == 1 and all(r.embedding is not None or r is UNREAD for r in rows):
            d = dims.pop()
            emb = np.stack([np.zeros(d, np.float32) if r.embedding is None else r.embedding
                            for r in rows]).astype(np.float32)
        else:
            emb = np.zeros((0, 0), np.float32)
        col = {k: np.array([getattr(r, k) for r in rows], np.float32).reshape(len(rows))
               for k in ("confidence", "face_down", "not_card")}
        return cls([r.card_id for r in rows], col["confidence"], col["face_down"],
                   col["not_card"], [list(r.topk) for r in rows], emb,
                   np.array([r.duplicate for r in rows], bool), dict(timing_ms or {}),
                   np.array(evidence if evidence is not None else [], bool))


@dataclass(frozen=True)
class ReadingRow:
    """One crop's reading (a row of :class:`Classifications`)."""

    card_id: str | None
    confidence: float
    face_down: float
    not_card: float
    topk: tuple[tuple[str, float], ...]
    embedding: np.ndarray | None = None
    duplicate: bool = False
    readings: HeadOutputs | None = None  # the model's readings it was averaged from


# A crop that was not read (a hand moving over it): neither a card, nor a back, nor nothing.
UNREAD = ReadingRow(None, 0.0, 0.0, 0.0, ())


@dataclass(frozen=True)
class HeadOutputs:
    """The model's raw reading of a batch, as probabilities."""

    suit: np.ndarray  # (N, 18), zero outside the deck mask
    rank: np.ndarray  # (N, 12)
    kind: np.ndarray  # (N, 3)
    embedding: np.ndarray  # (N, D)

    @property
    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        return self.suit, self.rank, self.kind, self.embedding

    def take(self, rows) -> HeadOutputs:
        return HeadOutputs(*(a[rows] for a in self.arrays))

    @classmethod
    def stack(cls, parts: list[HeadOutputs]) -> HeadOutputs:
        return cls(*(np.concatenate(a) for a in zip(*(p.arrays for p in parts))))


def _times(p: np.ndarray, q: np.ndarray | float) -> np.ndarray:
    """Rows of ``p * q`` normalised to sum to one, in logs so that no row underflows."""
    return _softmax(np.log(np.maximum(p, 1e-30)) + np.log(np.maximum(q, 1e-30)))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _sureness(h: HeadOutputs) -> np.ndarray:
    """How sure one reading is of its answer: p(card) x the best card's probability for a
    card, else the probability of "face-down" or "not a card"."""
    suit, rank, kind = h.suit, h.rank, h.kind
    as_card = kind[:, 0] * suit.max(axis=1) * rank.max(axis=1)
    return np.where(kind.argmax(axis=1) == 0, as_card, kind.max(axis=1))


class CardClassifier:
    """``classify(crops)`` for a batch of 96x96 BGR crops; ``deck`` restricts the suits."""

    def __init__(self, model_path: Path | str = DEFAULT_MODEL, deck: DeckKind | None = None,
                 profile: DeckProfile | None = None, threads: int = THREADS, rotations: int = 4,
                 reread_below: float = REREAD_BELOW, turns_again: int = TURNS_AGAIN):
        import onnxruntime as ort

        if rotations not in (1, 2, 4):
            raise ValueError(f"rotations must be 1, 2 or 4, got {rotations}")
        if not 0.0 <= reread_below <= 1.0:
            raise ValueError(f"reread_below must be in 0..1, got {reread_below}")
        # Reading a crop also turned by 90/180/270 degrees and averaging the heads evens
        # out the pixel grid's bias for some angles of a round card (about +3 points).
        # Only crops whose first reading is below ``reread_below`` are turned: most crops
        # are read surely at once, so a batch costs little more than one reading
        # (``reread_below=1`` turns every crop).
        self.rotations = rotations
        self.reread_below = reread_below
        self.turns_again = turns_again

        model_path = Path(model_path)
        if not model_path.is_file():
            raise ModelError(f"model {model_path} not found; train one with `companion train`")
        self.model_path = model_path
        self.threads = threads
        self.card = load_model_card(model_path)
        if profile is not None and profile.model and profile.model != self.fingerprint:
            raise ProfileModelError(
                f"deck profile {profile.name!r} was enrolled with another model than "
                f"{model_path.name} ({profile.model}, not {self.fingerprint}): its cards "
                "would be matched wrongly; enrol the deck again (one saved on the "
                "dashboard keeps its pictures: open its cards on the Enrol page and save it "
                "in its place)")
        self.suits = tuple(Suit(s) for s in self.card["classes"]["suits"])
        self.ranks = tuple(Rank.parse(r) for r in self.card["classes"]["ranks"])
        if profile is not None:
            deck = profile.deck
            one_blas_thread()  # the profile's detail matches (cores.one_blas_thread)
        self.deck = deck
        self.profile = profile
        allowed = set(suits_of(deck)) if deck is not None else set(self.suits)
        self.suit_mask = np.array([s in allowed for s in self.suits])
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads
        so.inter_op_num_threads = 1
        # Between two calls the pipeline detects and tracks on the same cores: a thread
        # left spinning for the next call would take one of them (measured: detection a
        # third slower with two threads spinning).
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_path), so,
                                            providers=["CPUExecutionProvider"])
        self._card_ids = np.array([Card(s, r).id for s in self.suits for r in self.ranks])
        self._card_index = {cid: j for j, cid in enumerate(self._card_ids.tolist())}
        self.input_px = int(self.card["input"]["shape"][2])

    @cached_property
    def fingerprint(self) -> str:
        """Which model this is (model_card.fingerprint): a deck profile records it."""
        return fingerprint(self.model_path)

    def heads(self, crops: np.ndarray) -> tuple[HeadOutputs, dict[str, float]]:
        h, timing, _ = self._heads(crops)
        return h, timing

    def _heads(self, crops: np.ndarray, turn: int = 0,
               earlier: list[HeadOutputs | None] | None = None
               ) -> tuple[HeadOutputs, dict[str, float], list[HeadOutputs]]:
        """The heads averaged over each crop's readings, and those readings (one row each).
        A crop with ``earlier`` readings is read at ``turns_again`` quarter turns from
        ``turn`` on, and averaged with its latest earlier ones, ``rotations`` readings in all
        (see :meth:`classify`). Another crop read below ``reread_below`` is read again at the
        other quarter turns."""
        t0 = time.perf_counter()
        x = preprocess(crops, self.input_px)
        t1 = time.perf_counter()
        n, r = len(x), self.rotations
        if n == 0:
            d = self.card["embedding_dim"]
            empty = HeadOutputs(np.zeros((0, len(self.suits)), np.float32),
                                np.zeros((0, len(self.ranks)), np.float32),
                                np.zeros((0, 3), np.float32), np.zeros((0, d), np.float32))
            return empty, {"preprocess": 0.0, "inference": 0.0}, []
        again = np.array([e is not None for e in earlier] if earlier else [False] * n)
        if again.any() and turn % 4:
            x[again] = np.rot90(x[again], turn % 4, axes=(2, 3))
        # A crop read again gets ``turns_again`` turns a frame, in the first pass (its turns
        # are known); a new crop read below the bar the others, in a second pass.
        a = min(self.turns_again, r)
        also = self._turned(x, {int(i): [k * 4 // a for k in range(1, a)]
                                for i in np.flatnonzero(again)})
        read = HeadOutputs(*self._read(np.concatenate([x, also[0]]) if also else x))
        first = read.take(slice(0, n))
        readings = [first.take([i]) for i in range(n)]
        if also:
            self._add_readings(readings, read.take(slice(n, None)), also[1])
        doubt = np.flatnonzero((_sureness(first) < self.reread_below) & ~again) if r > 1 else []
        more = self._turned(x, {int(i): [k * 4 // r for k in range(1, r)] for i in doubt})
        if more:
            self._add_readings(readings, HeadOutputs(*self._read(more[0])), more[1])
        for i in np.flatnonzero(again):  # the newest r readings, the oldest first
            older = earlier[i].take(slice(max(0, len(earlier[i].kind) - (r - a)), None))
            readings[i] = HeadOutputs.stack([older, readings[i]])
        many = [i for i, rd in enumerate(readings) if len(rd.kind) > 1]
        h = HeadOutputs(*(arr.copy() for arr in first.arrays)) if many else first
        for i in many:
            for arr, rows in zip(h.arrays, readings[i].arrays):
                arr[i] = rows.mean(axis=0)
        emb = h.embedding / np.maximum(np.linalg.norm(h.embedding, axis=1, keepdims=True), 1e-9)
        out = replace(h, embedding=emb)
        return out, {"preprocess": (t1 - t0) * 1e3,
                     "inference": (time.perf_counter() - t1) * 1e3}, readings

    @staticmethod
    def _turned(x: np.ndarray, turns: dict[int, list[int]]
                ) -> tuple[np.ndarray, list[int]] | None:
        """The crops ``x[i]`` turned by each of ``turns[i]`` quarter turns, and their rows."""
        jobs = [(i, q) for i, qs in turns.items() for q in qs]
        if not jobs:
            return None
        return np.stack([np.rot90(x[i], q, axes=(1, 2)) for i, q in jobs]), [i for i, _ in jobs]

    @staticmethod
    def _add_readings(readings: list[HeadOutputs], more: HeadOutputs, rows: list[int]) -> None:
        by_row: dict[int, list[int]] = {}
        for j, i in enumerate(rows):
            by_row.setdefault(i, []).append(j)
        for i, js in by_row.items():
            readings[i] = HeadOutputs.stack([readings[i], more.take(js)])

    def _read(self, x: np.ndarray) -> list[np.ndarray]:
        """One pass of the model: suit (deck-masked), rank and kind probabilities, embedding."""
        suit, rank, kind, emb = self.session.run(None, {"crops": np.ascontiguousarray(x)})
        suit = _softmax(np.where(self.suit_mask, suit, -np.inf))
        return [a.astype(np.float32) for a in (suit, _softmax(rank), _softmax(kind), emb)]

    def classify(self, crops: np.ndarray, turn: int = 0,
                 earlier: list[HeadOutputs | None] | None = None) -> Classifications:
        """``earlier``: per crop, None or the single readings an earlier reading of it was
        averaged from (``Classifications.readings``). Such a crop is read at
        ``turns_again`` (2) quarter turns, ``turn`` and ``turn + 2``, and averaged with its
        two latest earlier readings. A doubtful card lying still is read on every frame
        (:mod:`companion.vision.reuse`), a quarter turn further each time: its reading is
        still an average over the four turns, at half their price."""
        h, timing, readings = self._heads(crops, turn, earlier)
        t0 = time.perf_counter()
        chosen = detail = None
        if self.profile is not None:
            from companion.vision.assign import assign_once
            backs = self.profile.looks_like_back(h)
            if backs.any():  # a face-down card: its "card" share of the kind head is a back's
                kind = h.kind.copy()
                kind[backs, 1] += kind[backs, 0]
                kind[backs, 0] = 0.0
                h = replace(h, kind=kind)
            known = self.profile.model_agreement >= KNOWN_ART
            if known and self.profile.from_camera:
                # our own printed deck, enrolled live: its camera crops, each scanned under
                # its own blur and light, only add noise to what the model reads (154 of
                # 156 scene cards right alone, 146 with the profile); the profile still
                # knows the deck and its back
                ids, probs = np.array(self.profile.card_ids), 1.0
            else:
                ids, probs, detail = self.profile.card_probabilities(crops, h)
            if known:
                probs = _times(self.profile.model_probabilities(h), probs)
            card_rows = np.flatnonzero(h.kind.argmax(axis=1) == 0)
            chosen, dup = assign_once(probs, card_rows)
        else:
            probs, ids = self._model_probs(h), self._card_ids
            dup = np.zeros(len(probs), bool)
        result = self._decode(h, probs, ids, dup, chosen, detail, crops)
        timing["decode"] = (time.perf_counter() - t0) * 1e3
        return Classifications(**result, timing_ms=timing, readings=readings)

    def confirms(self, crops: np.ndarray, card_ids: list[str], at: float) -> np.ndarray:
        """(N,) bool: the model alone, at one turn, reads each crop as ``card_ids[i]`` at
        least ``at`` sure. With a profile of a deck the model knows, a sure card's periodic
        re-reading (:mod:`companion.vision.reuse`) is then a model pass, not the profile's
        detail comparisons (10 ms a crop). Elsewhere nothing is confirmed and the card is
        read afresh: the model alone costs as much as a reading, and on art it never saw it
        names hardly any card right (2.6% and 0.8% of the PySolFC crops)."""
        n = len(crops)
        if n == 0 or self.profile is None or self.profile.model_agreement < KNOWN_ART:
            return np.zeros(n, bool)
        h = HeadOutputs(*self._read(preprocess(crops, self.input_px)))
        held = np.array([self._card_index.get(cid, -1) for cid in card_ids])
        sure = self._model_probs(h)[np.arange(n), np.maximum(held, 0)] * h.kind[:, 0]
        return (held >= 0) & (sure >= at)

    @property
    def may_not_know_the_art(self) -> bool:
        """The model alone reads the cards, which may be of a deck it never saw (the
        pipeline then watches how surely it reads them: companion.vision.familiar). A
        profile knows its deck, and :attr:`trust_bar` says how far to trust it."""
        return self.profile is None

    @property
    def trust_bar(self) -> float:
        """The least confidence at which a reading may name a card (0: the tracker's own
        bar). A profile of art the model never saw reads by matching the deck's own images,
        and under blur such a match can be 0.8 sure of the neighbouring numeral."""
        if self.profile is not None and self.profile.model_agreement < KNOWN_ART:
            return ALWAYS_ASK if self.profile.from_camera else UNKNOWN_ART_BAR
        return 0.0

    def _model_probs(self, h: HeadOutputs) -> np.ndarray:
        """p(card) = p(suit) * p(rank), laid out suit-major like ``self._card_ids``."""
        return (h.suit[:, :, None] * h.rank[:, None, :]).reshape(len(h.suit),
                                                                 len(self._card_ids))

    def _backed_by_model(self, h: HeadOutputs, card_ids: list, conf: np.ndarray) -> np.ndarray:
        """An enrolled reading is at least as sure as the model alone when the model names
        the same card. The profile's comparisons are made for art the model never saw; on
        a deck it knows (our own, enrolled on the dashboard) they hold sure cards back.

        And when the model alone is sure of another card (``MODEL_OVERRULES``), the two
        disagree: the reading is then no surer than the model's doubt, so the players are
        asked. On the Kendra Kari film with its own deck enrolled, the profile read a
        Shamsher 6 as the 7 at 0.998 where the model alone read the 6 at 0.98; the tracker
        reported the 7.

        On a deck the model knows (``KNOWN_ART``), a reading is no surer than the model's
        own probability of the card it names. In the dim, blurred Kendra Kari film the
        profile of its own deck read one Chandra 9 as the 10 or the 9 at 0.92-0.996 in
        turn, where the model alone gave either 0.5-0.7; the tracker reported the 10."""
        p = self._model_probs(h)
        top = p.argmax(axis=1)
        model_conf = p[np.arange(len(p)), top] * h.kind[:, 0]
        same = np.array([cid == self._card_ids[t] for cid, t in zip(card_ids, top)], bool)
        named = np.array([cid is not None for cid in card_ids], bool)
        overruled = ~same & (model_conf >= MODEL_OVERRULES) & named
        conf = np.where(overruled, np.minimum(conf, 1.0 - model_conf), conf)
        if self.profile.model_agreement >= KNOWN_ART:
            model_p = np.array([p[i, self._card_index[cid]] if cid else 1.0
                                for i, cid in enumerate(card_ids)]) * h.kind[:, 0]
            conf = np.where(named, np.minimum(conf, model_p), conf)
        return np.where(same, np.maximum(conf, model_conf), conf).astype(np.float32)

    def _decode(self, h: HeadOutputs, probs: np.ndarray, ids: np.ndarray,
                dup: np.ndarray, chosen: np.ndarray | None,
                detail: np.ndarray | None = None, crops: np.ndarray | None = None) -> dict:
        """Top-1 is the most probable card, or the assigned one when a profile assigned.
        With a profile, a card whose telling detail matched below the profile's bar (for a
        sure court, its figure may stand in: ``DeckProfile.courts_seen``) is reported no
        surer than that match, and no less sure than the model alone when it names the
        same card."""
        n = len(probs)
        order = np.argsort(-probs, axis=1)[:, :TOP_K] if n else np.zeros((0, TOP_K), int)
        p_card = h.kind[:, 0]
        pick = order[:, 0] if chosen is None else np.where(chosen >= 0, chosen, order[:, 0])
        is_card = h.kind.argmax(axis=1) == 0
        conf = np.where(is_card, probs[np.arange(n), pick] * p_card,
                        h.kind.max(axis=1)).astype(np.float32)
        names = ids.tolist()
        card_ids = [names[j] if c else None for j, c in zip(pick.tolist(), is_card.tolist())]
        if detail is not None and n:
            seen = self.profile.courts_seen(crops, np.where(is_card, pick, -1), probs,
                                            detail[np.arange(n), pick])
            weak = is_card & (seen < self.profile.weights.detail_bar)
            conf = np.where(weak, np.minimum(conf, np.clip(seen, 0.0, 1.0)), conf)
            conf = self._backed_by_model(h, card_ids, conf)
        top_p = (np.take_along_axis(probs, order, axis=1) * p_card[:, None]).tolist()
        topk = [[(names[j], p) for j, p in zip(row, ps)]
                for row, ps in zip(order.tolist(), top_p)]
        return {"card_ids": card_ids, "confidence": conf, "face_down": h.kind[:, 1].copy(),
                "not_card": h.kind[:, 2].copy(), "topk": topk, "embeddings": h.embedding,
                "duplicates": dup}
