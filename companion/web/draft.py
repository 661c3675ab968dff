"""The enrolment draft: labelled camera pictures of the cards of one deck, kept on disk as
they grow, until they are saved as a deck profile (the Enrol page, ``companion.web.enroll``).

Two kinds of labels reach it. On the Enrol page the players confirm the cards of a scan.
At the table, with a deck the model does not know, every card is put to the players, and
each card they name comes with its picture (``Pipeline.learnt``): playing a game with such
a deck enrols it. A picture confirmed on the Enrol page is never replaced by one from the
table, unless it is blurred and the new one is sharper. When the players correct a move's
card on the Table page, the picture named at the table in that game under the wrong name
takes the right one (``rename_learnt``).

The file is ``PROFILES_DIR/.enroll-draft.npz``, one array per card id, so that a restarted
dashboard goes on where the enrolment stood. It says too which game named each picture at the
table (``NAMED_IN``), so that a correction after a restart still renames it.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.cards import Card, CardIdError, DeckKind

log = logging.getLogger(__name__)

DRAFT_FILE = ".enroll-draft.npz"
BACK = "back"  # the label of the deck's back, as in a manifest
NAMED_IN = "_named_in_game"  # the file's JSON {card id: game id}; no card id starts "_"


@dataclass
class Draft:
    """The cards of one enrolment: the last scan's crops and the labelled ones so far."""

    path: Path
    scan: list[np.ndarray] = field(default_factory=list)
    cards: dict[str, np.ndarray] = field(default_factory=dict)  # card id -> crop
    lock: threading.Lock = field(default_factory=threading.Lock)
    # card id -> (the game it was named in at the table, the very picture kept then), so
    # that a correction of that game's move can move the picture to the right name
    learnt: dict[str, tuple[object, np.ndarray]] = field(default_factory=dict)

    @classmethod
    def load(cls, profiles_dir: str | Path) -> Draft:
        d = cls(Path(profiles_dir) / DRAFT_FILE)
        if d.path.is_file():
            try:
                with np.load(d.path) as z:
                    d.cards = {k: z[k] for k in z.files if k != NAMED_IN}
                    named_in = json.loads(str(z[NAMED_IN])) if NAMED_IN in z.files else {}
            except (OSError, ValueError) as e:
                log.warning("enrolment draft %s unreadable: %s", d.path, e)
                return d
            d.learnt = {cid: (game, d.cards[cid]) for cid, game in named_in.items()
                        if cid in d.cards}
        return d

    def keep(self) -> None:
        """Write the labelled cards to disk (under ``lock``), or remove the file when there
        are none."""
        if self.cards:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp.npz")
            # not compressed: written on every card named at the table, and a whole deck
            # compressed takes 0.14 s against 0.01 s, the capture thread's frames waiting
            named_in = {cid: game for cid, (game, picture) in self.learnt.items()
                        if self.cards.get(cid) is picture}
            np.savez(tmp, **self.cards, **{NAMED_IN: np.array(json.dumps(named_in))})
            tmp.replace(self.path)
        else:
            self.path.unlink(missing_ok=True)

    def decks(self) -> set[DeckKind]:
        return {Card.parse(c).deck for c in self.cards if c != BACK}

    def faces(self, deck: DeckKind) -> int:
        """How many of ``deck``'s cards the draft holds."""
        return sum(1 for c in self.cards if c != BACK and Card.parse(c).deck is deck)

    def learn(self, card_id: str, picture: np.ndarray, game: object = None) -> int | None:
        """Keep the picture of a card the players named at the table (in ``game``), and say
        how many of its deck's cards the draft then holds. None (and nothing kept) when the
        card is no card id, the draft holds another deck's cards (a profile is one deck), or
        it has a picture of that card already that is not blurred or sharper than this one."""
        try:
            deck = Card.parse(card_id).deck
        except CardIdError:
            return None
        with self.lock:
            if self.decks() - {deck}:
                return None
            old = self.cards.get(card_id)
            if old is not None and not replaces(picture, old):
                return None
            self.cards[card_id] = picture
            if game is not None:
                self.learnt[card_id] = (game, picture)
            self.keep()
            return self.faces(deck)

    def rename_learnt(self, card_id: str, right_id: str, game: object) -> bool:
        """A move of ``game`` said ``card_id`` and the players corrected it to ``right_id``:
        the picture named ``card_id`` at the table in that game (a deck holds each card once,
        so it is that move's card) is ``right_id``'s. It takes that name, unless a picture
        of ``right_id`` is kept that it does not replace (then it is dropped: it is not
        ``card_id``). True when the draft changed. A picture put there since (the Enrol
        page, a later game) is left alone."""
        with self.lock:
            named = self.learnt.get(card_id)
            if named is None or named[0] != game or self.cards.get(card_id) is not named[1]:
                return False
            picture = self.cards.pop(card_id)
            del self.learnt[card_id]
            try:
                same_deck = Card.parse(right_id).deck is Card.parse(card_id).deck
            except CardIdError:
                same_deck = False
            kept = self.cards.get(right_id)
            if same_deck and (kept is None or replaces(picture, kept)):
                self.cards[right_id] = picture
                self.learnt[right_id] = (game, picture)
            self.keep()
            return True


def replaces(picture: np.ndarray, kept: np.ndarray) -> bool:
    """Whether a new picture of a card takes the place of the one kept: only of a blurred
    one, and only when it is sharper."""
    from companion.vision.cues import sharpness
    from companion.vision.enroll import SHARP_ENOUGH
    before, now = sharpness(np.stack([kept, picture]))
    return before < SHARP_ENOUGH and now > before


def added_to(profile, faces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A saved profile's pictures with ``faces`` (card id -> picture) added: a card it
    lacks, or a sharper picture of one whose picture was blurred."""
    out = dict(zip(profile.card_ids, profile.pictures))
    for cid, crop in faces.items():
        if cid not in out or replaces(crop, out[cid]):
            out[cid] = crop
    return out
