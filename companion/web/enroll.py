"""Live enrolment: lay cards out on the mat, confirm what each one is on the dashboard, and
save a deck profile, the same kind `companion enroll` builds from a folder of images.

The flow is scan -> confirm -> (scan the next cards -> confirm ...) -> save. A scan cuts every
card out of the camera's own picture (no drawn labels) and offers the model's reading as each
card's label. Confirming keeps the labelled crops in a draft that grows across scans, so a
whole deck can be enrolled a table-full at a time. Saving builds the profile from the draft
(one image per card, :func:`companion.vision.enroll.enroll_images`) and writes
``PROFILES_DIR/NAME.npz``. Only confirmed cards are enrolled: nothing is learnt from a guess.
A card lying face down is offered as the deck's back (``BACK``): with the back enrolled, a
face-down card of a plain-backed deck is not read as a face (see ``DeckProfile``).
The confirmed cards are kept on disk as they grow (:mod:`companion.web.draft`), so a
restarted dashboard goes on where the enrolment stood. The cards the players name at the
table, when the model does not know the deck's art, join the same draft, and so do those
named while a profile learnt from the camera reads (it names no card by itself). Such a
profile keeps its pictures: saved under its name with ``extend`` ("add these cards"), the
draft's cards are added to it (one game of Kendra Kari names a fifth of its deck). Its
pictures can also be opened into an empty draft (``open``), checked and renamed there like any
named card, and saved back over it with ``replace`` (each file it replaces is kept beside it,
``NAME.npz.YYYYMMDD-HHMMSS.bak``); saved so, a profile is also enrolled again with the model
now served.
"""

from __future__ import annotations

import base64
import re
import shutil
import threading
import time
from pathlib import Path

import cv2
import numpy as np
from flask import Blueprint, abort, current_app, jsonify

from companion.cards import deck_cards
from companion.web import runtime
from companion.web.api import json_body, want
from companion.web.draft import BACK, Draft, added_to
from companion.web.media import MODEL_LOCK, card_or_400, classifier_or_503

bp = Blueprint("enroll", __name__)

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")
_SAVING = threading.Lock()


def _draft() -> Draft:
    return runtime().draft


def _png_data_url(crop: np.ndarray) -> str:
    ok, buf = cv2.imencode(".png", crop)
    return "data:image/png;base64," + base64.b64encode(buf.tobytes()).decode() if ok else ""


def _summary(d: Draft) -> dict:
    """The labelled cards so far; ``faces`` and ``deck_size``: of one deck, how many of
    its faces there are, and of how many (the back is not a face)."""
    decks = d.decks()
    (deck,) = decks if len(decks) == 1 else (None,)
    return {"cards": sorted(d.cards), "count": len(d.cards),
            "decks": sorted(k.value for k in decks),
            "faces": d.faces(deck) if deck else 0,
            "deck_size": len(deck_cards(deck)) if deck else None}


def _one_deck(card_ids, what: str) -> None:
    """400 when ``card_ids`` (the back aside) are of more than one deck."""
    decks = {card_or_400(c).deck for c in card_ids if c != BACK}
    if len(decks) > 1:
        abort(400, f"a profile is one deck; these {what} mix "
                   f"{', '.join(sorted(k.value for k in decks))}")


@bp.get("/api/enroll")
def draft():
    d = _draft()
    with d.lock:
        return jsonify(_summary(d))


@bp.post("/api/enroll/scan")
def scan():
    """Every card the camera sees now, with the model's reading as the suggested label."""
    from companion.vision.calibration import CalibrationError, MatCalibrator
    from companion.vision.cues import sharpness
    from companion.vision.detect import CardDetector, detect_unrectified
    from companion.vision.enroll import SHARP_ENOUGH
    frame = runtime().hub.latest_raw()
    if frame is None:
        abort(503, "no picture from the camera yet")
    try:  # on the mat, cards are found as the game's pipeline finds them
        det = CardDetector().detect(frame, MatCalibrator().calibrate(frame))
    except CalibrationError:
        det = detect_unrectified(frame)
    model = classifier_or_503()
    with MODEL_LOCK:
        readings = model.classify(np.ascontiguousarray(det.crops)) if len(det) else None
    # empty places (a zone ring printed on the mat) are not offered; a face-down card is, as
    # the deck's back
    shown = [i for i in range(len(det)) if readings is not None and
             (readings.card_ids[i] or readings.face_down[i] >= 0.5)]
    if not shown:
        abort(422, "no card found: lay the cards face up and upright (and one face down, "
                   "for the back) and apart on the mat, in good light")
    d = _draft()
    with d.lock:
        d.scan = [det.crops[i].copy() for i in shown]
        sharp = sharpness(det.crops[shown])
        cards = [{"index": k, "reading": readings.card_ids[i] or BACK,
                  "confidence": round(float(readings.confidence[i]), 3),
                  # a blurred picture teaches the profile the blur: scan such a card again
                  "blurred": bool(sharp[k] < SHARP_ENOUGH),
                  "top": [c for c, _p in readings.topk[i]],
                  "center_px": [round(float(v), 1) for v in det.centers_px[i]],
                  "image": _png_data_url(det.crops[i])} for k, i in enumerate(shown)]
        return jsonify(cards=cards, draft=_summary(d))


