"""A user's deck, as enrolment (:mod:`companion.vision.enroll`) learnt it, and how a crop is
scored against each of its cards.

Recognition scores every (crop, enrolled card) pair by combining the model's embedding and
heads with the image comparisons of :mod:`companion.vision.match` (polar templates,
re-centring, alignment, local detail matches), the pip count and the suit colour;
:mod:`companion.vision.assign` then gives a frame's crops distinct cards (each card exists
once in a deck) and flags a crop whose best card was taken by a better-matching crop as a
possible duplicate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from companion.cards import Card, DeckKind, Suit
from companion.vision import cues
from companion.vision.match import (
    Region,
    align_candidates,
    align_colour,
    channel_correlations,
    channel_ranks,
    figure_match,
    grey,
    polar_similarity_to,
    polar_spectra,
    polar_templates,
    recentre,
)

if TYPE_CHECKING:
    from companion.vision.classify import HeadOutputs


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
    # x a court's colour match less the best of its rank's (DeckProfile._court_grounds)
    ground: float = 40.0
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
    # A court read at least this likely is held to its figure, not its numeral box
    # (DeckProfile.courts_seen).
    court_sure: float = 0.98
    # A court read at least ``figure_check`` likely whose whole figure matches below
    # ``figure_bar`` is a number card taken for a court (DeckProfile.courts_seen).
    figure_check: float = 0.8
    figure_bar: float = 0.3


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
    # model_card.fingerprint of the model whose embeddings these are ("": not recorded, a
    # profile saved before it was). Another model's embeddings match nothing in particular.
    model: str = ""
    # Enrolled from the camera's own crops (live, on the dashboard), not from pictures of
    # the cards: see classify.ALWAYS_ASK and CardClassifier.classify.
    from_camera: bool = False
    # From the camera: the crops it was built from (M, 96, 96, 3) BGR uint8 in ``card_ids``
    # order, and the back's (96, 96, 3) when enrolled, so that cards named later (more
    # games of Kendra Kari) can be added and the profile built again (the Enrol page's
    # "add these cards": ``companion.web.draft.added_to``).
    pictures: np.ndarray | None = field(default=None, repr=False)
    back_picture: np.ndarray | None = field(default=None, repr=False)
    # (C, 96, 96, 3) BGR uint8: the court cards' crops in ``card_ids`` order, each turned
    # onto the first court of its rank (DeckProfile._court_grounds); None in a profile
    # saved before they were kept.
    court_pictures: np.ndarray | None = field(default=None, repr=False)

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
        if w.ground and self.court_pictures is not None:
            s += self._court_grounds(crops, s)
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

    def courts_seen(self, crops: np.ndarray, picks: np.ndarray, probs: np.ndarray,
                    seen: np.ndarray) -> np.ndarray:
        """``seen`` (N,), the detail match of each crop's pick (-1 for none), held to the
        match of the court's whole figure (:func:`match.figure_match`) where the pick is a
        court read at least ``figure_check`` likely: lowered to it when it is under
        ``figure_bar``, raised to it when the court is read at least ``court_sure`` likely
        and its suit's numeral box matched below ``detail_bar``.

        A number card with its numeral under a finger can pass for a court of another suit
        on the box alone, which it matches like a plain field: PySolFC Mughal Cheng 7 and
        Cheng 10 were read as the Barat raja at 0.96 and 0.82, their figure matches 0.18
        and 0.08. Of 539 sure court readings (both PySolFC decks, three sets of camera
        crops) the right ones matched their figure at 0.36 or more.

        On a court that box is a plain field with a mark or two, which under blur matches
        a true court poorly (0.54 for a Matsya vizier read 0.99 likely: three questions on
        the real-art Ganjifa film). The figure tells a court from a number card (those
        taken for a court, or one a finger lies across, matched 0.06-0.18; true courts
        0.52 or more in 99 of 100 benchmark crops), but not from the same figure in another
        suit. Only colour and the box's mark do: a dim light misled the reading to 0.88-0.94
        for the wrong suit's court (PySolFC Dashavatara, Matsya and Rama viziers)."""
        w = self.weights
        out = seen.copy()
        for i, j in enumerate(picks.tolist()):
            if j < 0 or self._is_number[j] or probs[i, j] < w.figure_check:
                continue
            figure = figure_match(crops[i], self.grey[j])
            if figure < w.figure_bar:
                out[i] = min(out[i], figure)
            elif out[i] < w.detail_bar and probs[i, j] >= w.court_sure:
                out[i] = max(out[i], figure)
        return out

    def _court_grounds(self, crops: np.ndarray, coarse: np.ndarray) -> np.ndarray:
        """(N, M) added to the scores: for a crop whose best card is a court, ``ground`` x
        how well each court matches it colour by colour (:func:`match.channel_correlations`)
        less the best court of its rank, the rank's courts then raised together so that its
        best score stays what it was; 0 for number cards, for the ranks with no court near
        the crop's best score (``fine_margin``), and for every card of a crop best read as a
        number card.

        A deck may draw one court figure on every suit's ground: the PySolFC Mughal Surya
        and Chandra viziers differ only in a grey-green ground and a grey one, the
        Dashavatara Varaha and Parashurama rajas in a yellow and an orange one. The colour
        signature compares colours as the camera saw them, and a light or a white balance
        moves a ground across that line (the Surya vizier read as Chandra's at 0.93 and
        0.98 on two Kendra Kari films). Held against the figure's own colours, which the
        same light moves alike, the ground tells its suit: on the benchmark's court crops
        the best colour match was the right court for 90 of 96 Mughal and 115 of 120
        Dashavatara, the colour signature for 57 and 74. Every rank in contention is
        compared, each against its own best: the rank of the best card alone, compared,
        lost to a court of the other rank that was not (a Dashavatara vizier read as a
        raja on three films). The ground only orders the courts of a rank: the courts
        merely lowered, a number card that a crop was not took their share (a PySolFC
        Barat 6 in a hand, its best a court at 0.45, read as the Barat 2 at 0.93), and a
        crop read best as a number card is left to the number cards' evidence."""
        out = np.zeros(coarse.shape, np.float32)
        near = coarse >= coarse.max(axis=1, keepdims=True) - self.weights.fine_margin
        for i in np.flatnonzero(~self._is_number[np.argmax(coarse, axis=1)]):
            for members, first, ranked in self._court_ranks:
                if near[i, members].any():
                    r = channel_correlations(align_colour(crops[i], first), ranked)
                    add = self.weights.ground * (r - r.max())
                    before = coarse[i, members]
                    out[i, members] = add + before.max() - (before + add).max()
        return out

    @cached_property
    def _court_ranks(self) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Per court rank with courts in two suits or more: their indices, the first's grey
        (crops are turned onto it) and their :func:`match.channel_ranks`."""
        courts = np.flatnonzero(~self._is_number)
        ranks = np.array([self.card_ids[j].rpartition("-")[2] for j in courts])
        groups = [ranks == rank for rank in dict.fromkeys(ranks.tolist())]
        return [(courts[g], grey(self.court_pictures[g][0]), channel_ranks(self.court_pictures[g]))
                for g in groups if g.sum() >= 2]

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


def _box(weights: np.ndarray, pad: int = 2) -> tuple[int, int, int, int]:
    """(y0, y1, x0, x1) around where a suit's cards differ most."""
    ys, xs = np.nonzero(weights > 0.3 * weights.max())
    n = weights.shape[0]
    return (max(0, ys.min() - pad), min(n, ys.max() + 1 + pad),
            max(0, xs.min() - pad), min(n, xs.max() + 1 + pad))
