"""The tracker's pictures of its cards: the crops it keeps of a track's readings, the
picture it hands on when the players name the card (``TableTracker.named``), and whether a
named card's crops still show it (``still``) or show another card (``unlike``), and whether
a settled card's doubtful readings still stand for it (``holds``); and what a vote's
readings say (``vote_confidence``, ``vote_candidates``). Apart from the voting in ``track``
so that each file stays small; ``t`` is a ``track._Track``.
"""

from __future__ import annotations

import functools
from collections import Counter, deque

import cv2
import numpy as np

from companion.vision.classify import TOP_K
from companion.vision.cues import sharpness

FACE_DOWN = "face-down"
# A named card's crops at least this like its picture are that card still (see still)
SAME_CARD = 0.9
OTHER_CARD = 0.5  # less like the card before a hand came, on its disc: another card (unlike)
UNLIKE_VIEWS = 3
SHIFT = 12  # px: how far off a crop may be cut and still be compared (see likeness)


def vote_confidence(recent: list, label: str) -> float:
    """The mean confidence of the winning reading among a vote's (label, confidence, topk)
    readings, counting disagreeing ones as zero."""
    return float(sum(c for lab, c, _ in recent if lab == label) / len(recent))


def vote_candidates(recent: list) -> tuple[tuple[str, float], ...]:
    """The cards a vote's readings rank highest, each with its mean share of them."""
    total: Counter = Counter()
    for _, _, topk in recent:
        for card, p in topk:
            total[card] += p / len(recent)
    return tuple((c, float(p)) for c, p in total.most_common(TOP_K))


def holds(t, candidates: tuple[tuple[str, float], ...]) -> bool:
    """Whether doubtful readings of a settled card still stand for what it was taken to be:
    they rank first its name, the reading the players named it from, or (unsure) the card
    they were asked about first.

    Merely among the top five, the 2 of Kalki asked about on the real-art Ganjifa film hid
    the 4 laid on it until the trick was gathered. Holding a named card while its readings
    give it a third of the first's share spared one question on the Kendra Kari hard film,
    but where the readings say little (our model on art it never saw) it hid new cards the
    same way: 61 of the real-art Ganjifa film's 120 moves followed (with another change,
    since dropped), 64 without that change."""
    if not candidates:
        return False
    named = t.asked[:1] if t.unsure else (t.label, t.read_as)
    return candidates[0][0] in named


def still(t, since: int) -> bool:
    """Whether the whole crops of a card the players named, from frame ``since`` on, still
    show it as it lay when they named it (the median of their likeness to its picture then
    at least ``SAME_CARD``): a doubt in its readings is then no card laid on it.

    A reader that cannot name the card (art the model does not know, or a card its profile
    has no picture of) reads it as one card or another at random. When a hand passed and
    the first reading changed, the tracker took it for a card laid on it: on the real-art
    Kendra Kari film with a 17-card profile, 5 of 22 questions asked again about cards that
    lay there untouched. Laid by a hand, a card on another lies a few millimetres off and at
    another turn: its crop is unlike the picture (0.14-0.44 there), the same card's is not
    (0.92-1.0, on the dim real-art Kendra Kari film too). A Kumancha 9 laid on the Kumancha 3
    a few degrees off, same emblem, dim light: 0.79-0.80 (with the bar at 0.7 its move was
    missed). Those figures are of the whole crop within 6 px; compared on the card's disc
    within 12 px (as now, see ``likeness``), over five of the real-art films (model alone)
    the crops of the same card fell under the bar in 29 of 1103 calls, not 90, and those of
    another card reached it in 2 of 32, as before; the Kumancha 9 on the 3 is 0.80-0.81.
    Less like than this is not by itself a new card: a hand resting over the card makes its
    crops unlike too (asked 9 times about one card so); see ``unlike`` for when whole crops
    say so."""
    if t.named_picture is None or t.read_as is None:
        return False
    crops = [(f, c) for f, _, c in t.views if f >= since]
    return bool(crops) and float(
        np.median(_likenesses(t, crops, t.named_picture, "still"))) >= SAME_CARD


def unlike(t, since: int) -> bool:
    """Whether a card the players named shows another card since the last hand came near
    it: the median likeness of its whole crops after the hand left (from frame ``since``
    on) to its last whole crop before the hand came is under ``OTHER_CARD``, with at least
    ``UNLIKE_VIEWS`` of them.

    A reader that cannot name the card reads it as some card or other, and the card the
    players named is taken to be there while that reading comes (``_Track.read_as``).
    Another card laid on it may come with the very same reading. With the model alone on
    the real-art Kendra Kari films, the Cheng raja bridged onto the Barat raja read as the
    Cheng 2, as the Barat raja had, for all 43 frames it lay there, and the Phul 10 bridged
    onto the Surya 7 as the Chandra raja: both bridges were missed, and two illegal
    rulings and a desync followed each. Against the named card's picture, cards lying
    untouched were 0.26-0.70 in the hard film's changing light (the picture was taken long
    before), so the crops are compared across the hand's visit only: no card comes without
    a hand. Only the card's own disc is compared: the crop's corners show its neighbours and
    the shadows of hands passing them. Over the six real-art films (model alone, 242 hands'
    visits to a named card, 30 of which left another card on it), the whole crops' likeness
    told them apart at best with 6 errors (at 0.6: 10 untouched cards asked about, 1 new
    card not), the disc's with 4 (at 0.5 or 0.55: 3 and 1). The new cards were at most 0.46
    like the card beneath, but for a Kumancha 9 laid on the Kumancha 3 (0.81: same emblem,
    dim light; its reading changed); the untouched ones at least 0.57, but for a card under a
    resting sleeve (twice) and one cut off centre (within 12 px, see ``likeness``, only the
    sleeve's are left). Only wholly visible crops are kept, so the hand itself does not
    count. Without a motion map nothing is compared."""
    # A card the hand hid for a second or more (``track.HIDDEN_FRAMES``) is the same card
    # only if it looks it: a bridge's sweep on the hard Kendra Kari film (Mughal art, the
    # model alone) kept Position 1 under the hand for 56 frames, its 10 of Surya taken
    # away and the 8 laid there, 0.68 like it (same suit, same layout) and read as the 10
    # had been; it was never asked about, and the game's new phase lost its second card.
    bar = SAME_CARD if t.hidden else OTHER_CARD
    like = _like_before_hand(t, since)
    return like is not None and like < bar