@bp.post("/api/enroll/confirm")
def confirm():
    """``labels``: {scan index: card id}; an index left out (or labelled "") is skipped."""
    data = json_body("labels")
    labels = want(data, "labels", dict)
    d = _draft()
    with d.lock:
        chosen: dict[str, np.ndarray] = {}
        for key, cid in labels.items():
            if not isinstance(cid, str):
                abort(400, f"the label of card {key!r} must be a card id such as 'surya-7'")
            if not cid:
                continue
            if not (isinstance(key, str) and key.isdigit() and int(key) < len(d.scan)):
                abort(400, f"no card {key!r} in the last scan ({len(d.scan)} cards); scan again")
            if cid == BACK:
                if BACK in chosen:
                    abort(400, "the back is given to two cards of this scan: label one")
                chosen[BACK] = d.scan[int(key)]
                continue
            card = card_or_400(cid)
            if card.id in chosen:
                abort(400, f"{card.id} is given to two cards of this scan: each card exists once")
            chosen[card.id] = d.scan[int(key)]
        if not chosen:
            abort(400, "label at least one card")
        _one_deck([*d.cards, *chosen], "labels")
        d.cards.update(chosen)  # a card confirmed again takes its newer picture
        d.scan = []
        d.keep()
        return jsonify(_summary(d))


@bp.get("/api/enroll/cards")
def named_cards():
    """Every picture in the draft with its name, to be checked before the profile is saved
    (the cards named at the table were not seen here)."""
    from companion.vision.cues import sharpness
    from companion.vision.enroll import SHARP_ENOUGH
    d = _draft()
    with d.lock:
        items = sorted(d.cards.items())
        sharp = sharpness(np.stack([crop for _, crop in items])) if items else []
        return jsonify(cards=[{"card": cid, "image": _png_data_url(crop),
                               "blurred": bool(s < SHARP_ENOUGH)}
                              for (cid, crop), s in zip(items, sharp)], draft=_summary(d))


@bp.post("/api/enroll/rename")
def rename():
    """``labels``: {a card id in the draft: the picture's right name, or "" to drop it}; the
    pictures left out keep their names. Names may be swapped; each card exists once."""
    data = json_body("labels")
    labels = want(data, "labels", dict)
    d = _draft()
    with d.lock:
        unknown = sorted(k for k in labels if k not in d.cards)
        if unknown:
            abort(400, f"no picture named {', '.join(map(repr, unknown))} in the draft: "
                       "check the named cards again")
        renamed: dict[str, np.ndarray] = {}
        for old, crop in d.cards.items():
            cid = labels.get(old, old)
            if not isinstance(cid, str):
                abort(400, f"the name of {old!r} must be a card id such as 'surya-7', or ''")
            if not cid:
                continue  # dropped
            cid = cid if cid == BACK else card_or_400(cid).id
            if cid in renamed:
                abort(400, f"{cid} is given to two pictures: each card exists once")
            renamed[cid] = crop
        _one_deck(renamed, "names")
        d.cards = renamed
        d.keep()
        return jsonify(_summary(d))


