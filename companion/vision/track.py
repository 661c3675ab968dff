"""Tracking: per-frame readings -> a stable table, and events when it changes.

A single frame can lie (motion blur, a glare, a finger over a card), so a card is "on the
table" only after its position and reading have held for ``stable_frames`` frames, and it
is gone only after ``remove_frames`` frames without it. Frames with motion (a hand moving
over the cards) or a hand resting on the table do not count for the cards near it, neither
as sightings nor as absences: the tracker waits for the hand to leave.

Events: ``appeared`` (a card settled; ``covers`` names the card it was laid on), ``removed``,
``cleared`` (a zone that held cards is now empty) and ``unsure``: a card settled but the
readings are not confident or do not agree (or a doubtful card was taken away before it
settled), so the event lists the top candidates and leaves the decision to a person. The
tracker never turns a doubtful reading into a card.

A card the players name (:meth:`TableTracker.name`) is handed on with its picture, the
sharpest whole crop among the readings it was asked about on (:meth:`TableTracker.named`):
with a deck the model does not know, those answers are pictures of the deck, each labelled.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, deque
from dataclasses import dataclass, field

import numpy as np

from companion.layouts import Layout
from companion.vision.detect import Detections
from companion.vision.motion import MotionMap
from companion.vision.track_event import TrackEvent
from companion.vision.track_views import (
    FACE_DOWN,
    UNLIKE_VIEWS,
    alike,
    holds,
    keep_view,
    sharpest,
    still,
    unlike,
    vote_candidates,
    vote_confidence,
)

# A reading's crop is a picture of the card if this much of the card is in view (the
# detector's ``visible``: not covered by another card)
WHOLE = 0.9
# Pictures of cards gone from the table, for answers that come after the card has gone (answered
# 3 s late, the real-art Ganjifa film's tricks went first: 6 of 120 learnt without them, 112 with)
GONE_PICTURES = 64
# A card unseen this long under a hand may have been swapped for another (track_views.unlike)
HIDDEN_FRAMES = 30


@dataclass
class _Track:
    id: int
    center: np.ndarray
    first_frame: int
    last_seen: int
    readings: deque  # of (label, confidence, topk) for the last `window` sightings
    label: str | None = None  # the settled reading (FACE_DOWN for backs)
    settled: bool = False
    unsure: bool = False  # settled, but announced as unsure
    missed: int = 0
    doubt: int = 0  # consecutive votes without a confident reading
    doubt_from: int = -1  # the frame of the first of them
    asked: tuple[str, ...] = ()  # unsure: the candidates the players were asked about
    since: int = -1  # the frame its current card was first seen: at first, ``first_frame``
    # a hand came near it since its name was last read surely (see TableTracker._vote)
    disturbed: bool = True
    # named by the players (``TableTracker.name``): what its readings ranked first then,
    # which stands for that card until another card is laid on it
    read_as: str | None = None
    settled_at: int = -1  # the frame it last settled on a card (its event's last_frame)
    # (frame, label, crop) of its recent readings with the card wholly in view, but for
    # those that agree with a card it holds surely (no copy); and the sharpest crop its last
    # event was decided on: the picture of the card the players may be asked about
    views: deque = field(default_factory=deque)
    picture: np.ndarray | None = None
    # the card the players last named it, and its picture then (kept if named the same
    # again): a card laid on it is told by the crops (see track_views.still)
    named_as: str | None = None
    named_picture: np.ndarray | None = None
    # its last whole crop with no hand near, how many since the last hand left, that crop
    # as a hand came after the last had gone, the last frame a hand was near: a card laid
    # on it is told by its crops after the hand against that one (track_views.unlike)
    calm: np.ndarray | None = None
    calm_views: int = 0
    liked: dict = field(default_factory=dict)  # (frame, "still"|"unlike") -> (picture, likeness)
    before_hand: np.ndarray | None = None
    hand_at: int = -1
    hidden: bool = False  # unseen ``HIDDEN_FRAMES`` since a hand came (track_views.unlike)
    # a card unlike the named one lies there since a hand came, read as the named one was
    # (``track_views.unlike``): its readings are a doubt until they settle
    swapped: bool = False
    # its last reading of a back (frame): a face first read after longer unseen than a card
    # takes to go, unsettled, was laid then (ruling *a-back-in-a-hand*: a drawn card carried
    # face down over a position made the next card there "lie" since, the carrier's)
    back_at: int = -1


class TableTracker:
    """Temporal voting over detections + classifications: ``update(...) -> events``."""

    def __init__(self, layout: Layout | None = None, stable_frames: int = 5,
                 remove_frames: int = 8, min_confidence: float = 0.8,
                 min_agreement: float = 0.8, resolve_confidence: float = 0.9,
                 match_mm: float = 22.0,
                 zone_radius_mm: float = 45.0, motion_radius_mm: float = 26.0,
                 keep_pictures: bool = False):
        self.layout = layout
        # keep each card's picture for :meth:`named` (a deck to learn from the players'
        # answers); off, no crop is copied or compared
        self.keep_pictures = keep_pictures
        self.stable_frames = stable_frames
        self.remove_frames = remove_frames
        self.min_confidence = min_confidence
        self.min_agreement = min_agreement
        # Once the players were asked about a card, the tracker changes its mind only on
        # stronger readings than it needs at first: a reading hovering at the bar must not
        # slip through as a card after it was doubted.
        self.resolve_confidence = max(resolve_confidence, min_confidence)
        self.match_mm = match_mm
        self.zone_radius_mm = zone_radius_mm
        self.motion_radius_mm = motion_radius_mm
        self.reset()

    def raise_bar(self, bar: float) -> tuple[float, float]:
        """Take cards only on readings at least ``bar`` sure (a classifier's ``trust_bar``);
        a bar below the tracker's own changes nothing. Returns the bars before, for
        :meth:`restore_bar`."""
        before = (self.min_confidence, self.resolve_confidence)
        self.min_confidence = max(self.min_confidence, bar)
        self.resolve_confidence = max(self.resolve_confidence, self.min_confidence)
        return before

    def restore_bar(self, before: tuple[float, float]) -> None:
        """Undo a :meth:`raise_bar`, given what it returned."""
        self.min_confidence, self.resolve_confidence = before

    def reset(self) -> None:
        self._tracks: list[_Track] = []
        self._next_id = 0
        self._zone_counts: Counter = Counter()
        self._told: deque[tuple[int, str, int]] = deque()  # (track, card, asked at)
        self._named: list[tuple[str, np.ndarray]] = []
        # track id -> (the frame it was last decided on, its picture), of tracks gone
        self._gone: OrderedDict[int, tuple[int, np.ndarray]] = OrderedDict()

    def name(self, track_id: int, card_id: str, asked_at: int) -> None:
        """The players named the card the tracker asked about (an unsure event's track,
        or a sure reading the game doubted), in the event of frame ``asked_at``: it holds
        that name from the next frame on, as a card read surely would, until another card
        is laid on it. A late answer about a card that has gone, or has had another card
        laid on it since, names nothing.

        Without it, a card of a deck no reading is sure of stayed unsure, a second card laid
        on it and read as one first asked about was never asked (on the real-art Ganjifa
        film, a doubled trick's second card: 8 moves refused), and a card taken away went
        without a name. (Queued: the dashboard answers from another thread.)"""
        self._told.append((track_id, card_id, asked_at))

    def _apply_names(self) -> None:
        while self._told:
            track, card, asked_at = self._told.popleft()
            t = next((t for t in self._tracks if t.id == track), None)
            if t is None:  # gone (its removal said so): its picture may still be named
                settled_at, picture = self._gone.get(track, (asked_at + 1, None))
                if settled_at <= asked_at:
                    self._named.append((card, picture))
                continue
            if not t.settled or t.settled_at > asked_at:
                continue  # another card lies there now
            # (whether a hand came near it since stays as it was: readings of a card laid
            # on it meanwhile, before the answer came, are judged as such)
            t.read_as = t.asked[0] if t.unsure and t.asked else t.label
            t.label, t.unsure = card, False
            t.before_hand = None  # the card named lies there now, whatever lay before
            if card != t.named_as or t.named_picture is None:
                t.named_as, t.named_picture = card, t.picture
            if t.picture is not None:
                self._named.append((card, t.picture))

    def named(self) -> list[tuple[str, np.ndarray]]:
        """The cards the players named since the last call, each with its picture (a 96 px
        BGR crop); a card with no whole, settled view has none and is left out."""
        out, self._named = self._named, []
        return out

    @property
    def table(self) -> dict[str, list[str]]:
        """Zone (or "elsewhere") -> the settled face-up cards there, for the dashboard."""
        out: dict[str, list[str]] = {}
        for t in self._tracks:
            if t.settled and t.label and t.label != FACE_DOWN and not t.unsure:
                out.setdefault(self._zone(t.center) or "elsewhere", []).append(t.label)
        return out

    def _zone(self, center: np.ndarray) -> str | None:
        if self.layout is None:
            return None
        z = self.layout.zone_at(float(center[0]), float(center[1]), self.zone_radius_mm)
        return z.id if z else None

    def update(self, frame_index: int, timestamp: float, detections: Detections,
               classifications, motion: MotionMap | None = None) -> list[TrackEvent]:
        """``classifications`` has parallel ``card_ids``, ``confidence``, ``face_down``,
        ``not_card`` and ``topk``, and ``is_evidence(i)`` (see
        ``companion.vision.classify.Classifications``)."""
        n = len(detections)
        if len(classifications) != n:
            raise ValueError(f"{n} detections but {len(classifications)} classifications")
        self._apply_names()
        # A reading is not trusted while something moves over the card; a hand at rest
        # beside or partly over it does not spoil what can be seen.
        gated_det = (motion.near(detections.centers_mm, self.motion_radius_mm, moving_only=True)
                     if motion is not None and n else np.zeros(n, bool))
        obs = []
        for i in range(n):
            if gated_det[i]:
                continue
            label = classifications.card_ids[i]
            if label is None:
                fd, nc = float(classifications.face_down[i]), float(classifications.not_card[i])
                if nc >= fd:
                    continue  # not a card: nothing to track
                label, conf, topk = FACE_DOWN, fd, ()
            else:
                conf = float(classifications.confidence[i])
                topk = tuple(classifications.topk[i])
            whole = self.keep_pictures and detections.visible[i] >= WHOLE
            obs.append((detections.centers_mm[i], label, conf, topk,
                        classifications.is_evidence(i), detections.crops[i] if whole else None))

        matched = self._associate(obs)
        events: list[TrackEvent] = []
        tracks = list(self._tracks)
        gated_tracks = (motion.near(np.array([t.center for t in tracks]), self.motion_radius_mm)
                        if motion is not None and tracks else np.zeros(len(tracks), bool))
        for t, gated in zip(tracks, gated_tracks.tolist()):
            if gated or motion is None:  # (no motion map: whether a hand came is not known)
                t.disturbed = True
            if gated:
                # A hand comes: how the card lay till now. A hand back within a few frames
                # left it in view too briefly to say (a hand hovering near it, its shadow, a
                # card laid then): the picture from before its last visit stands.
                comes = t.hand_at < frame_index - 1
                if comes and (t.before_hand is None or t.calm_views >= UNLIKE_VIEWS):
                    t.before_hand, t.hidden = t.calm, False
                if comes and not t.settled and t.doubt:
                    # Ruling *doubt-before-the-next-hand*: a doubt already begun is asked
                    # now, before the hand can lay another card on it. At a brisk pace a
                    # Narasimha raja lay 9 frames, read in doubt, before the 2 that doubled
                    # it: the one question came once the 2 lay on it, and the raja was lost.
                    events += self._hidden_unnamed(t, timestamp)
                t.hand_at, t.calm_views = frame_index, 0
            o = matched.get(t.id)
            if o is not None:
                center, label, conf, topk, evidence, crop = o
                if frame_index - t.last_seen > HIDDEN_FRAMES:  # (*a-doubt-lapses-unseen*)
                    t.hidden, t.doubt = True, 0
                t.center = 0.7 * t.center + 0.3 * np.asarray(center, float)
                t.last_seen, t.missed = frame_index, 0
                kept = None
                if evidence:  # else seen, but its reading was counted already
                    if label == FACE_DOWN:
                        t.back_at = frame_index
                    elif not t.settled and 0 <= t.back_at < frame_index - self.remove_frames:
                        t.since, t.back_at = frame_index, -1  # (see _Track.back_at)
                    t.readings.append((label, conf, topk))
                    kept = keep_view(t, frame_index, label, crop, conf >= self.min_confidence)
                    events += self._vote(t, frame_index, timestamp)
                if crop is not None and not gated and motion is not None:
                    t.calm = kept if kept is not None else crop.copy()  # one copy a frame
                    t.calm_views += 1
            elif gated and not t.settled and frame_index - t.last_seen == HIDDEN_FRAMES:
                events += self._hidden_unnamed(t, timestamp)
            elif not gated:
                t.missed += 1
                if t.missed >= (self.remove_frames if t.settled else self.stable_frames):
                    self._tracks.remove(t)
                    self._remember(t)
                    if t.settled and self._twin(t):
                        pass  # the card lies there still, seen as its twin
                    elif t.settled:
                        # an unsure card goes as it came: without a name
                        name = None if t.unsure or t.label == FACE_DOWN else t.label
                        events.append(self._event("removed", t, name, 1.0, frame_index,
                                                  timestamp))
                    else:
                        events += self._gone_unnamed(t, timestamp)
        for center, label, conf, topk, _, crop in (o for k, o in matched.items() if k < 0):
            t = _Track(self._next_id, np.asarray(center, float), frame_index, frame_index,
                       deque(maxlen=self.stable_frames * 2), since=frame_index,
                       views=deque(maxlen=self.stable_frames))
            self._next_id += 1
            t.readings.append((label, conf, topk))
            keep_view(t, frame_index, label, crop, conf >= self.min_confidence)
            self._tracks.append(t)
        return events + self._cleared(frame_index, timestamp)

    def _associate(self, obs: list) -> dict[int, tuple]:
        """Greedy nearest matching of observations to tracks; new ones get keys -1, -2..."""
        out: dict[int, tuple] = {}
        pairs: list = []
        if obs and self._tracks:
            pts = np.array([o[0] for o in obs], float).reshape(-1, 2)
            ids = np.array([t.id for t in self._tracks])
            centers = np.array([t.center for t in self._tracks], float)
            d = np.hypot(*(pts[:, None, :] - centers[None, :, :]).transpose(2, 0, 1))
            oi, tj = np.nonzero(d <= self.match_mm)
            pairs = sorted(zip(d[oi, tj].tolist(), oi.tolist(), ids[tj].tolist()))
        used_o, used_t = set(), set()
        for _d, i, tid in pairs:
            if i in used_o or tid in used_t:
                continue
            used_o.add(i)
            used_t.add(tid)
            out[tid] = obs[i]
        for i, o in enumerate(obs):
            if i not in used_o:
                out[-1 - i] = o
        return out

    def _vote(self, t: _Track, frame: int, ts: float) -> list[TrackEvent]:
        recent = list(t.readings)[-self.stable_frames:]
        if len(recent) < self.stable_frames:
            return []
        start = frame - self.stable_frames + 1  # the frame of the vote's first reading
        if t.read_as is not None:  # its readings, as the players named the card
            if unlike(t, start):
                # (laid by the hand that came last)
                t.read_as, t.swapped, t.doubt_from = None, True, t.hand_at + 1
            else:
                recent = [(t.label if lab == t.read_as else lab, c, k)
                          for lab, c, k in recent]
        votes = Counter(r[0] for r in recent)
        label, count = votes.most_common(1)[0]
        agreement = count / len(recent)
        conf = vote_confidence(recent, label)
        confident = agreement >= self.min_agreement and conf >= self.min_confidence
        resolves = t.settled and t.unsure and label in t.asked
        if resolves and label == t.asked[0]:
            confident = confident and conf >= self.resolve_confidence
        # Ruling *no-back-turns-by-itself*: a back read surely as one face since, no card laid
        # on it, was a dim court's dark ground (a Cheng vizier: a back at 1.0, then itself at
        # 0.99 with no hand near): it is that face, laid when the back was first seen.
        same_card = confident and t.settled and not t.unsure and label != t.label and (
            not t.disturbed or alike(t, start))
        reface = same_card and t.label == FACE_DOWN and conf >= self.resolve_confidence
        if same_card and not reface:
            # Rulings *no-card-without-a-hand* and *alike-after-the-hand* hold for sure
            # readings too (for doubts, below). A profile read a Varaha raja, no hand near, as
            # the Parashurama raja (0.97), and a Barat 7 as the 1 (0.99 like itself after a
            # hand passed): a refused second card, and a wrong card in a bridge.
            confident = False
        if t.swapped and label == t.label:
            # Its readings name the card beneath, as they did when the players named it:
            # only its crops tell, so it is a doubt like any other. On a hard six-player
            # film the 1 of Shamsher laid on the 2 the players had named read as the 2
            # (0.45), and Player 4's card was never known.
            confident = False
        elif label == t.label and t.settled:
            t.doubt = 0
            if confident:
                t.disturbed = False
            if t.unsure and confident:  # the doubt resolved itself
                t.unsure = False
                return [self._event("appeared", t, label, conf, frame, ts, resolves=True)]
            return []
        if not confident:
            # Readings in flux (a card just laid on another, a glare passing) get as many
            # frames again to settle before the players are asked. A card that settled with
            # a confident name keeps it through doubtful readings that still rank it first
            # (a neighbour's hand, a glare): only another card ranked first unsettles it,
            # and only once a hand came near it. A card does not change by itself: on the
            # real-art Kendra Kari film a Kumancha 6 that lay untouched was re-read as the
            # 8 (0.83) three times, and each time the players were asked what lay there.
            # An unsure card is the same doubt on the same terms: the players were asked.
            if t.settled and not t.swapped and (
                    not t.disturbed or holds(t, vote_candidates(recent))
                    or still(t, start) or alike(t, start)):
                t.doubt = 0
                return []
            t.doubt += 1
            if t.doubt == 1 and not t.swapped:
                t.doubt_from = frame
            if t.doubt < self.stable_frames:
                return []
        else:
            t.doubt = 0
        covers = (t.label if t.settled and not t.unsure and t.label not in (None, FACE_DOWN)
                  else None)
        first = max(t.first_frame, start)
        if t.settled and not reface:  # a card laid on a settled one came with its new readings
            # (a doubt settles after ``stable_frames`` votes, and a hand over the card holds
            # them: it was laid when the doubt began. On a hard five-player film a 7 of
            # Kumancha, in doubt from frame 770 under a resting hand, settled at 808 and
            # went after the next player's card, laid at 793: two draws were inferred that
            # nobody made.)
            t.since = min(first, t.doubt_from) if t.doubt else first
        candidates = vote_candidates(recent)
        if label == FACE_DOWN and agreement < self.min_agreement and candidates:
            # Ruling *a-face-is-no-back*: readings of a back, but too few to agree, and of a
            # face are a doubt about the face. A profile read the Cheng 10 laid on Position 7
            # as a back (1.0) three times in five and as itself twice; the referee lets backs
            # be, and the bridge it made was lost.
            label = candidates[0][0]
        t.settled, t.label, t.disturbed, t.read_as, t.swapped = True, label, False, None, False
        t.before_hand, t.hidden = None, False
        t.settled_at = frame
        t.picture = sharpest(t.views, label, first)
        if label == FACE_DOWN:
            t.unsure = False
            return [self._event("appeared", t, None, conf, frame, ts, first=first)]
        if confident:
            t.unsure = False
            return [self._event("appeared", t, label, conf, frame, ts, first=first,
                                covers=covers, resolves=resolves, candidates=candidates)]
        t.unsure = True
        t.asked = tuple(c for c, _ in candidates)
        return [self._event("unsure", t, None, conf, frame, ts, first=first,
                            covers=covers, candidates=candidates)]

    def _twin(self, t: _Track) -> bool:
        """Whether another track within two match distances of ``t`` holds its card
        surely: each card exists once, so that is the same card (a card laid a little off
        the one beneath: its circle jumped 10-13 mm, and a dim film's Surya vizier was
        "gone" for 6 s from the position where it lay)."""
        if t.label in (None, FACE_DOWN) or t.unsure:
            return False
        return any(o.settled and o.label == t.label and not o.unsure
                   and float(np.hypot(*(o.center - t.center))) <= 2 * self.match_mm
                   for o in self._tracks if o is not t)

    def _remember(self, t: _Track) -> None:
        """Keep a gone track's picture, for an answer about it that comes late (the card
        asked about last, or one asked about as it went: see :meth:`_gone_unnamed`)."""
        if t.picture is not None:
            self._gone[t.id] = (t.settled_at, t.picture)
            while len(self._gone) > GONE_PICTURES:
                self._gone.popitem(last=False)

    def _gone_unnamed(self, t: _Track, ts: float) -> list[TrackEvent]:
        """A card that lay long enough to be voted on and went before its doubtful readings
        settled is asked about, not dropped (a real-art trick's doubtful cards, taking
        turns to be read, were gathered first, and every play after was refused).

        What counts is how long it lay in view, not how often it was read (taking turns,
        a Vamana 8 lay 11 frames, read 4 times at 0.85 against the 0.9 bar, unasked)."""
        out = self._asked_unsettled(t, ts)
        if out:
            self._remember(t)
        return out

    def _hidden_unnamed(self, t: _Track, ts: float) -> list[TrackEvent]:
        """A card whose doubtful readings have not settled, as a hand comes over it (its
        doubt begun) or has hidden it for ``HIDDEN_FRAMES``, is asked about now and stays,
        unsure (a resting hand covered a doubtful Buddha 1 till its trick was gathered: the
        referee never heard of it, and 24 of 121 moves were followed)."""
        out = self._asked_unsettled(t, ts)
        if out:
            t.settled, t.unsure, t.label = True, True, out[0].candidates[0][0]
            t.asked, t.disturbed = tuple(c for c, _ in out[0].candidates), True
        return out

    def _asked_unsettled(self, t: _Track, ts: float) -> list[TrackEvent]:
        """The unsure event of a card whose readings never settled (none for a glimpse)."""
        recent = list(t.readings)[-self.stable_frames:]
        if t.last_seen - t.first_frame + 1 < self.stable_frames:
            return []  # a glimpse: too little to ask about
        label, _ = Counter(r[0] for r in recent).most_common(1)[0]
        candidates = vote_candidates(recent)
        if label == FACE_DOWN or not candidates:
            return []
        t.settled_at, t.picture = t.last_seen, sharpest(t.views, label, t.first_frame)
        return [self._event("unsure", t, None, vote_confidence(recent, label), t.last_seen,
                            ts, candidates=candidates)]

    def _event(self, kind: str, t: _Track, card: str | None, conf: float, frame: int,
               ts: float, first: int | None = None, covers: str | None = None,
               candidates: tuple = (), resolves: bool = False) -> TrackEvent:
        c = (float(t.center[0]), float(t.center[1]))
        return TrackEvent(kind, card, c, self._zone(t.center), conf,
                          t.first_frame if first is None else first, frame, ts, t.id,
                          candidates, covers, resolves, t.since,
                          self.min_confidence if kind == "unsure" else None)

    def _cleared(self, frame: int, ts: float) -> list[TrackEvent]:
        if self.layout is None:
            return []
        counts = Counter(self._zone(t.center) for t in self._tracks if t.settled)
        events = []
        for zone, before in self._zone_counts.items():
            if zone is not None and before > 0 and counts.get(zone, 0) == 0:
                z = self.layout.zone(zone)
                events.append(TrackEvent("cleared", None, z.center_mm, zone, 1.0, frame, frame,
                                         ts))
        self._zone_counts = counts
        return events