def alike(t, since: int) -> bool:
    """Whether a card's whole crops since the last hand left (from frame ``since`` on)
    show the card that lay there before the hand came: their median likeness to its last
    whole crop then is at least ``SAME_CARD``, with at least ``UNLIKE_VIEWS`` of them.

    Ruling *alike-after-the-hand*: readings of another card, doubtful or sure, are no card
    laid on it. Over twelve runs of the hard films (PySolFC art, the model alone and with a
    profile), 13 doubts after a hand passed were about a card lying untouched, 0.91-1.0
    like itself, and each was a question; the cards laid on another were at most 0.81 like
    the card beneath, but for some read on one or two crops only (up to 0.99: the crops
    just after the hand left may still show the card beneath, so fewer do not count)."""
    like = _like_before_hand(t, since)
    return like is not None and like >= SAME_CARD


def _like_before_hand(t, since: int) -> float | None:
    """The median likeness of the whole crops after the last hand left, from frame
    ``since`` on, to the card's crop before it came (None: fewer than ``UNLIKE_VIEWS``)."""
    if t.before_hand is None:
        return None
    crops = [(f, c) for f, _, c in t.views if f >= since and f > t.hand_at]
    if len(crops) < UNLIKE_VIEWS:
        return None
    return float(np.median(_likenesses(t, crops, t.before_hand, "unlike")))


def _likenesses(t, crops: list, picture: np.ndarray, why: str) -> list[float]:
    """The likeness of each (frame, crop) to ``picture``, each compared once: a crop stays
    in view of the vote for several frames (a named card's, compared on every frame, cost
    about 4 ms a frame on the real-art films)."""
    out = []
    for f, crop in crops:
        known = t.liked.get((f, why))
        if known is None or known[0] is not picture:
            known = t.liked[(f, why)] = (picture, likeness(crop, picture))
        out.append(known[1])
    if len(t.liked) > 4 * len(t.views):
        kept = {f for f, _, _ in t.views}
        t.liked = {k: v for k, v in t.liked.items() if k[0] in kept}
    return out


def likeness(crop: np.ndarray, picture: np.ndarray) -> float:
    """The grey correlation of the card's disc in ``picture`` (the inscribed circle of its
    middle: the crop's corners show its neighbours and the shadows of hands passing them)
    with ``crop``, at the best shift of up to ``SHIFT`` px either way, without turning: the
    same card lying still, or nudged. The detector's centre wobbles: an untouched Kumancha 4
    of the second real-art Kendra Kari game was cut 10 px off for two frames (0.57 like
    itself within 6 px, 1.0 within 10), and was asked about. Within 12 px rather than 6, the
    untouched cards of the 242 hand visits were at least 0.65 like themselves but for 2, not
    3 (a resting sleeve), the new cards at most 0.39 (0.46) but for the Kumancha 9 on the 3;
    in ``still``, the same card fell under its bar in 29 calls of 1103, not 52."""
    a = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    b = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)[SHIFT:-SHIFT, SHIFT:-SHIFT]
    scores = cv2.matchTemplate(a, b, cv2.TM_CCOEFF_NORMED, mask=_disc(b.shape[0]))
    return float(np.nan_to_num(scores, nan=-1.0, posinf=-1.0, neginf=-1.0).max())


@functools.cache
def _disc(size: int) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    cv2.circle(mask, (size // 2, size // 2), size // 2 - 2, 255, -1)
    return mask


def keep_view(t, frame: int, label: str, crop: np.ndarray | None, sure: bool
              ) -> np.ndarray | None:
    """A reading's whole crop, unless it is a ``sure`` reading of a card the track holds
    surely (there is nothing to decide: a doubtful one may be of a card laid on it, read as
    the one beneath was, see ``unlike``). A copy, returned (None: none kept): the frame's
    crops are let go with the frame."""
    if crop is None or label == FACE_DOWN or (
            sure and t.settled and not t.unsure and label == t.label):
        return None
    kept = crop.copy()
    t.views.append((frame, label, kept))
    return kept


def sharpest(views: deque, label: str, since: int) -> np.ndarray | None:
    """The sharpest whole crop of the readings from frame ``since`` on that read ``label``
    (of all of them, when none did: an unsure card's readings may all differ)."""
    if label == FACE_DOWN:
        return None
    recent = [(lab, c) for f, lab, c in views if f >= since]
    crops = [c for lab, c in recent if lab == label] or [c for _, c in recent]
    if not crops:
        return None
    return crops[int(np.argmax(sharpness(np.stack(crops))))]