@bp.post("/api/enroll/save")
def save():
    from companion.vision.classify import KNOWN_ART
    from companion.vision.enroll import ProfileError, enroll_images, save_profile
    data = json_body("name", "extend", "replace")
    name, path = _profile_path(data)
    extend = want(data, "extend", bool, required=False, default=False)
    replace = want(data, "replace", bool, required=False, default=False)
    if extend and replace:
        abort(400, "either add these cards to the profile or replace it with them, not both")
    model = classifier_or_503()
    d = _draft()
    with _SAVING:  # one profile written at a time, so that no name is taken twice
        exists = path.exists()
        if exists and not (extend or replace):
            abort(409, f"a deck profile named {name!r} exists already; choose another name, "
                       "add these cards to it, or replace it with them")
        # The draft is not held while the profile is built (seconds): the camera's thread
        # adds the cards named at the table meanwhile, and those stay for the next profile.
        with d.lock:
            taken = dict(d.cards)
        faces = {cid: crop for cid, crop in taken.items() if cid != BACK}
        if not faces:
            abort(400, "no cards named yet: scan the mat and confirm the labels first")
        back, before = taken.get(BACK), 0
        if exists and extend:
            old = _with_pictures(path, name, "nothing can be added to it; save these "
                                 "cards under another name")
            _one_deck([*faces, *old.card_ids], f"cards and the profile {name!r}")
            faces, before = added_to(old, faces), len(old.card_ids)
            back = back if back is not None else old.back_picture
        try:
            with MODEL_LOCK:
                profile = enroll_images(faces, name, model, back=back, cut=True)
        except ProfileError as e:
            abort(400, str(e))
        kept = _keep_a_copy(path) if exists and replace else None
        save_profile(profile, path)
        with d.lock:
            d.cards = {cid: crop for cid, crop in d.cards.items() if taken.get(cid) is not crop}
            d.keep()
    return jsonify(path=str(path), name=name, deck=profile.deck.value,
                   cards=len(profile.card_ids), back=profile.back_embeddings is not None,
                   model_agreement=round(profile.model_agreement, 3),
                   known_art=profile.model_agreement >= KNOWN_ART,
                   from_camera=profile.from_camera,
                   added=len(profile.card_ids) - before,
                   kept=str(kept) if kept else None), 201


def _keep_a_copy(path: Path) -> Path:
    """A copy of the profile about to be replaced, should it be wanted: every version is
    kept (``NAME.npz.YYYYMMDD-HHMMSS.bak``), copied so that the name is never missing."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    kept = path.with_name(f"{path.name}.{stamp}.bak")
    n = 1
    while kept.exists():  # replaced twice within a second
        n += 1
        kept = path.with_name(f"{path.name}.{stamp}-{n}.bak")
    shutil.copyfile(path, kept)
    return kept


def _profile_path(data: dict) -> tuple[str, Path]:
    """The profile ``data["name"]`` names, and its file; 400 when it is no name."""
    name = want(data, "name", str)
    if not NAME.match(name):
        abort(400, "a profile name is 1-40 letters, digits, '-' or '_', such as 'my-mughal-deck'")
    return name, Path(current_app.config["PROFILES_DIR"]) / f"{name}.npz"


@bp.post("/api/enroll/open")
def open_profile():
    """``name``: a saved profile whose pictures become the draft's, to be checked, renamed
    and saved back with ``replace``. Only into an empty draft: named cards are never lost."""
    name, path = _profile_path(json_body("name"))
    if not path.is_file():
        abort(404, f"no deck profile named {name!r}")
    profile = _with_pictures(path, name, "there is nothing to check here")
    d = _draft()
    with d.lock:
        if d.cards:
            abort(409, f"this profile's draft holds {len(d.cards)} named card(s): save them or "
                       "start over before opening another profile")
        d.cards = dict(zip(profile.card_ids, profile.pictures))
        if profile.back_picture is not None:
            d.cards[BACK] = profile.back_picture
        d.scan = []
        d.keep()
        return jsonify(_summary(d))


def _with_pictures(path: Path, name: str, so: str):
    """The saved profile at ``path``, or 400 where it cannot be read or keeps no pictures
    of its cards (``so``: what that means for the user)."""
    from companion.vision.enroll import ProfileError, load_profile
    try:
        profile = load_profile(path)
    except ProfileError as e:
        abort(400, str(e))
    if profile.pictures is None:
        abort(400, f"the deck profile {name!r} keeps no pictures of its cards (enrolled from "
                   f"images, or saved before profiles kept them): {so}")
    return profile


@bp.post("/api/enroll/reset")
def reset():
    d = _draft()
    with d.lock:
        d.scan, d.cards = [], {}
        d.keep()
        return jsonify(_summary(d))
