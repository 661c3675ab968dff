"""Pictures: the live MJPEG view, snapshots, card identification from an upload or the
camera, mat calibration from the live view, and the join QR code."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion.cards import Card
from companion.web import cardinfo, runtime
from companion.web.capture import named_profile

bp = Blueprint("media", __name__)

ALLOWED_UPLOADS = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
                   ".webp": "image/webp"}
MAX_PIXELS = 25_000_000
MODEL_LOCK = threading.Lock()  # one onnxruntime session, shared by the pages' requests
_classifier: dict[str, Any] = {}


@bp.get("/video.mjpg")
def video():
    hub = runtime().hub
    min_gap = 1.0 / current_app.config["MJPEG_FPS"]

    def generate():
        hub.viewers += 1
        try:
            seen, sent = -1, 0.0
            while True:
                # a viewer gets at most MJPEG_FPS frames a second: a phone need not decode
                # every camera frame, and the referee never waits on a viewer
                wait = sent + min_gap - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                seq = hub.wait(seen, 5.0)
                if seq == seen:
                    continue
                seen = seq
                frame = hub.jpeg()
                if frame is None:
                    continue
                sent = time.monotonic()
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " +
                       str(len(frame[1])).encode() + b"\r\n\r\n" + frame[1] + b"\r\n")
        finally:
            hub.viewers -= 1

    return Response(generate(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})


@bp.get("/snapshot.jpg")
def snapshot():
    frame = runtime().hub.jpeg()
    if frame is None:
        abort(503, "no picture yet: the camera has not delivered a frame")
    return Response(frame[1], mimetype="image/jpeg", headers={"Cache-Control": "no-cache"})


# ---- identify a card (Learn page) -------------------------------------------------------

def decode_upload() -> np.ndarray:
    f = request.files.get("photo")
    if f is None or not f.filename:
        abort(400, "attach a photo of one card as the form field 'photo'")
    name = f.filename.lower()
    ext = name[name.rfind("."):] if "." in name else ""
    if ext not in ALLOWED_UPLOADS:
        abort(415, f"upload a PNG, JPEG or WebP photo, not {ext or 'a file without type'}")
    data = f.read(current_app.config["MAX_CONTENT_LENGTH"] + 1)
    if len(data) > current_app.config["MAX_CONTENT_LENGTH"]:
        abort(413, "the photo is larger than the upload limit")
    arr = np.frombuffer(data, np.uint8)
    header = cv2.imdecode(arr, cv2.IMREAD_REDUCED_COLOR_8) if len(arr) else None
    if header is None:
        abort(415, "that file is not a readable image")
    if header.shape[0] * header.shape[1] * 64 > MAX_PIXELS:
        abort(413, "the photo has too many pixels; 25 megapixels at most")
    img = cv2.imdecode(arr, cv2.IMREAD_COLOR)
    if img is None:
        abort(415, "that file is not a readable image")
    return img


def classifier_or_503():
    from companion.vision.classify import CardClassifier, ModelError
    with MODEL_LOCK:
        if "model" not in _classifier:
            try:
                _classifier["model"] = CardClassifier()
            except ModelError as e:
                _classifier["error"] = str(e)
                _classifier["model"] = None
        if _classifier["model"] is None:
            abort(503, f"card recognition is not available: {_classifier.get('error')}")
        return _classifier["model"]


def profile_reader():
    """A reader with the deck profile the Setup page named, when it loads, so that the Learn
    page names a user's own deck as the camera does; else None (the model alone)."""
    from companion.web.vision_feed import VisionUnavailable, card_reader
    path = named_profile(runtime().table.settings, current_app.config["PROFILES_DIR"])
    try:
        key = ("profile", path, Path(path).stat().st_mtime) if path else None
    except OSError:
        key = None
    if key is None:
        return None
    with MODEL_LOCK:
        if key not in _classifier:
            for old in [k for k in _classifier if isinstance(k, tuple)]:
                del _classifier[old]  # one profile at a time: the one named now
            try:  # the camera's reader: a profile it cannot use is logged, the model reads
                reader = card_reader(None, path)
            except VisionUnavailable:
                reader = None  # no model: classifier_or_503 says so
            _classifier[key] = reader if reader is not None and reader.profile else None
        return _classifier[key]


def identify_image(img: np.ndarray, model=None) -> list[dict[str, Any]]:
    """Every card found in a plain photo (no mat needed), best reading first, read by
    ``model`` (default: the model alone)."""
    from companion.vision.detect import detect_unrectified
    model = model or classifier_or_503()
    det = detect_unrectified(img)
    crops = det.crops
    if len(det) == 0:  # a close-up may show no rim: read the centre square as one card
        h, w = img.shape[:2]
        s = min(h, w)
        crop = img[(h - s) // 2:(h + s) // 2, (w - s) // 2:(w + s) // 2]
        crops = cv2.resize(crop, (96, 96), interpolation=cv2.INTER_AREA)[None]
    with MODEL_LOCK:
        cls = model.classify(np.ascontiguousarray(crops))
    out = []
    for i in range(len(cls)):
        cid = cls.card_ids[i]
        out.append({"card": cid, "confidence": float(cls.confidence[i]),
                    "face_down": float(cls.face_down[i]),
                    "top": [{"card": c, "name": Card.parse(c).name, "p": p}
                            for c, p in cls.topk[i]]})
    out.sort(key=lambda r: (r["card"] is None, -r["confidence"]))
    return out


@bp.post("/api/identify")
def identify():
    if request.args.get("from") == "camera":
        frame = runtime().hub.latest()
        if frame is None:
            abort(503, "no picture from the camera yet")
        img = frame
    else:
        img = decode_upload()
    reader = profile_reader()
    readings = identify_image(img, reader)
    best = next((r for r in readings if r["card"]), None)
    game = request.args.get("game", "")[:40]
    live = runtime().table.live
    if not game and live is not None:
        game = live.module.NAME
    info = None
    if best is not None:
        try:
            info = cardinfo.card_info(best["card"], game)
        except ValueError:
            info = cardinfo.card_info(best["card"])
    message = "" if best else "no card recognised: hold one card flat and close"
    if best and reader is None and runtime().table.camera.art:
        message = ("a guess: the camera's model does not know this deck's art. Enrol the deck "
                   "and name its profile on Setup to have its cards named here too.")
    return jsonify(readings=readings[:5], card=info, message=message,
                   profile=runtime().table.settings.get("deck_profile", "") if reader else "")


# ---- calibration ------------------------------------------------------------------------

@bp.get("/api/calibration")
def calibration():
    """The mat markers found in the current frame, and the saved manual corners."""
    frame = runtime().hub.latest()
    settings = runtime().table.settings
    out: dict[str, Any] = {"manual_corners": settings.get("manual_corners"), "markers": [],
                           "frame": None}
    if frame is None:
        out["message"] = "no picture yet"
        return jsonify(out)
    out["frame"] = {"width": int(frame.shape[1]), "height": int(frame.shape[0])}
    try:
        from companion.vision.calibration import MatCalibrator
        found = MatCalibrator().find_markers(frame)
        out["markers"] = [{"id": int(k), "corners": np.asarray(v).reshape(-1, 2).tolist()}
                          for k, v in found.items()]
    except (ImportError, cv2.error, ValueError) as e:  # calibration code still arriving or a frame it cannot read
        out["message"] = f"marker search failed: {e}"
    return jsonify(out)


@bp.post("/api/calibration")
def set_calibration():
    from companion.web.api import json_body, want
    data = json_body("corners")
    corners = want(data, "corners", list)
    if len(corners) != 4 or not all(
            isinstance(c, list) and len(c) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 10_000
                for v in c) for c in corners):
        abort(400, "'corners' must be four [x, y] pixel positions: the mat's top-left, "
                   "top-right, bottom-right and bottom-left corners")
    rt = runtime()
    frame = rt.hub.latest()
    if frame is not None:
        from companion.vision.calibration import CalibrationError, manual_calibration
        try:
            manual_calibration(corners, (frame.shape[1], frame.shape[0]))
        except CalibrationError as e:
            abort(400, str(e))
    rt.store.update_session_settings(rt.table.session_id,
                                     {**rt.table.settings, "manual_corners": corners})
    return jsonify(manual_corners=corners)


# ---- join QR (LAN mode) -----------------------------------------------------------------

@bp.get("/join.svg")
def join_qr():
    url = current_app.config.get("JOIN_URL")
    if not url:
        abort(404, "this table is not shared on the network (start it with --lan)")
    import segno
    buf = io.BytesIO()
    segno.make(url, error="m").save(buf, kind="svg", scale=6, border=2)
    return Response(buf.getvalue(), mimetype="image/svg+xml")


def card_or_400(card_id: str) -> Card:
    from companion.cards import CardIdError
    try:
        return Card.parse(card_id)
    except CardIdError as e:
        abort(400, str(e))
